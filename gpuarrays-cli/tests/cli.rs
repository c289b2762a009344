//! The `gpuarrays` binary: `validate` (text and JSON), `info`, and its errors.

use std::process::{Command, Output};

use serde_json::Value;

fn gpuarrays(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpuarrays"))
        .args(args)
        .env_remove("GPUARRAYS_REQUIRE_GPU")
        .output()
        .expect("the gpuarrays binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn validate_cpu_quick_json_is_one_object_and_green() {
    let out = gpuarrays(&["validate", "--backend", "cpu", "--quick", "--json"]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "exit {:?}\n{}",
        out.status,
        text(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).expect("stdout is exactly one JSON value");
    assert_eq!(v["ok"], Value::Bool(true));
    let backends = v["backends"].as_array().expect("backends is an array");
    assert_eq!(backends.len(), 1);
    assert_eq!(backends[0]["name"], "cpu");
    assert_eq!(backends[0]["available"], true);
    let results = v["results"].as_array().expect("results is an array");
    assert!(results.len() >= 700, "{} results", results.len());
    for r in results {
        for key in ["backend", "op", "dtype", "cases", "max_err", "ok"] {
            assert!(r.get(key).is_some(), "result lacks {key}: {r}");
        }
        assert_eq!(r["backend"], "cpu");
        assert_eq!(r["ok"], true, "{r}");
        assert!(r["cases"].as_u64().is_some_and(|n| n > 0));
        assert!(r["max_err"].is_number(), "{r}");
    }
    for dtype in [
        "bool", "u8", "i32", "u32", "i64", "u64", "f32", "f64", "c32", "c64",
    ] {
        assert!(
            results
                .iter()
                .any(|r| r["dtype"] == dtype && r["op"] == "add")
        );
    }
    // Progress went to stderr, not stdout.
    assert!(text(&out.stderr).contains("[cpu]"));
}

#[test]
fn validate_prints_a_table_and_a_summary() {
    let out = gpuarrays(&[
        "validate", "--quick", "--seed", "0x2a", "--filter", "sum/f32",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    for word in [
        "backend",
        "operation",
        "dtype",
        "cases",
        "max error",
        "status",
    ] {
        assert!(
            stdout.contains(word),
            "table header lacks {word}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("cumsum") && !stdout.contains("sum_axis"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("PASS"), "summary: {last}");
}

#[test]
fn validate_rejects_an_unknown_backend() {
    let out = gpuarrays(&["validate", "--backend", "nosuch", "--quick"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("nosuch") && stderr.contains("cpu"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn validate_rejects_a_bad_seed() {
    let out = gpuarrays(&["validate", "--seed", "banana"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("seed"));
}

#[test]
fn info_lists_backends_devices_and_capabilities() {
    let out = gpuarrays(&["info"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for word in [
        "backends compiled in: cpu",
        "device 0",
        "elementwise",
        "matmul",
        "c64",
    ] {
        assert!(stdout.contains(word), "info lacks {word}:\n{stdout}");
    }
}
