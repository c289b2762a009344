//! The FFT rows of the suite: the CPU reference against the direct-DFT oracle, and the
//! oracle's own error rules (every error case of the rows fails with the same kind on the
//! CPU reference, which `run_cpu_against_oracle` checks row by row).

use gpuarrays_conformance::{SuiteConfig, run_cpu_against_oracle};

#[test]
fn cpu_reference_ffts_match_the_direct_dft() {
    let report = run_cpu_against_oracle(&SuiteConfig::quick().with_filter("fft"));
    assert!(
        report.ok(),
        "{}{}",
        report.failure_details(),
        report.summary()
    );
    // The filter also selects fftshift/ifftshift (every element type moves): 2 × 15 rows.
    let shifts = report
        .rows
        .iter()
        .filter(|r| r.op.ends_with("shift"))
        .count();
    assert_eq!(shifts, 30, "{}", report.summary());
    // 10 functions × 15 element types; f32, f64, c32 and c64 compute, except complex input
    // to rfft and rfftn (f16 and bf16 are refused: there is no complex half type).
    assert_eq!(report.rows.len() - shifts, 150, "{}", report.summary());
    let computed = report
        .rows
        .iter()
        .filter(|r| !r.op.ends_with("shift") && r.status.starts_with("ok"))
        .count();
    assert_eq!(computed, 40 - 4, "{}", report.summary());
    let worst = report.rows.iter().map(|r| r.max_err).fold(0.0f64, f64::max);
    println!("largest FFT error: {worst:.3} ε-units");
}

/// The large 1-D rows (2^14 points, the prime 12289 through Bluestein's algorithm, long
/// strided batches), which the quick suite leaves out.
#[test]
fn large_one_dimensional_transforms_match_the_direct_dft() {
    let cfg = SuiteConfig {
        quick: false,
        ..SuiteConfig::quick()
    }
    .with_filter("fft/f");
    let report = run_cpu_against_oracle(&cfg);
    assert!(
        report.ok(),
        "{}{}",
        report.failure_details(),
        report.summary()
    );
    // fft, ifft, rfft and irfft of f16 (refused), f32 and f64.
    assert_eq!(report.rows.len(), 12, "{}", report.summary());
}
