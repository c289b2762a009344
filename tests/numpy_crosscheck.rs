//! The CPU reference backend checked against an independent implementation: NumPy.
//!
//! Each test generates seeded inputs (special values included: NaN of both signs, ±inf,
//! -0.0, subnormals, float values at the integer-cast limits, integer MIN/MAX), runs every
//! operation on `CpuBackend` for every element type, and writes inputs and results to a
//! temporary directory (`data.bin` + `manifest.json`, see `numpy_crosscheck/recorder.rs`).
//! `tests/numpy_crosscheck.py` then recomputes every case with NumPy, emulating the exact
//! semantics documented in gpuarrays-core where NumPy's differ, and reports mismatches as
//! JSON. The Python side also decides which element types each operation must accept
//! (from the documentation, not from our code) and checks that the others were rejected
//! with the right error, and it mutates every result once to prove its comparison can fail.
//!
//! Without NumPy (and ml_dtypes, NumPy's bfloat16) every check is reported as *ignored*, with the reason, in the test summary
//! (`0 passed; 0 failed; 13 ignored`: never a pass it did not earn), and it is a failure when
//! `GPUARRAYS_REQUIRE_NUMPY=1` (as in CI). The checks run under `libtest-mimic` rather than
//! the built-in harness, which cannot mark a test ignored at run time.
//! `GPUARRAYS_CROSSCHECK_SEED` replays another seed; `GPUARRAYS_PYTHON` picks the interpreter;
//! `GPUARRAYS_CROSSCHECK_KEEP=1` keeps the temporary directory.

// `view` takes one range per dimension, so views of 1-D arrays are one-element arrays.
#![allow(clippy::single_range_in_vec_init)]

#[path = "numpy_crosscheck/axis_ops.rs"]
mod axis_ops;
#[path = "numpy_crosscheck/creation.rs"]
mod creation;
#[path = "numpy_crosscheck/einsum.rs"]
mod einsum;
#[path = "numpy_crosscheck/elementwise.rs"]
mod elementwise;
#[path = "numpy_crosscheck/fft.rs"]
mod fft;
#[path = "numpy_crosscheck/indexing.rs"]
mod indexing;
#[path = "numpy_crosscheck/inputs.rs"]
mod inputs;
#[path = "numpy_crosscheck/joining.rs"]
mod joining;
#[path = "numpy_crosscheck/matmul_arange_random.rs"]
mod matmul_arange_random;
#[path = "numpy_crosscheck/ordering.rs"]
mod ordering;
#[path = "numpy_crosscheck/recorder.rs"]
mod recorder;
#[path = "numpy_crosscheck/reductions.rs"]
mod reductions;
#[path = "numpy_crosscheck/slicing.rs"]
mod slicing;
#[path = "numpy_crosscheck/statistics.rs"]
mod statistics;
#[path = "numpy_crosscheck/values.rs"]
mod values;

use std::path::PathBuf;
use std::process::Command;

use gpuarrays_core::kernel::{BinaryOp, ReduceOp, ScanOp, UnaryOp};
use gpuarrays_core::{Array, DType, Element, Expr, RawArray, Result, Scalar, dispatch_dtype};
use gpuarrays_cpu_ref::CpuBackend;
use serde_json::{Value, json};

use inputs::{AXIS_SHAPES, shaped_input, special_lanes, tame_values};
use recorder::{B, In, Out, Recorder};
use values::{Kind, Rng, pairs, specials, values};

const DEFAULT_SEED: u64 = 0x6770_7561_7272_6179;

fn seed() -> u64 {
    std::env::var("GPUARRAYS_CROSSCHECK_SEED")
        .ok()
        .map(|s| s.parse().expect("GPUARRAYS_CROSSCHECK_SEED must be a u64"))
        .unwrap_or(DEFAULT_SEED)
}

