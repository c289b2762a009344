//! The wgpu backend against the CPU reference: the whole conformance suite, once with
//! every feature the adapter offers and once restricted to the WebGPU baseline (no f64, no
//! 64-bit integers), where every 64-bit row must read "unsupported (reported)".
//!
//! Without an adapter every test prints why and passes; with `GPUARRAYS_REQUIRE_WGPU=1`
//! (set by `.ci/run`, which installs Mesa's lavapipe) a missing adapter fails instead.
//! `GPUARRAYS_CONFORMANCE_QUICK=0` runs the full-size suite (2^20-element shapes);
//! `GPUARRAYS_CONFORMANCE_FILTER=text` runs only rows whose "op/dtype" contains `text`.

use gpuarrays_conformance::{SuiteConfig, SuiteReport};
use gpuarrays_core::{Backend, DType};
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

fn open(profile: Profile) -> Option<WgpuBackend> {
    match WgpuBackend::with_options(&WgpuOptions {
        adapter: None,
        profile,
    }) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_WGPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter opened: {e}"
            );
            eprintln!("skipped: no wgpu adapter ({e})");
            None
        }
    }
}

fn config() -> SuiteConfig {
    let quick = std::env::var("GPUARRAYS_CONFORMANCE_QUICK").map_or(true, |v| v != "0");
    let cfg = SuiteConfig {
        quick,
        ..SuiteConfig::default()
    };
    match std::env::var("GPUARRAYS_CONFORMANCE_FILTER") {
        Ok(f) if !f.is_empty() => cfg.with_filter(f),
        _ => cfg,
    }
}

/// Rows the backend refuses at dispatch (see `capability.rs`): they must fail, and only by
/// returning the refusal, never a number.
fn refused(op: &str, dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::F64) && matches!(op, "sin" | "cos" | "pow")
        || (op == "random_normal" && dtype == DType::F64)
}

const REFUSAL: &str = "is not computed by the wgpu backend yet";

/// FFT rows in single precision: cases whose lengths are not all powers of two are refused
/// at dispatch (`Error::Unsupported` naming the length); the power-of-two cases compute.
fn fft_row(op: &str, dtype: DType) -> bool {
    op.contains("fft") && matches!(dtype, DType::F32 | DType::C32)
}

/// The length a refusal names ("FFT length 12 is not a power of two"), if it is one.
fn refused_fft_length(failure: &str) -> Option<usize> {
    let rest = failure.split("FFT length ").nth(1)?;
    let (n, tail) = rest.split_once(' ')?;
    tail.starts_with("is not a power of two")
        .then(|| n.parse().ok())?
}

/// Every row passes except the refused ones, which fail only with the refusal.
fn check(report: &SuiteReport) {
    assert!(!report.rows.is_empty(), "the suite ran no rows");
    let mut unexpected = Vec::new();
    for row in &report.rows {
        let expected_refusal =
            refused(&row.op, row.dtype) && !row.status.starts_with("unsupported");
        if expected_refusal {
            assert!(
                !row.ok,
                "{}/{} is listed as refused but passed: update `refused`",
                row.op, row.dtype
            );
            for f in &row.failures {
                assert!(
                    f.contains(REFUSAL),
                    "{}/{} failed other than by refusal: {f}",
                    row.op,
                    row.dtype
                );
            }
        } else if fft_row(&row.op, row.dtype) && !row.ok {
            // Only refusals of lengths that really are not powers of two, and not every case.
            assert!(
                row.failures.len() < row.cases,
                "{}/{}: every case failed",
                row.op,
                row.dtype
            );
            for f in &row.failures {
                match refused_fft_length(f) {
                    Some(n) if !n.is_power_of_two() => {}
                    _ => unexpected.push(f.clone()),
                }
            }
        } else if !row.ok {
            unexpected.extend(row.failures.iter().cloned());
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

fn run(backend: &WgpuBackend) -> SuiteReport {
    let started = std::time::Instant::now();
    let report = gpuarrays_conformance::run(backend, &config());
    println!("{}", report.table());
    println!("{}", report.summary());
    let stats = backend.pipeline_stats();
    println!(
        "adapter '{}': {} rows in {:.1} s; pipelines compiled {}",
        backend.device().name,
        report.rows.len(),
        started.elapsed().as_secs_f64(),
        stats.created
    );
    report
}

#[test]
fn conformance_with_adapter_features() {
    let Some(b) = open(Profile::Adapter) else {
        return;
    };
    println!("{}", b.adapter());
    let report = run(&b);
    check(&report);
}

#[test]
fn conformance_on_the_webgpu_baseline_reports_64_bit_types() {
    let Some(b) = open(Profile::Baseline) else {
        return;
    };
    assert!(!b.features().f64 && !b.features().int64);
    let report = run(&b);
    check(&report);
    // Every row of a 64-bit float type must have been refused with Error::Unsupported.
    for row in &report.rows {
        if row.dtype.is_64bit() && !row.status.starts_with("rejected") {
            assert!(
                row.status.starts_with("unsupported"),
                "{}/{} on the baseline: {}",
                row.op,
                row.dtype,
                row.status
            );
        }
    }
}

/// The FFT rows against the suite's direct O(n²) DFT oracle instead of the CPU reference:
/// the power-of-two cases must be within the oracle's tolerances, the others refused.
#[test]
fn fft_rows_against_the_dft_oracle() {
    let Some(b) = open(Profile::Adapter) else {
        return;
    };
    let cfg = config().with_filter("fft");
    let report = gpuarrays_conformance::run_against_oracle(&b, &cfg);
    println!("{}", report.table());
    println!("{}", report.summary());
    check(&report);
}
