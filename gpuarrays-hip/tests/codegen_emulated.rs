//! The generated kernels run for real on the CPU, through the backend's own host code, on the
//! emulated platform of `emulator/` — compared with the CPU reference backend. This is how the
//! kernels' logic (ranks, look-backs, tiles, index arithmetic) is tested where there is no GPU;
//! `codegen_large_inputs` runs the same checks at the benchmark sizes on a GPU.
//!
//! Skipped (with a printed reason) when `g++` is missing. Sizes are small (the emulator runs
//! the threads of a block as fibers) but chosen to reach every path: several tiles, partial
//! last tiles, rows that do and do not fit one block, NaNs and signed zeros.

mod emulator;
mod kernel_checks;

use gpuarrays_core::kernel::{BinaryOp, Distribution};
use gpuarrays_core::{Array, Backend, DType, Expr};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::kernels::reduce::{ArgReduce, ColReduce};
use gpuarrays_hip::kernels::sort::SortAlgorithm;

#[test]
fn sort_matches_cpu_on_every_path() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // Onesweep with several tiles (4096 keys each) and a partial last tile, per row; one block
    // per row below and at its limit; the bitonic network.
    kernel_checks::sorts(
        &hip,
        SortAlgorithm::Onesweep,
        &[&[9000], &[3, 4100], &[5, 7], &[1, 2]],
    );
    kernel_checks::sorts(&hip, SortAlgorithm::Rows, &[&[8192], &[3, 5000], &[4, 33]]);
    kernel_checks::sorts(&hip, SortAlgorithm::Auto, &[&[2, 1000], &[3000]]);
    kernel_checks::sorts(&hip, SortAlgorithm::Bitonic, &[&[2, 700]]);
}

/// Argsort's packed words through every path, the radix sorts skipping the position digits.
#[test]
fn argsort_matches_cpu_on_every_path() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    kernel_checks::argsorts::argsorts(&hip, SortAlgorithm::Onesweep, &[&[9000], &[3, 4100]]);
    kernel_checks::argsorts::argsorts(&hip, SortAlgorithm::Rows, &[&[3000], &[4, 33]]);
    kernel_checks::argsorts::argsorts(&hip, SortAlgorithm::Auto, &[&[2, 1000], &[5]]);
}

/// Lengths that reach every stage count of the register sort, powers of two and their
/// neighbours (padding), with a full and a partial block of rows each.
const SHORT_ROW_LENGTHS: &[usize] = &[
    1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300,
    511, 512, 513, 700, 1000, 1023, 1024, 1025, 1500, 2047, 2048,
];

#[test]
fn register_sort_of_short_rows_matches_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    kernel_checks::short_rows::short_rows(&hip, SHORT_ROW_LENGTHS, &[2, 9, 257, 2048]);
    // The automatic choice takes it for these rows (and the onesweep sort beyond).
    kernel_checks::sorts(
        &hip,
        SortAlgorithm::Auto,
        &[&[5, 2048], &[19, 129], &[2, 3000]],
    );
}

/// The register sort in 64-lane warps (AMD's wavefronts): the shuffles' partners stay inside
/// the warp, and the same results come back.
#[test]
fn register_sort_is_right_with_wavefronts_of_64() {
    let Some(hip) = emulator::backend_with_warp(64) else {
        return;
    };
    kernel_checks::short_rows::short_rows(&hip, &[2, 16, 33, 300, 512, 1025], &[100, 2048]);
}

#[test]
fn row_scans_match_cpu_on_both_paths() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // f32 tiles hold 4096 elements: 1, 2, 3 and 10 tiles (binary decompositions up to 1001b),
    // partial last tiles, several rows.
    kernel_checks::scans::scans(
        &hip,
        &[
            &[4096 * 9 + 77],
            &[3, 4096 * 2 + 5],
            &[2, 4096],
            &[5, 300],
            &[2, 4096 * 3 + 8],
        ],
    );
    // 16-byte aligned rows with a partial last tile (vector and element-wise paths in one
    // row), special values on every path.
    kernel_checks::scans::scan_special_values(&hip, &[3, 4096 * 3 + 12]);
}

#[test]
fn half_scans_keep_f32_totals_on_every_path() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // Half tiles hold 4096 elements: 1 and 5 tiles per row, partial last tiles, several rows;
    // columns split along a long axis (split totals in memory).
    kernel_checks::scans::half_scans(
        &hip,
        &[
            (&[4096 * 4 + 33], 0),
            (&[3, 4096 * 2 + 5], 1),
            (&[2, 300], 1),
            (&[9000, 3], 0),
        ],
    );
}

