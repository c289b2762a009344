//! The wgpu backend against the CPU reference: the whole conformance suite, once with
//! every feature the adapter offers and once restricted to the WebGPU baseline (no f64, no
//! 64-bit integers), where every 64-bit row must read "unsupported (reported)".
//!
//! Without an adapter every test prints why and passes; with `GPUARRAYS_REQUIRE_WGPU=1`
//! (set by `.ci/run`, which installs Mesa's lavapipe) a missing adapter fails instead.
//! A third run caps storage bindings at 16 KiB, so every splitting path runs on small arrays.
//! `GPUARRAYS_CONFORMANCE_QUICK=0` runs the full-size suite (2^20-element shapes);
//! `GPUARRAYS_CONFORMANCE_FILTER=text` runs only rows whose "op/dtype" contains `text`.

mod common;

use gpuarrays_conformance::{SuiteConfig, SuiteReport};
use gpuarrays_core::{Backend, DType};
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

fn open(profile: Profile) -> Option<WgpuBackend> {
    open_with(profile, None)
}

fn open_with(profile: Profile, binding_limit: Option<u64>) -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions {
        adapter: None,
        profile,
        binding_limit,
        ..WgpuOptions::default()
    })
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

/// The failures of `report`, and every refusal at dispatch that is not an FFT refusal of a
/// length that really is not a power of two (a row may not be refused in every case).
/// Nothing else is refused: `sin`, `cos`, `pow` and normal draws are computed in software
/// (`wgsl::trig`, `wgsl::pow`), and on the baseline 64-bit rows pass by being reported
/// unsupported.
fn unexpected_failures(report: &SuiteReport) -> Vec<String> {
    assert!(!report.rows.is_empty(), "the suite ran no rows");
    let mut unexpected = Vec::new();
    for row in &report.rows {
        unexpected.extend(row.failures.iter().cloned());
        if row.refusals.is_empty() {
            continue;
        }
        if !fft_row(&row.op, row.dtype) {
            unexpected.extend(row.refusals.iter().map(|r| format!("refused: {r}")));
            continue;
        }
        assert!(
            row.refusals.len() < row.cases,
            "{}/{}: every case refused",
            row.op,
            row.dtype
        );
        for r in &row.refusals {
            match refused_fft_length(r) {
                Some(n) if !n.is_power_of_two() => {}
                _ => unexpected.push(format!("refused: {r}")),
            }
        }
    }
    unexpected
}

/// Every row passes but the FFT refusals above.
fn check(report: &SuiteReport) {
    let unexpected = unexpected_failures(report);
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
    let flush = b.device().flushes_subnormals;
    println!("flushes subnormals to zero: {flush}");
    let report = run(&b);
    check(&report);
    // Rows are compared under the FTZ rule only for precisions the device declares.
    for row in &report.rows {
        let noted = row.status.contains(gpuarrays_conformance::ftz::FTZ_NOTE);
        assert_eq!(
            noted,
            gpuarrays_conformance::ftz::affects(flush, row.dtype, &row.op),
            "{}: {}",
            row.key(),
            row.status
        );
    }
}

/// The suite on a device declared to flush subnormals (`assume_ftz`; on lavapipe, which
/// keeps them, this exercises the suite's FTZ handling): the f32 and c32 rows get no
/// subnormal inputs, compare under the FTZ rule, pass, and say so.
#[test]
fn conformance_on_a_device_declared_to_flush_subnormals() {
    let Some(b) = common::open_or_skip(&WgpuOptions {
        assume_ftz: true,
        ..WgpuOptions::default()
    }) else {
        return;
    };
    assert!(b.device().flushes_subnormals.f32);
    let mut report = gpuarrays_conformance::run(&b, &config().with_filter("/f32"));
    report.extend(gpuarrays_conformance::run(
        &b,
        &config().with_filter("/c32"),
    ));
    println!("{}", report.table());
    println!("{}", report.summary());
    check(&report);
    for row in &report.rows {
        assert!(
            row.status.contains(gpuarrays_conformance::ftz::FTZ_NOTE),
            "{}: {}",
            row.key(),
            row.status
        );
    }
    assert!(report.summary().contains("flushes subnormals"));
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

/// The suite with storage bindings capped at 16 KiB: every kernel must split operands
/// larger than one binding (windows, group ranges, chunks) and still agree with the CPU.
#[test]
fn conformance_with_16_kib_bindings_splits_every_kernel() {
    let Some(b) = open_with(Profile::Adapter, Some(16 << 10)) else {
        return;
    };
    assert_eq!(b.limits().max_storage_buffer_binding_size, 16 << 10);
    let report = run(&b);
    // The one documented refusal (README, "Limits"): a reduction or scan whose extent after
    // the axis does not fit the binding share one group needs, or a matrix product whose
    // rows of the right operand do not fit half a binding. With 16 KiB bindings the
    // every-pair rows (`[2, n²]` along axis 0) and the products with 70,000 columns hit
    // it; the error must say so truthfully.
    let mut refused = 0;
    let failures: Vec<String> = unexpected_failures(&report)
        .into_iter()
        .filter(|f| match documented_inner_limit(f) {
            Some((needs, allows)) => {
                assert!(needs > allows, "a refusal below its limit: {f}");
                refused += 1;
                false
            }
            None => true,
        })
        .collect();
    println!("{refused} cases refused with the documented inner-extent limit");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `(needs, allows)` in bytes if `failure` is the documented `LimitExceeded` of a reduction
/// or scan whose extent after the axis exceeds its share of a binding, or of a matrix
/// product whose rows do.
fn documented_inner_limit(failure: &str) -> Option<(u64, u64)> {
    let kinds = ["wgpu: a reduction whose ", "wgpu: a scan with "];
    let inner = kinds.iter().any(|k| failure.contains(k)) && failure.contains("after the");
    let rows = failure.contains("wgpu: a matrix product with rows of ");
    if !(inner || rows) || !failure.contains("(max_storage_buffer_binding_size") {
        return None;
    }
    let number_after = |key: &str| -> Option<u64> {
        let rest = &failure[failure.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    Some((number_after(" needs ")?, number_after(" allows at most ")?))
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
