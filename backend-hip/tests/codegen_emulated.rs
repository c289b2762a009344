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

/// Relative error bound for sums of `n` terms (the suite's min(n + 2, 4√n + 16) ε Σ|x|).
fn close(got: f64, want: f64, n: usize, abs_sum: f64, eps: f64) -> bool {
    let units = ((n + 2) as f64).min(4.0 * (n as f64).sqrt() + 16.0);
    (got - want).abs() <= units * eps * abs_sum.max(f64::MIN_POSITIVE)
}

#[test]
fn row_scans_match_cpu_on_both_paths() {
    use gpuarrays_hip::kernels::scan::{self, RowScan};
    let Some(hip) = emulator::backend() else {
        return;
    };
    let cpu = CpuBackend::new();
    let _one = CHOICE.lock();
    // f32 tiles hold 4096 elements: 1, 2, 3 and 9 tiles (binary decompositions up to 1000b),
    // partial last tiles, several rows.
    let shapes: [&[usize]; 4] = [&[4096 * 9 + 77], &[3, 4096 * 2 + 5], &[2, 4096], &[5, 300]];
    for mode in [RowScan::Lookback, RowScan::Multipass] {
        scan::set_row_scan(Some(mode));
        for (k, dims) in shapes.iter().enumerate() {
            let n: usize = dims.iter().product();
            let axis = dims.len() - 1;
            let w = words(n, 100 + k as u64);
            let xf: Vec<f32> = w.iter().map(|&x| (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5).collect();
            let got = Array::from_slice(&hip, dims, &xf).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec());
            let got = got.unwrap_or_else(|e| panic!("{mode:?} {dims:?}: {e}"));
            let want = Array::from_slice(&cpu, dims, &xf).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec()).expect("cpu");
            let len = dims[axis];
            for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                let row = i / len;
                let abs: f64 = xf[row * len..=i].iter().map(|v| v.abs() as f64).sum();
                assert!(
                    close(*g as f64, *r as f64, i % len + 1, abs, f32::EPSILON as f64),
                    "{mode:?} f32 {dims:?} at {i}: got {g}, want {r}"
                );
            }
            // Integers are exact; an odd offset makes the rows unaligned (no vector loads).
            let xi: Vec<i32> = w.iter().map(|&x| (x % 2001) as i32 - 1000).collect();
            let arr = Array::from_slice(&hip, &[n + 1], &[&[7], &xi[..]].concat()).expect("upload");
            let view = arr.slice(1..n + 1).and_then(|v| v.reshape(&dims.iter().map(|&d| d as isize).collect::<Vec<_>>())).expect("view");
            let got = view.cumsum(axis).and_then(|a| a.to_vec()).expect("i32 cumsum");
            let want = Array::from_slice(&cpu, dims, &xi).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec()).expect("cpu");
            assert_eq!(got, want, "{mode:?} i32 {dims:?} (unaligned)");
            let got = Array::from_slice(&hip, dims, &xi).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec()).expect("i32");
            assert_eq!(got, want, "{mode:?} i32 {dims:?}");
            if k == 0 {
                let xd: Vec<f64> = w.iter().map(|&x| ((x >> 11) as f64 / (1u64 << 53) as f64) + 0.5).collect();
                let got = Array::from_slice(&hip, dims, &xd).and_then(|a| a.cumprod(axis)).and_then(|a| a.to_vec()).expect("f64 cumprod");
                let want = Array::from_slice(&cpu, dims, &xd).and_then(|a| a.cumprod(axis)).and_then(|a| a.to_vec()).expect("cpu");
                for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                    let tol = 4.0 * ((i + 2) as f64) * f64::EPSILON * r.abs();
                    assert!((g - r).abs() <= tol.max(f64::MIN_POSITIVE), "{mode:?} f64 cumprod at {i}: {g} vs {r}");
                }
                let xu: Vec<u8> = w.iter().map(|&x| x as u8).collect();
                let got = Array::from_slice(&hip, dims, &xu).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec()).expect("u8");
                let want = Array::from_slice(&cpu, dims, &xu).and_then(|a| a.cumsum(axis)).and_then(|a| a.to_vec()).expect("cpu");
                assert_eq!(got, want, "{mode:?} u8 {dims:?}");
            }
        }
    }
    // The same input twice gives the same bits (the carries do not depend on timing).
    scan::set_row_scan(Some(RowScan::Lookback));
    let xf: Vec<f32> = words(4096 * 7, 5).iter().map(|&x| (x >> 40) as f32 / 1e5).collect();
    let a = Array::from_slice(&hip, &[xf.len()], &xf).expect("upload");
    let first = a.cumsum(0).and_then(|c| c.to_vec()).expect("cumsum");
    let second = a.cumsum(0).and_then(|c| c.to_vec()).expect("cumsum");
    assert!(first.iter().zip(&second).all(|(x, y)| x.to_bits() == y.to_bits()));
    scan::set_row_scan(None);
}

