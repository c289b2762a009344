//! The `gpuarrays` binary: `validate` (compact view, `--verbose`, `--json`), `info`
//! (`--verbose`, the default backend and `GPUARRAYS_BACKEND`), and its errors.

use std::process::{Command, Output};

use serde_json::Value;

/// Runs the binary with `env` set and the variables that change its behaviour otherwise unset.
fn gpuarrays_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuarrays"));
    cmd.args(args)
        .env_remove("GPUARRAYS_REQUIRE_GPU")
        .env_remove("GPUARRAYS_BACKEND");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the gpuarrays binary runs")
}

fn gpuarrays(args: &[&str]) -> Output {
    gpuarrays_with(args, &[])
}

/// The dtype names, in the order of the matrix columns.
const DTYPES: [&str; 15] = [
    "bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64",
    "c32", "c64",
];

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
    for dtype in DTYPES {
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
fn validate_verbose_prints_every_row_and_a_summary() {
    let out = gpuarrays(&[
        "validate",
        "--verbose",
        "--quick",
        "--seed",
        "0x2a",
        "--filter",
        "sum/f32",
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
fn validate_verbose_has_one_line_per_row_of_the_json() {
    let args = ["validate", "--backend", "cpu", "--quick", "--filter", "f64"];
    let json: Value =
        serde_json::from_str(&text(&gpuarrays(&[&args[..], &["--json"]].concat()).stdout))
            .expect("one JSON value");
    let rows = json["results"].as_array().expect("results").len();
    assert!(rows > 50, "{rows} rows");
    let verbose = text(&gpuarrays(&[&args[..], &["--verbose"]].concat()).stdout);
    let table_lines = verbose.lines().filter(|l| l.starts_with("cpu ")).count();
    assert_eq!(table_lines, rows, "{verbose}");
}

#[test]
fn validate_default_view_fits_a_screen() {
    let out = gpuarrays(&["validate", "--quick"]);
    let stdout = text(&out.stdout);
    let all: Vec<&str> = stdout.lines().collect();
    // A backend that fails makes the exit status 1 and lists its rows in full after the
    // screen; otherwise everything passes. Where an adapter is demanded (CI, on lavapipe),
    // this is the README's main command on the CPU reference and wgpu, so both must pass:
    // CI does not run the full-size `validate` again.
    let failing = all.iter().any(|l| l.contains(": FAIL, "));
    if std::env::var("GPUARRAYS_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
        assert!(!failing, "a backend failed validate --quick:\n{stdout}");
        assert!(
            all.iter().any(|l| l.starts_with("wgpu: PASS, ")),
            "GPUARRAYS_REQUIRE_WGPU=1 but wgpu did not pass:\n{stdout}"
        );
    }
    let screen_end = all
        .iter()
        .position(|l| *l == "FAILED rows:")
        .unwrap_or(all.len());
    if failing {
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(screen_end < all.len(), "failures not listed:\n{stdout}");
        assert!(
            all[screen_end + 1..]
                .iter()
                .any(|l| l.starts_with("    case "))
        );
    } else {
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        assert_eq!(screen_end, all.len(), "{stdout}");
    }
    let lines = &all[..screen_end];
    // A summary line per backend, the matrix (operations with equal cells share a line:
    // about 70 lines for the suite's 170 operations) and a short legend: one screen.
    assert!(lines.len() <= 100, "{} lines:\n{stdout}", lines.len());
    // One summary line per compiled-in backend, first.
    assert!(lines[0].starts_with("cpu: PASS, "), "{stdout}");
    for (name, compiled) in [
        ("hip", cfg!(feature = "hip")),
        ("wgpu", cfg!(feature = "wgpu")),
    ] {
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(&format!("{name}:")))
                .count(),
            usize::from(compiled),
            "one line for {name} where it is compiled in, available or not:\n{stdout}"
        );
    }
    // The matrix: a header with the fifteen element types, one line per operation.
    let header = lines
        .iter()
        .find(|l| l.starts_with("operation"))
        .expect("matrix header");
    let columns: Vec<&str> = header.split_whitespace().skip(1).collect();
    assert_eq!(columns, DTYPES, "{header}");
    let matrix_start = lines
        .iter()
        .position(|l| l.starts_with("operation"))
        .unwrap_or(0);
    for line in &lines[matrix_start..] {
        assert!(
            line.chars().count() <= 100,
            "wider than 100 columns: {line:?}"
        );
    }
    // Every operation is named in the label column (before the first type's column).
    let label_end = header.find("bool").expect("bool column");
    let labels: Vec<&str> = lines[matrix_start + 1..]
        .iter()
        .flat_map(|l| {
            l.get(..label_end.min(l.len()))
                .unwrap_or("")
                .split_whitespace()
        })
        .collect();
    for op in [
        "add",
        "cast:c64",
        "sum_axis",
        "matmul",
        "find_first",
        "argsort",
        "unique",
    ] {
        assert!(labels.contains(&op), "no matrix label for {op}:\n{stdout}");
    }
    // The elementwise and the reduction `min` are each named.
    assert_eq!(
        labels.iter().filter(|w| **w == "min").count(),
        2,
        "{stdout}"
    );
    // Not the full table.
    assert!(!lines.iter().any(|l| l.contains("max error")), "{stdout}");
    assert!(stdout.contains("X FAILED"), "legend missing:\n{stdout}");
    let last = all.last().copied().unwrap_or_default();
    let verdict = if failing { "FAIL" } else { "PASS" };
    assert!(last.starts_with(verdict), "summary: {last}");
}

#[test]
fn validate_compact_matrix_agrees_with_the_json() {
    let args = ["validate", "--backend", "cpu", "--quick", "--filter", "/u8"];
    let json: Value =
        serde_json::from_str(&text(&gpuarrays(&[&args[..], &["--json"]].concat()).stdout))
            .expect("one JSON value");
    let compact = text(&gpuarrays(&args).stdout);
    let header = compact
        .lines()
        .find(|l| l.starts_with("operation"))
        .expect("matrix header");
    let column = header.find("u8").expect("u8 column");
    let label_end = header.find("bool").expect("bool column");
    let groups = matrix_groups(&compact, label_end);
    for r in json["results"].as_array().expect("results") {
        let op = r["op"].as_str().expect("op");
        let status = r["status"].as_str().expect("status");
        let expected = if status.starts_with("ok") {
            "."
        } else if status.starts_with("rejected") {
            "r"
        } else {
            panic!("unexpected status on the CPU: {r}")
        };
        // Some line naming this operation (operations with equal cells share a line, its
        // names wrapped onto indented lines) shows the verdict in the u8 column.
        assert!(
            groups
                .iter()
                .filter(|(names, _)| names.iter().any(|n| n == op))
                .any(|(_, first)| first.get(column..column + 1) == Some(expected)),
            "{op}/u8 is {status}, expected '{expected}' in:\n{compact}"
        );
    }
}

/// The matrix's groups: the names of each (its first line's label and the indented lines
/// below it) and its first line, which holds the cells; `label_end` is the first column.
fn matrix_groups(compact: &str, label_end: usize) -> Vec<(Vec<String>, String)> {
    let mut groups: Vec<(Vec<String>, String)> = Vec::new();
    let body = compact
        .lines()
        .skip_while(|l| !l.starts_with("operation"))
        .skip(1)
        .take_while(|l| !l.starts_with("cells:"));
    for line in body {
        let label = line.get(..label_end.min(line.len())).unwrap_or(line);
        let names = label.split_whitespace().map(String::from);
        match groups.last_mut() {
            Some((group, _)) if line.starts_with("  ") => group.extend(names),
            _ => groups.push((names.collect(), line.to_string())),
        }
    }
    groups
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
fn info_names_the_default_backend_and_honours_gpuarrays_backend() {
    let out = gpuarrays_with(&["info"], &[("GPUARRAYS_BACKEND", "cpu")]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("default backend: cpu:0") && stdout.contains("GPUARRAYS_BACKEND=cpu"),
        "{stdout}"
    );

    let out = gpuarrays_with(&["info"], &[("GPUARRAYS_BACKEND", "nosuch")]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("GPUARRAYS_BACKEND=nosuch") && stdout.contains("unknown backend 'nosuch'"),
        "{stdout}"
    );

    let out = gpuarrays_with(&["info"], &[("GPUARRAYS_BACKEND", "cpu:1")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stdout).contains("no device 1"),
        "{}",
        text(&out.stdout)
    );

    // hip: chosen where it runs, else an error saying why (never a silent fallback).
    let out = gpuarrays_with(&["info"], &[("GPUARRAYS_BACKEND", "hip")]);
    let stdout = text(&out.stdout);
    if out.status.success() {
        assert!(stdout.contains("default backend: hip:0"), "{stdout}");
    } else {
        assert_eq!(out.status.code(), Some(2));
        let line = stdout
            .lines()
            .find(|l| l.starts_with("default backend: error:"))
            .expect("the error line");
        assert!(line.contains("GPUARRAYS_BACKEND=hip: hip: "), "{line}");
    }
}

#[test]
fn info_verbose_works_and_says_no_more_than_one_line_per_unavailable_backend_otherwise() {
    let plain = gpuarrays(&["info"]);
    let verbose = gpuarrays(&["info", "--verbose"]);
    assert!(plain.status.success() && verbose.status.success());
    let (plain, verbose) = (text(&plain.stdout), text(&verbose.stdout));
    assert!(!plain.contains("caused by"), "{plain}");
    // Everything of the plain output is in the verbose one.
    for line in plain.lines() {
        assert!(verbose.contains(line), "verbose lacks {line:?}");
    }
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

/// On a machine without a Wayland session (no `XDG_RUNTIME_DIR`: CI, a service) looking for
/// a GPU prints nothing of libwayland's own: Mesa's Vulkan device-select layer used to make it
/// print "XDG_RUNTIME_DIR is invalid" twice on every run, even of a program that then runs
/// on the CPU. (Where neither Mesa's layer nor libwayland is installed, nothing was printed
/// before either.)
#[test]
fn looking_for_a_gpu_prints_nothing_of_the_display_stack() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuarrays"));
    cmd.args(["info"])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("GPUARRAYS_REQUIRE_GPU")
        .env_remove("GPUARRAYS_BACKEND")
        .env_remove("RUST_LOG");
    let out = cmd.output().expect("the gpuarrays binary runs");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains("XDG_RUNTIME_DIR"),
        "the display stack printed to stderr:\n{stderr}"
    );
}