#[test]
fn permutes_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    kernel_checks::permutes(
        &hip,
        &[
            (&[37, 45], &[1, 0]),
            (&[64, 32], &[1, 0]),
            (&[3, 40, 50], &[2, 1, 0]),
            (&[3, 40, 50], &[0, 2, 1]),
            (&[9, 40, 50], &[1, 2, 0]),
            (&[40, 9, 50], &[2, 0, 1]),
            (&[3, 40, 50], &[1, 0, 2]),
            (&[2, 3, 20, 24], &[3, 1, 0, 2]),
            // Short sides take oblong tiles: the last output axis of 8 (8 × 128 tiles, a
            // partial one along a) and of 16 (16 × 64); a short axis a of 8 and of 12
            // (128 × 8, 64 × 16); an odd short side rounded up (17 → 32).
            (&[3, 5, 8, 40], &[1, 0, 3, 2]),
            (&[8, 150], &[1, 0]),
            (&[16, 33], &[1, 0]),
            (&[150, 8], &[1, 0]),
            (&[2, 40, 12], &[0, 2, 1]),
            (&[3, 17, 70], &[0, 2, 1]),
        ],
    );
    // A permute of a view that starts inside its buffer.
    let w: Vec<f32> = kernel_checks::words(4 * 40 * 50, 7)
        .iter()
        .map(|&x| x as f32)
        .collect();
    let got = Array::from_slice(&hip, &[4, 40, 50], &w)
        .and_then(|a| a.view(&[1..3, 0..40, 0..50]))
        .and_then(|v| v.permute(&[2, 1, 0]))
        .and_then(|t| t.to_vec())
        .expect("view permute");
    let want = Array::from_slice(&CpuBackend::new(), &[4, 40, 50], &w)
        .and_then(|a| a.view(&[1..3, 0..40, 0..50]))
        .and_then(|v| v.permute(&[2, 1, 0]))
        .and_then(|t| t.to_vec())
        .expect("cpu");
    assert_eq!(got, want);
}

#[test]
fn random_numbers_match_cpu_bit_for_bit() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // Lengths around the vector width (4 f32 or 2 f64 per thread) and a tail; 2051 and 5299
    // f32 fill one block of two vectors per thread and then part of a third block.
    kernel_checks::draws(&hip, &[1, 3, 4, 6, 1027, 2051, 5299]);
    // A 2-D draw: element i is row-major i.
    let cpu = CpuBackend::new();
    let got = Array::<f32, _>::random_uniform(&hip, &[7, 9], 3)
        .and_then(|a| a.to_vec())
        .expect("2-D");
    let want = Array::<f32, _>::random_uniform(&cpu, &[63], 3)
        .and_then(|a| a.to_vec())
        .expect("1-D");
    assert_eq!(got, want);
    // Normal pairs in vectors of other widths: f32 pairs in a kernel of f64 vectors (2
    // elements a step, half a Philox call), f64 pairs in a kernel of f32 vectors (4 elements
    // a step, two calls); lengths with a tail that splits a pair.
    for n in [1usize, 5, 8, 1031] {
        let (got, want) = (f32_normals_in_f64(&hip, n), f32_normals_in_f64(&cpu, n));
        let bad = got
            .iter()
            .zip(&want)
            .position(|(a, b)| (a - b).abs() > 1e-5 * (1.0 + b.abs()));
        assert!(
            bad.is_none(),
            "f32 normals in f64 vectors, n={n}: at {bad:?}"
        );
        let (got, want) = (f64_normals_in_f32(&hip, n), f64_normals_in_f32(&cpu, n));
        let bad = got
            .iter()
            .zip(&want)
            .position(|(a, b)| (a - b).abs() > 1e-6 * (1.0 + b.abs()));
        assert!(
            bad.is_none(),
            "f64 normals in f32 vectors, n={n}: at {bad:?}"
        );
    }
}

/// `f64(randn_f32) + 0.5` over `n` elements (an f64 input makes the kernel's vectors 2 wide).
fn f32_normals_in_f64<B: Backend>(b: &B, n: usize) -> Vec<f64> {
    let half = Array::<f64, _>::from_slice(b, &[n], &vec![0.5; n]).expect("input");
    Expr::random(b, &[n], DType::F32, Distribution::Normal, 9)
        .cast(DType::F64)
        .binary(BinaryOp::Add, &half)
        .eval::<f64>()
        .and_then(|a| a.to_vec())
        .expect("f32 normals")
}

