//! FFTs on a real GPU (cuFFT on NVIDIA, rocFFT on AMD): every FFT row of the conformance suite,
//! large cases included, against the CPU reference (rustfft), and the plan cache's books after
//! it (no plan lost, none destroyed on another device).
//!
//! Without a GPU the test prints why and passes; with `GPUARRAYS_REQUIRE_GPU=1` (set by
//! `.gpu/env.sh` on the GPU machine) a missing GPU fails instead.

use gpuarrays_conformance::SuiteConfig;
use gpuarrays_hip::HipBackend;

#[test]
fn every_fft_row_matches_the_cpu_reference() {
    let hip = match HipBackend::new(0) {
        Ok(b) => b,
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "GPUARRAYS_REQUIRE_GPU=1 but no HIP device: {e}");
            eprintln!("skipped: no HIP device ({e})");
            return;
        }
    };
    let cfg = SuiteConfig {
        quick: false,
        ..SuiteConfig::quick()
    }
    .with_filter("fft");
    let started = std::time::Instant::now();
    let report = gpuarrays_conformance::run(&hip, &cfg);
    println!("{}", report.summary());
    let worst = report.rows.iter().map(|r| r.max_err).fold(0.0f64, f64::max);
    println!(
        "FFT rows: {} in {:.1} s, largest error {worst:.3} ε-units; plan cache {:?}",
        report.rows.len(),
        started.elapsed().as_secs_f64(),
        hip.fft_state().plan_cache().stats()
    );
    assert!(
        report.ok(),
        "{}{}",
        report.failure_details(),
        report.summary()
    );
    // The filter also selects fftshift/ifftshift: 2 × 10 element types, besides the
    // 10 FFT functions × 10 element types.
    let shifts = report
        .rows
        .iter()
        .filter(|r| r.op.ends_with("shift"))
        .count();
    assert_eq!(shifts, 20, "{}", report.summary());
    assert_eq!(report.rows.len() - shifts, 100, "{}", report.summary());
    let s = hip.fft_state().plan_cache().stats();
    assert_eq!(s.checked_out, 0, "{s:?}");
    assert_eq!(s.destroy_panics, 0, "{s:?}");
    hip.fft_state().plan_cache().clear();
    assert_eq!(hip.fft_state().plan_cache().stats().live, 0);
}
