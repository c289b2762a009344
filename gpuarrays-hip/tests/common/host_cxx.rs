//! Compiling generated C++ with the host's `g++` and running it: the checks that need no GPU
//! (syntax of every generated kernel, combiner laws, the half conversions, the unit-range
//! math) share these steps. Where `g++` is missing the checks are skipped with a printed
//! reason, as tests that need hardware are.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether `g++` runs here; if not, prints that `what` is skipped.
pub fn gxx_or_skip(what: &str) -> bool {
    let found = Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: g++ not found; {what} cannot be compiled on the host");
    }
    found
}

/// A scratch directory of this test process, `tag` naming the check.
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ga-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("create a scratch directory");
    d
}

/// Runs `g++ args…`; panics with the first `lines` lines of its errors (and `context`) when
/// it fails.
pub fn gxx(args: &[&std::ffi::OsStr], context: &str, lines: usize) {
    let out = Command::new("g++").args(args).output().expect("run g++");
    assert!(
        out.status.success(),
        "{context}: g++ failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .take(lines)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Compiles `src` (C++17, `-ffp-contract=off`: IEEE arithmetic without contraction, as the
/// GPUs compute unless told otherwise) at `opt` (`-O0`, `-O2`) into an executable next to it,
/// after including `shim` when given; returns the executable's path.
pub fn build(src: &Path, opt: &str, shim: Option<&Path>) -> PathBuf {
    let exe = src.with_extension("exe");
    let flags = ["-std=c++17", opt, "-ffp-contract=off", "-x", "c++"];
    let mut args: Vec<&std::ffi::OsStr> = flags.iter().map(|s| s.as_ref()).collect();
    if let Some(shim) = shim {
        args.push("-include".as_ref());
        args.push(shim.as_os_str());
    }
    args.extend([src.as_os_str(), "-o".as_ref(), exe.as_os_str()]);
    gxx(&args, &format!("{} (kept there)", src.display()), 40);
    exe
}

/// Runs `exe` with `args` and returns its output (the caller checks the status: some checks
/// print a report before failing).
pub fn run(exe: &Path, args: &[&Path]) -> Output {
    Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()))
}