/// The Python interpreter that has NumPy, or why there is none.
fn python_with_numpy() -> std::result::Result<String, String> {
    let candidates: Vec<String> = match std::env::var("GPUARRAYS_PYTHON") {
        Ok(p) => vec![p],
        Err(_) => vec!["python3".into(), "/usr/bin/python3".into()],
    };
    let mut tried = Vec::new();
    for py in &candidates {
        match Command::new(py)
            .args(["-c", "import numpy, ml_dtypes"])
            .output()
        {
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
    Err(format!(
        "NumPy with ml_dtypes (for bfloat16) is not available ({}); install them (pip install numpy ml_dtypes) to run the cross-check",
        tried.join("; ")
    ))
}

/// Generates cases with `build`, runs them through NumPy (with `python`) and asserts
/// agreement.
fn crosscheck(python: &str, name: &str, build: impl FnOnce(&mut Recorder, &mut Rng)) {
    let seed = seed();
    let mut rec = Recorder::new(CpuBackend::new());
    let mut rng = Rng::new(seed ^ fxhash(name));
    build(&mut rec, &mut rng);

    let dir = std::env::temp_dir().join(format!(
        "gpuarrays-numpy-{name}-{}-{}",
        std::process::id(),
        seed
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    rec.write(&dir, seed).expect("write cases");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/numpy_crosscheck.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("run the NumPy checker");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed ({}), cases in {}:\n{stderr}",
        script.display(),
        out.status,
        dir.display()
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "checker output is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let failures = report["failures"].as_array().expect("failures list");
    let checked = report["cases"].as_u64().expect("case count");
    eprintln!(
        "numpy cross-check '{name}' (seed {seed}): {checked} cases, {} results compared, \
         {} rejections as documented, {} mutations detected, {} failures",
        report["compared"],
        report["rejected"],
        report["mutations_detected"],
        failures.len()
    );
    let keep = std::env::var("GPUARRAYS_CROSSCHECK_KEEP").as_deref() == Ok("1");
    if failures.is_empty() && !keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let shown: Vec<String> = failures
        .iter()
        .take(25)
        .map(|f| serde_json::to_string(f).unwrap_or_default())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {checked} cases disagree with NumPy (seed {seed}; cases kept in {}):\n{}",
        failures.len(),
        dir.display(),
        shown.join("\n")
    );
    assert_eq!(
        checked,
        rec.case_count() as u64,
        "the checker saw a different number of cases"
    );
}

/// A stable hash of a test name, so each test draws its own inputs from one seed.
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn out(r: Result<RawArray<B>>) -> Result<Out> {
    r.and_then(|r| Out::raw(&r))
}

fn ex(i: &In) -> Expr<B> {
    Expr::array(&i.raw)
}

/// The checks: (test name, case family, generator).
type Check = (&'static str, &'static str, fn(&mut Recorder, &mut Rng));

const CHECKS: [Check; 13] = [
    ("ffts_agree_with_numpy", "fft", fft::build),
    (
        "elementwise_ops_agree_with_numpy",
        "elementwise",
        elementwise::build,
    ),
    (
        "casts_between_all_types_agree_with_numpy",
        "casts",
        elementwise::build_casts,
    ),
    (
        "reductions_agree_with_numpy",
        "reductions",
        reductions::build,
    ),
    (
        "scans_sorts_finds_agree_with_numpy",
        "axis_ops",
        axis_ops::build,
    ),
    (
        "matmul_arange_random_agree_with_numpy",
        "matmul_arange_random",
        matmul_arange_random::build,
    ),
    (
        "linspace_eye_tri_meshgrid_agree_with_numpy",
        "creation",
        creation::build,
    ),
    (
        "strided_views_agree_with_numpy_indexing",
        "slicing",
        slicing::build,
    ),
    (
        "concatenate_stack_split_tile_repeat_pad_agree_with_numpy",
        "joining",
        joining::build,
    ),
    (
        "gathers_scatters_masks_agree_with_numpy",
        "indexing",
        indexing::build,
    ),
    (
        "statistics_and_vector_ops_agree_with_numpy",
        "statistics",
        statistics::build,
    ),
    ("einsum_agrees_with_numpy", "einsum", einsum::build),
    (
        "argsort_topk_unique_searchsorted_agree_with_numpy",
        "ordering",
        ordering::build,
    ),
];

/// Runs the checks as tests; without NumPy they are ignored (with the reason printed), or
/// fail when `GPUARRAYS_REQUIRE_NUMPY=1`.
fn main() -> std::process::ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    let python = python_with_numpy();
    let required = std::env::var("GPUARRAYS_REQUIRE_NUMPY").as_deref() == Ok("1");
    if let Err(reason) = &python {
        if required {
            eprintln!("{reason}, and GPUARRAYS_REQUIRE_NUMPY=1: every check fails");
        } else {
            eprintln!("IGNORED numpy cross-check: {reason}");
        }
    }
    let trials = CHECKS
        .iter()
        .map(|&(test, family, build)| {
            let ignored = python.is_err() && !required;
            let python = python.clone();
            libtest_mimic::Trial::test(test, move || match python {
                Ok(py) => {
                    crosscheck(&py, family, build);
                    Ok(())
                }
                Err(reason) => Err(format!("{reason}, and GPUARRAYS_REQUIRE_NUMPY=1").into()),
            })
            .with_ignored_flag(ignored)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