/// `f32(randn_f64)` over `n` elements: the f32 output makes the kernel's vectors 4 wide.
fn f64_normals_in_f32<B: Backend>(b: &B, n: usize) -> Vec<f32> {
    Expr::random(b, &[n], DType::F64, Distribution::Normal, 9)
        .cast(DType::F32)
        .eval::<f32>()
        .and_then(|a| a.to_vec())
        .expect("f64 normals")
}

/// The grid-stride form of the elementwise kernel (taken when one launch cannot cover the
/// array: forced here by a grid limit of 2 blocks), against the CPU reference.
#[test]
fn elementwise_grid_stride_form_matches_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    gpuarrays_hip::kernels::elementwise::set_grid_limit(Some(2));
    kernel_checks::draws(&hip, &[1027, 5299]);
    let cpu = CpuBackend::new();
    let x: Vec<f32> = kernel_checks::f32_values(3001, 5);
    fn affine<B: Backend>(b: &B, v: &[f32]) -> Vec<f32> {
        let a = Array::from_slice(b, &[v.len()], v).expect("upload");
        let y = (a.ex() * 1.5f32 + 0.25f32).eval::<f32>().expect("eval");
        y.to_vec().expect("download")
    }
    let (got, want) = (affine(&hip, &x), affine(&cpu, &x));
    gpuarrays_hip::kernels::elementwise::set_grid_limit(None);
    kernel_checks::assert_same_bits(&got, &want, "x*1.5+0.25 in the loop form");
}

/// Tables searched in the shared-memory sample alone (up to 8192 u32 / 4096 u64 keys) and
/// through it: buckets of one chunk and of several (their heads bisected), partial last
/// buckets and chunks, an unaligned table read key by key, and an unsorted table.
#[test]
fn searches_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let lens = [1, 2, 7, 4096, 4097, 8192, 8193, 20_001, 70_001];
    kernel_checks::search::searches(&hip, &lens, 500);
    kernel_checks::search::unaligned_table(&hip, 70_001, 500);
    kernel_checks::search::unsorted_in_range(&hip, 30_001, 500);
}

#[test]
fn finds_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // Around the 16-byte vector of a thread and the 4096-byte tile, several tiles with a
    // partial last one.
    kernel_checks::finds(&hip, &[1, 15, 16, 17, 4096, 4096 * 2 + 33, 20_001]);
}

#[test]
fn split_reductions_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    // 70,001 elements: several blocks per row on the emulated device (2 multiprocessors), so
    // the partials are combined by the last block; columns of 37 (scalar) and 64 (vectors),
    // with both strided-axis kernels and both argmax kernels.
    let _one = kernel_checks::CHOICE.lock();
    for (cols, arg) in [
        (ColReduce::Slices, ArgReduce::PerThreadBest),
        (ColReduce::Threads, ArgReduce::PerElement),
    ] {
        hip.kernels().update_policy(|p| {
            p.col_reduce = cols;
            p.arg_reduce = arg;
        });
        kernel_checks::reductions(&hip, 70_001, 300, &[37, 64]);
    }
    hip.kernels().reset_policy();
}

/// The conformance suite's rows of sorts, scans and permutes (quick shapes, every type) on the
/// emulator. `GA_EMULATED_ROWS=all` adds draws, arg-reductions, axis sums and reversals (130
/// rows, about 10 minutes on two cores; they passed when this test was written);
/// `GA_EMULATED_ROWS=argmax/u8,sum_axis` runs the rows whose names contain those texts.
#[test]
fn conformance_rows_of_these_kernels_pass_on_the_emulator() {
    use gpuarrays_conformance::{SuiteConfig, SuiteReport};
    let Some(hip) = emulator::backend() else {
        return;
    };
    let rows = std::env::var("GA_EMULATED_ROWS").unwrap_or_default();
    let all = rows == "all";
    let chosen: Vec<&str> = rows.split(',').filter(|f| !f.is_empty()).collect();
    let filters: &[&str] = if !all && !chosen.is_empty() {
        &chosen
    } else if all {
        &[
            "sort",
            "cum",
            "permute",
            "transpose",
            "random",
            "arg",
            "sum_axis",
            "reverse",
        ]
    } else {
        &["sort", "cumsum", "permute"]
    };
    let mut report = SuiteReport::default();
    for &filter in filters {
        report.extend(gpuarrays_conformance::run(
            &hip,
            &SuiteConfig::quick().with_filter(filter),
        ));
    }
    assert!(
        report.ok() && !report.rows.is_empty(),
        "{}\n{}",
        report.summary(),
        report.failure_details()
    );
    eprintln!("{}", report.summary());
}