fn check_permute<T: Element>(hip: &HipBackend, dims: &[usize], axes: &[usize], data: &[T]) {
    let cpu = CpuBackend::new();
    let want = Array::from_slice(&cpu, dims, data)
        .and_then(|a| a.permute(axes))
        .and_then(|a| a.to_vec())
        .expect("cpu permute");
    let got = Array::from_slice(hip, dims, data)
        .and_then(|a| a.permute(axes))
        .and_then(|a| a.to_vec())
        .unwrap_or_else(|e| panic!("permute {dims:?} {axes:?}: {e}"));
    assert_eq!(got, want, "permute {dims:?} by {axes:?} ({})", T::DTYPE);
}

#[test]
fn permutes_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let cases: [(&[usize], &[usize]); 8] = [
        (&[37, 45], &[1, 0]),
        (&[64, 32], &[1, 0]),
        (&[3, 40, 50], &[2, 1, 0]),
        (&[3, 40, 50], &[0, 2, 1]),
        (&[9, 40, 50], &[1, 2, 0]),
        (&[40, 9, 50], &[2, 0, 1]),
        (&[3, 40, 50], &[1, 0, 2]),
        (&[2, 3, 20, 24], &[3, 1, 0, 2]),
    ];
    for (k, (dims, axes)) in cases.iter().enumerate() {
        let n: usize = dims.iter().product();
        let w = words(n, 200 + k as u64);
        check_permute(&hip, dims, axes, &w.iter().map(|&x| x as f32).collect::<Vec<_>>());
        if k % 3 == 0 {
            check_permute(&hip, dims, axes, &w.iter().map(|&x| x as u8).collect::<Vec<_>>());
            check_permute(&hip, dims, axes, &w.iter().map(|&x| x & 1 == 1).collect::<Vec<_>>());
            check_permute(&hip, dims, axes, &w.iter().map(|&x| x as f64).collect::<Vec<_>>());
            let c: Vec<gpuarrays_core::Complex64> = w
                .iter()
                .map(|&x| gpuarrays_core::Complex64::new(x as f64, -(x as f64)))
                .collect();
            check_permute(&hip, dims, axes, &c);
        }
    }
    // A permute of a view that starts inside its buffer.
    let w: Vec<f32> = words(4 * 40 * 50, 7).iter().map(|&x| x as f32).collect();
    let got = Array::from_slice(&hip, &[4, 40, 50], &w)
        .and_then(|a| a.view(&[1..3, 0..40, 0..50]))
        .and_then(|v| v.permute(&[2, 1, 0]))
        .and_then(|t| t.to_vec())
        .expect("view permute");
    let cpu = CpuBackend::new();
    let want = Array::from_slice(&cpu, &[4, 40, 50], &w)
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
    let cpu = CpuBackend::new();
    // Lengths around the vector width (4 f32 or 2 f64 per thread) and a tail.
    for (k, n) in [1usize, 3, 4, 6, 1027].into_iter().enumerate() {
        let seed = 0x1234_5678_9ABC_DEF0 ^ k as u64;
        let got = Array::<f32, _>::random_uniform(&hip, &[n], seed).and_then(|a| a.to_vec()).expect("uniform f32");
        let want = Array::<f32, _>::random_uniform(&cpu, &[n], seed).and_then(|a| a.to_vec()).expect("cpu");
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "uniform f32 n={n}: {got:?} vs {want:?}");
        let got = Array::<f64, _>::random_uniform(&hip, &[n], seed).and_then(|a| a.to_vec()).expect("uniform f64");
        let want = Array::<f64, _>::random_uniform(&cpu, &[n], seed).and_then(|a| a.to_vec()).expect("cpu");
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "uniform f64 n={n}");
        let got = Array::<f32, _>::random_normal(&hip, &[n], seed).and_then(|a| a.to_vec()).expect("normal f32");
        let want = Array::<f32, _>::random_normal(&cpu, &[n], seed).and_then(|a| a.to_vec()).expect("cpu");
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs())), "normal f32 n={n}");
        let got = Array::<f64, _>::random_normal(&hip, &[n], seed).and_then(|a| a.to_vec()).expect("normal f64");
        let want = Array::<f64, _>::random_normal(&cpu, &[n], seed).and_then(|a| a.to_vec()).expect("cpu");
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs())), "normal f64 n={n}");
    }
    // A 2-D draw of a view-sized array: element i is row-major i.
    let got = Array::<f32, _>::random_uniform(&hip, &[7, 9], 3).and_then(|a| a.to_vec()).expect("2-D");
    let want = Array::<f32, _>::random_uniform(&cpu, &[63], 3).and_then(|a| a.to_vec()).expect("1-D");
    assert_eq!(got, want);
}

