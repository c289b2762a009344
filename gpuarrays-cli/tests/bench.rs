//! `gpuarrays bench` on the CPU reference: a tiny filtered run and its JSON file (the schema
//! `benches/suite_torch.py` reads), the copy baseline, `--list`, and `--compare` against
//! synthetic earlier results (no regression, a regression, not a result file).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpuarrays"))
        .arg("bench")
        .args(args)
        .env_remove("GPUARRAYS_BACKEND")
        .env_remove("GPUARRAYS_REQUIRE_GPU")
        .output()
        .expect("the gpuarrays binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ga-bench-{}-{name}", std::process::id()))
}

/// A quick run of `kernel/launch` on the CPU reference (plus the copy baseline).
fn quick_run(json_path: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "--backend",
        "cpu",
        "--sizes",
        "small",
        "--samples",
        "3",
        "--filter",
        "kernel/launch,array/reductions/reduce/Float32/1d",
        "--json",
        json_path.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    bench(&args)
}

#[test]
fn a_filtered_run_writes_every_field_the_harness_reads() {
    let path = temp("run.json");
    let out = quick_run(&path, &[]);
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    assert_eq!(doc["schema"], "gpuarrays-bench/1");
    assert_eq!(doc["errors"], json!([]));
    let devices = doc["devices"].as_array().expect("devices");
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0]["timer"], "wall-clock");
    assert!(devices[0]["copy_gbps"].as_f64().is_some_and(|g| g > 0.0));
    let rows = doc["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "array/copy",
            "array/reductions/reduce/Float32/1d",
            "kernel/launch"
        ],
        "the copy baseline first, then the selected rows in suite order"
    );
    for r in rows {
        for key in [
            "backend",
            "device",
            "timer",
            "params",
            "median_s",
            "min_s",
            "q1_s",
            "q3_s",
            "max_s",
            "samples",
            "calls_per_sample",
        ] {
            assert!(r.get(key).is_some(), "{} lacks {key}", r["name"]);
        }
        let (min, q1, med, q3, max) = (
            r["min_s"].as_f64().unwrap_or(-1.0),
            r["q1_s"].as_f64().unwrap_or(-1.0),
            r["median_s"].as_f64().unwrap_or(-1.0),
            r["q3_s"].as_f64().unwrap_or(-1.0),
            r["max_s"].as_f64().unwrap_or(-1.0),
        );
        assert!(
            0.0 < min && min <= q1 && q1 <= med && med <= q3 && q3 <= max,
            "{r}"
        );
        assert_eq!(r["samples"], 3);
        assert!(r["params"]["op"].is_string());
    }
    assert_eq!(rows[0]["baseline"], true, "copy ran only as the baseline");
    assert_eq!(rows[0]["fraction"], 1.0);
    let reduce = &rows[1];
    assert_eq!(
        reduce["params"],
        json!({"op": "sum", "dtype": "f32", "dims": [512000], "axis": null})
    );
    assert_eq!(reduce["bytes"], 2_048_000.0);
    let gbps = reduce["gbps"].as_f64().expect("gbps");
    let expected = 2_048_000.0 / reduce["median_s"].as_f64().expect("median") / 1e9;
    assert!((gbps - expected).abs() < 1e-9 * expected.max(1.0));
    assert_eq!(reduce["fraction_of"], "copy");
    assert_eq!(rows[2]["timer"], "host", "kernel/launch is host time");
    assert!(rows[2].get("bytes").is_none());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("| kernel/launch |"), "{stdout}");
    assert!(text(&out.stderr).contains("[cpu]"), "progress on stderr");
    let _ = std::fs::remove_file(path);
}

fn synthetic(median: f64) -> Value {
    let row = |name: &str| {
        json!({
            "name": name, "backend": "cpu", "device": "cpu:0 'cpu (2 threads)'",
            "q1_s": median, "median_s": median, "q3_s": median,
        })
    };
    json!({"schema": "gpuarrays-bench/1", "rows": [row("kernel/launch"), row("array/reductions/reduce/Float32/1d"), row("not/run/now")]})
}

#[test]
fn compare_flags_regressions_and_exits_one() {
    let old_fast = temp("old-fast.json");
    let old_slow = temp("old-slow.json");
    std::fs::write(&old_fast, synthetic(1e-12).to_string()).expect("write");
    std::fs::write(&old_slow, synthetic(1e3).to_string()).expect("write");
    let (p1, p2) = (temp("cmp1.json"), temp("cmp2.json"));

    let out = quick_run(&p1, &["--compare", old_slow.to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "faster than before: no regression\n{stdout}"
    );
    assert!(
        stdout.contains("2 rows compared, 0 regression(s)"),
        "{stdout}"
    );

    let out = quick_run(&p2, &["--compare", old_fast.to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("REGRESSION"), "{stdout}");
    assert!(
        stdout.contains("2 rows compared, 2 regression(s)"),
        "{stdout}"
    );

    let not_result = temp("not-a-result.json");
    std::fs::write(&not_result, "{\"rows\": []}").expect("write");
    let out = quick_run(&p1, &["--compare", not_result.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a gpuarrays bench result"));
    for p in [old_fast, old_slow, p1, p2, not_result] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn list_runs_nothing_and_an_unknown_backend_is_a_usage_error() {
    let out = bench(&["--list", "--filter", "gemm/Float64"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("gemm/Float64/2048  {"), "{stdout}");
    assert!(
        stdout.contains("array/copyL  {") && stdout.contains("(copy baseline)"),
        "{stdout}"
    );
    assert!(!stdout.contains("gemm/Float32/4096"), "{stdout}");
    let out = bench(&["--backend", "no-such-backend"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown backend"));
}
