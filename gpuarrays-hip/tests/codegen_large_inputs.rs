//! The sort, search, scan, permute, random and reduction kernels on a GPU at the sizes of the
//! benchmarks (`benches/hip_kernels.rs`), against the CPU reference: every algorithm each
//! operation can choose (bitonic, one block per row, onesweep; look-back, 3-pass and one-pass-per-row scans),
//! non-powers of two, rows, NaNs and signed zeros, every ordered type, unaligned views, and the
//! same bits on a second run. The logic is also checked on the CPU emulation in
//! `codegen_emulated`, at small sizes.
//!
//! Without a GPU every test prints why and passes; with `GPUARRAYS_REQUIRE_GPU=1` a missing
//! GPU fails instead.

mod kernel_checks;

use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::sort::SortAlgorithm;

fn gpu() -> Option<HipBackend> {
    match HipBackend::new(0) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_GPU=1 but the HIP backend is unavailable: {e}"
            );
            eprintln!("skipped: no HIP device ({e})");
            None
        }
    }
}

#[test]
fn large_sorts_match_cpu() {
    let Some(hip) = gpu() else { return };
    let t = std::time::Instant::now();
    kernel_checks::sorts(
        &hip,
        SortAlgorithm::Auto,
        &[
            &[3_000_017],
            &[1 << 24],
            &[8192, 8192],
            &[1000, 5000],
            &[3, 1_000_003],
            &[4096, 1000],
        ],
    );
    kernel_checks::sorts(&hip, SortAlgorithm::Rows, &[&[700, 4096], &[5000, 77]]);
    kernel_checks::sorts(&hip, SortAlgorithm::Onesweep, &[&[1_000_003], &[40, 3001]]);
    kernel_checks::sorts(&hip, SortAlgorithm::Bitonic, &[&[1_000_003], &[512, 2048]]);
    kernel_checks::sorts(
        &hip,
        SortAlgorithm::Register,
        &[
            &[1 << 16, 1024],
            &[32_771, 2048],
            &[100_003, 129],
            &[1 << 20, 3],
        ],
    );
    eprintln!("large sorts: {:.1} s", t.elapsed().as_secs_f64());
}

/// Argsorts of long rows (onesweep) and of rows one block sorts, the position digits skipped.
#[test]
fn large_argsorts_match_cpu() {
    let Some(hip) = gpu() else { return };
    kernel_checks::argsorts::argsorts(&hip, SortAlgorithm::Auto, &[&[(1 << 22) + 3], &[300, 3001]]);
    kernel_checks::argsorts::argsorts(&hip, SortAlgorithm::Rows, &[&[700, 4096]]);
}

/// The register sort on every row length it takes (f32), every ordered type on a spread of
/// lengths, against the CPU reference and the bitonic tile's bits.
#[test]
fn register_sort_of_every_short_length() {
    let Some(hip) = gpu() else { return };
    let t = std::time::Instant::now();
    let all: Vec<usize> = (1..=2048).collect();
    kernel_checks::short_rows::short_rows(
        &hip,
        &all,
        &[
            2, 3, 7, 64, 100, 255, 256, 257, 1000, 1024, 1025, 2047, 2048,
        ],
    );
    eprintln!("short rows: {:.1} s", t.elapsed().as_secs_f64());
}

#[test]
fn large_scans_match_cpu() {
    let Some(hip) = gpu() else { return };
    let t = std::time::Instant::now();
    kernel_checks::scans::scans(
        &hip,
        &[
            &[1 << 26],
            &[(1 << 24) + 12_345],
            &[8192, 8192],
            &[3, 1_000_003],
            // Rows enough for one pass per row (the automatic choice), of an odd length:
            // no 16-byte loads, a partial last tile.
            &[2500, 4097],
        ],
    );
    // Halves: one long row (tile totals scanned recursively in f32), rows enough for one
    // pass per row, split columns.
    kernel_checks::scans::half_scans(
        &hip,
        &[(&[1 << 24], 0), (&[2500, 4097], 1), (&[100_000, 7], 0)],
    );
    eprintln!("large scans: {:.1} s", t.elapsed().as_secs_f64());
}

#[test]
fn large_permutes_match_cpu() {
    let Some(hip) = gpu() else { return };
    kernel_checks::permutes(
        &hip,
        &[
            (&[256, 512, 512], &[2, 1, 0]),
            (&[8192, 8192], &[1, 0]),
            (&[1000, 999], &[1, 0]),
            (&[64, 300, 500], &[0, 2, 1]),
            (&[30, 200, 300], &[1, 2, 0]),
            (&[8, 16, 100, 120], &[3, 2, 1, 0]),
            // The suite's permutedims/4d (output [40, 25, 64, 8]: 8 × 128 tiles) and short
            // input-contiguous axes (128 × 8 and 64 × 16 tiles).
            (&[25, 40, 8, 64], &[1, 0, 3, 2]),
            (&[300, 8, 5000], &[0, 2, 1]),
            (&[9, 70000], &[1, 0]),
            // A batch of 70,000 tiles: one grid dimension over the tiles (over 65,535).
            (&[70_000, 16, 8], &[0, 2, 1]),
        ],
    );
}

#[test]
fn large_draws_match_cpu() {
    let Some(hip) = gpu() else { return };
    kernel_checks::draws(&hip, &[1 << 26, 1_000_003, 5]);
}

#[test]
fn large_reductions_match_cpu() {
    let Some(hip) = gpu() else { return };
    kernel_checks::reductions(&hip, 1 << 26, 8192, &[8192, 1001]);
}

/// Searches in the benchmark's table of 65,536 keys and in tables of 2^22 + 3 keys (long
/// global-memory bisections after the shared sample), 2^20 + 7 values each.
#[test]
fn large_searches_match_cpu() {
    let Some(hip) = gpu() else {
        return;
    };
    kernel_checks::search::searches(&hip, &[1 << 16, (1 << 22) + 3], (1 << 20) + 7);
    kernel_checks::search::unsorted_in_range(&hip, (1 << 20) + 1, 1 << 16);
}