#[test]
fn split_reductions_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let cpu = CpuBackend::new();
    // 1-D, long enough for several blocks per row (so partials are combined by the last one).
    let n = 70_001;
    let mut x: Vec<f32> = words(n, 300).iter().map(|&w| ((w >> 40) % 1000) as f32).collect();
    let dev = Array::from_slice(&hip, &[n], &x).expect("upload");
    let host = Array::from_slice(&cpu, &[n], &x).expect("upload");
    assert_eq!(dev.argmax().expect("argmax"), host.argmax().expect("cpu"), "ties: first index");
    assert_eq!(dev.argmin().expect("argmin"), host.argmin().expect("cpu"));
    x[41_000] = f32::NAN;
    x[60_000] = f32::NAN;
    let dev = Array::from_slice(&hip, &[n], &x).expect("upload");
    assert_eq!(dev.argmax().expect("argmax"), 41_000, "the first NaN wins");
    assert_eq!(dev.argmin().expect("argmin"), 41_000);
    let xi: Vec<i32> = words(n, 301).iter().map(|&w| (w % 100_000) as i32 - 50_000).collect();
    let s = Array::from_slice(&hip, &[n], &xi).and_then(|a| a.sum_axis(0)).and_then(|a| a.to_vec()).expect("i32 sum");
    let want = Array::from_slice(&cpu, &[n], &xi).and_then(|a| a.sum_axis(0)).and_then(|a| a.to_vec()).expect("cpu");
    assert_eq!(s, want);
    // Columns: axis 0 of [rows, cols], split along the rows.
    for cols in [37usize, 64] {
        let rows = 300;
        let m: Vec<f32> = words(rows * cols, 302).iter().map(|&w| ((w >> 40) as f32) / 1e6).collect();
        let got = Array::from_slice(&hip, &[rows, cols], &m).and_then(|a| a.sum_axis(0)).and_then(|a| a.to_vec()).expect("sum axis 0");
        let want = Array::from_slice(&cpu, &[rows, cols], &m).and_then(|a| a.sum_axis(0)).and_then(|a| a.to_vec()).expect("cpu");
        for (c, (g, w)) in got.iter().zip(&want).enumerate() {
            let abs: f64 = (0..rows).map(|r| m[r * cols + c].abs() as f64).sum();
            assert!(close(*g as f64, *w as f64, rows, abs, f32::EPSILON as f64), "sum axis 0 column {c}: {g} vs {w}");
        }
        let got = Array::from_slice(&hip, &[rows, cols], &m).and_then(|a| a.argmax_axis(0)).and_then(|a| a.to_vec()).expect("argmax axis 0");
        let want = Array::from_slice(&cpu, &[rows, cols], &m).and_then(|a| a.argmax_axis(0)).and_then(|a| a.to_vec()).expect("cpu");
        assert_eq!(got, want, "argmax axis 0, {cols} columns");
    }
}

/// The conformance suite's rows of sorts, scans and permutes (quick shapes, every type) on the
/// emulator. `GA_EMULATED_ROWS=all` adds draws, arg-reductions, axis sums and reversals (130
/// rows, about 10 minutes on two cores; they passed when this test was written).
#[test]
fn conformance_rows_of_these_kernels_pass_on_the_emulator() {
    use gpuarrays_conformance::{SuiteConfig, SuiteReport};
    let Some(hip) = emulator::backend() else {
        return;
    };
    let all = std::env::var("GA_EMULATED_ROWS").is_ok_and(|v| v == "all");
    let filters: &[&str] = if all {
        &["sort", "cum", "permute", "transpose", "random", "arg", "sum_axis", "reverse"]
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
