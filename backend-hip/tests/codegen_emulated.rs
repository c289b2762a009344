//! The generated kernels run for real on the CPU, through the backend's own host code, on the
//! emulated platform of `emulator/` — compared with the CPU reference backend. This is how the
//! kernels' logic (ranks, look-backs, tiles, index arithmetic) is tested where there is no GPU;
//! the same comparisons run on the GPU in `conformance_hip` and `validate`.
//!
//! Skipped (with a printed reason) when `g++` is missing. Sizes are small (the emulator runs
//! the threads of a block as fibers) but chosen to reach every path: several tiles, partial
//! last tiles, rows that do and do not fit one block, NaNs and signed zeros.

mod emulator;

use gpuarrays_core::{Array, Element};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::sort::{self, SortAlgorithm};
use parking_lot::Mutex;

/// Tests that change process-wide kernel choices run one at a time.
static CHOICE: Mutex<()> = Mutex::new(());

/// SplitMix64 words.
fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// f32 values with repeats, both zeros, infinities and NaNs.
fn f32_values(n: usize, seed: u64) -> Vec<f32> {
    words(n, seed)
        .into_iter()
        .map(|w| match w % 16 {
            0 => f32::NAN,
            1 => -0.0,
            2 => 0.0,
            3 => f32::INFINITY,
            4 => f32::NEG_INFINITY,
            5 => ((w >> 8) % 7) as f32 - 3.0,
            _ => f32::from_bits((w >> 20) as u32 & 0xBFFF_FFFF) * if w & 1 == 0 { 1.0 } else { -1.0 },
        })
        .collect()
}

fn f64_values(n: usize, seed: u64) -> Vec<f64> {
    words(n, seed)
        .into_iter()
        .map(|w| match w % 16 {
            0 => f64::NAN,
            1 => -0.0,
            2 => 0.0,
            3 => f64::NEG_INFINITY,
            4 => ((w >> 8) % 5) as f64,
            _ => (((w >> 11) as f64) / (1u64 << 53) as f64 - 0.5) * 1e6,
        })
        .collect()
}

/// Equal, with every NaN equal to every NaN and -0.0 equal to 0.0 (the sort's contract for
/// floats; the reference's stable sort keeps the zeros' input order).
fn same<T: Element>(a: &T, b: &T) -> bool {
    #[allow(clippy::eq_op)]
    let nan = |x: &T| x != x;
    a == b || (nan(a) && nan(b))
}

fn check_sort<T: Element>(hip: &HipBackend, what: &str, dims: &[usize], data: &[T]) {
    let cpu = CpuBackend::new();
    let want = Array::from_slice(&cpu, dims, data)
        .and_then(|a| a.sort())
        .and_then(|a| a.to_vec())
        .expect("cpu sort");
    let got = Array::from_slice(hip, dims, data)
        .and_then(|a| a.sort())
        .and_then(|a| a.to_vec())
        .unwrap_or_else(|e| panic!("{what}: emulated sort failed: {e}"));
    assert_eq!(got.len(), want.len());
    if let Some(i) = (0..got.len()).find(|&i| !same(&got[i], &want[i])) {
        panic!(
            "{what} {dims:?} {}: first difference at {i}: got {:?}, want {:?}",
            T::DTYPE,
            &got[i.saturating_sub(2)..(i + 3).min(got.len())],
            &want[i.saturating_sub(2)..(i + 3).min(want.len())]
        );
    }
}

#[test]
fn sort_matches_cpu_on_every_path() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let _one = CHOICE.lock();
    // (algorithm, shapes): onesweep with several tiles (4096 keys each) and a partial last
    // tile, per row; one block per row below and at its limit; the bitonic network.
    let cases: [(SortAlgorithm, &[&[usize]]); 4] = [
        (SortAlgorithm::Onesweep, &[&[9000], &[3, 4100], &[5, 7], &[1, 2]]),
        (SortAlgorithm::Rows, &[&[8192], &[3, 5000], &[4, 33]]),
        (SortAlgorithm::Auto, &[&[2, 1000], &[3000]]),
        (SortAlgorithm::Bitonic, &[&[2, 700]]),
    ];
    for (alg, shapes) in cases {
        sort::set_algorithm(Some(alg));
        for (k, dims) in shapes.iter().enumerate() {
            let n: usize = dims.iter().product();
            let what = format!("{alg:?}");
            let seed = 10 + k as u64;
            check_sort(&hip, &what, dims, &f32_values(n, seed));
            if k == 0 {
                check_sort(&hip, &what, dims, &f64_values(n, seed));
                let w = words(n, seed);
                check_sort(&hip, &what, dims, &w.iter().map(|&x| x as i32 % 1000).collect::<Vec<_>>());
                check_sort(&hip, &what, dims, &w.iter().map(|&x| x as u32).collect::<Vec<_>>());
                check_sort(&hip, &what, dims, &w.iter().map(|&x| x as i64).collect::<Vec<_>>());
                check_sort(&hip, &what, dims, &w.iter().map(|&x| x >> 3).collect::<Vec<u64>>());
                check_sort(&hip, &what, dims, &w.iter().map(|&x| (x >> 5) as u8).collect::<Vec<_>>());
                check_sort(&hip, &what, dims, &w.iter().map(|&x| x & 3 == 0).collect::<Vec<_>>());
            }
        }
    }
    // Already sorted and reversed input (every key of a tile in one digit, long runs).
    sort::set_algorithm(Some(SortAlgorithm::Onesweep));
    let up: Vec<i32> = (0..9000).collect();
    check_sort(&hip, "sorted", &[9000], &up);
    let down: Vec<i32> = (0..9000).rev().collect();
    check_sort(&hip, "reversed", &[9000], &down);
    check_sort(&hip, "constant", &[9000], &vec![7.5f32; 9000]);
    sort::set_algorithm(None);
}
