//! Shared by the DLPack interop tests (`dlpack_numpy.rs`, `dlpack_torch_gpu.rs`): finding a
//! Python with a module (the pattern of `numpy_crosscheck.rs`), building the test library
//! `tests/dlpack_py` (a cdylib, its own workspace) and running `tests/dlpack_numpy.py`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The interpreter (`$GPUARRAYS_PYTHON`, else `python3`, else `/usr/bin/python3`) for which
/// `check` (Python source) runs without error, or why there is none.
pub fn python_with(check: &str) -> Result<String, String> {
    let candidates: Vec<String> = match std::env::var("GPUARRAYS_PYTHON") {
        Ok(p) => vec![p],
        Err(_) => vec!["python3".into(), "/usr/bin/python3".into()],
    };
    let mut tried = Vec::new();
    for py in &candidates {
        match Command::new(py).args(["-c", check]).output() {
            Ok(out) if out.status.success() => return Ok(py.clone()),
            Ok(out) => tried.push(format!(
                "{py}: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )),
            Err(e) => tried.push(format!("{py}: {e}")),
        }
    }
    Err(format!("`{check}` failed ({})", tried.join("; ")))
}

/// The interpreter, or `None` after printing why the test is skipped; a panic instead when
/// any of `require_vars` is `1`.
pub fn python_or_skip(check: &str, require_vars: &[&str]) -> Option<String> {
    match python_with(check) {
        Ok(py) => Some(py),
        Err(reason) => {
            if let Some(var) = require_vars
                .iter()
                .find(|v| std::env::var(v).as_deref() == Ok("1"))
            {
                panic!("{reason}, and {var}=1");
            }
            eprintln!("skipped: {reason}");
            None
        }
    }
}

/// Builds `tests/dlpack_py` with `features` (with the cargo running this test, in
/// `subdir` of the integration tests' scratch target dir) and returns the library's path.
/// The build output is printed when it fails.
pub fn build_test_library(features: &[&str], subdir: &str) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dlpack_py/Cargo.toml");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(subdir);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    // The outer build's choices stay out of this one's (the target dir is given above).
    cmd.env_remove("CARGO_TARGET_DIR");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cargo}: {e}"));
    assert!(
        out.status.success(),
        "building {} failed:\n{}\n{}",
        manifest.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = target.join("debug").join(format!(
        "{}gpuarrays_dlpack_py{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// Runs `tests/dlpack_numpy.py LIB ARGS..` with `py`; fails with its output unless it
/// succeeds, and prints its output either way.
pub fn run_script(py: &str, lib: &Path, args: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dlpack_numpy.py");
    let out = Command::new(py)
        .arg(&script)
        .arg(lib)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {py}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{} failed:\n{text}", script.display());
    eprint!("{text}");
}
