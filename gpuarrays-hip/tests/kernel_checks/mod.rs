//! Checks of the sort, scan, permute, random, reduction and indexing kernels against the CPU
//! reference, by size: shared by `codegen_emulated` and `indexing_emulated` (small sizes on
//! the CPU emulation) and `codegen_large_inputs` (the benchmark sizes on a GPU). Each check panics with the first
//! difference it finds.

#![allow(dead_code)]

pub mod argsorts;
pub mod indexing;
pub mod scans;
pub mod search;
pub mod short_rows;

use gpuarrays_core::{Array, Complex64, Element, bf16, f16};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::scan::RowScan;
use gpuarrays_hip::kernels::sort::SortAlgorithm;
use parking_lot::Mutex;

/// Checks that change process-wide kernel choices run one at a time.
pub static CHOICE: Mutex<()> = Mutex::new(());

/// SplitMix64 words.
pub fn words(n: usize, seed: u64) -> Vec<u64> {
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
pub fn f32_values(n: usize, seed: u64) -> Vec<f32> {
    words(n, seed)
        .into_iter()
        .map(|w| match w % 16 {
            0 => f32::NAN,
            1 => -0.0,
            2 => 0.0,
            3 => f32::INFINITY,
            4 => f32::NEG_INFINITY,
            5 => ((w >> 8) % 7) as f32 - 3.0,
            _ => {
                let sign = if w & 1 == 0 { 1.0 } else { -1.0 };
                f32::from_bits((w >> 20) as u32 & 0xBFFF_FFFF) * sign
            }
        })
        .collect()
}

/// f64 values with repeats, both zeros, an infinity and NaNs.
pub fn f64_values(n: usize, seed: u64) -> Vec<f64> {
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
pub fn same<T: Element>(a: &T, b: &T) -> bool {
    #[allow(clippy::eq_op)]
    let nan = |x: &T| x != x;
    a == b || (nan(a) && nan(b))
}

/// A float compared by its bits (NaN payloads and the sign of zero count).
pub trait Bits: Copy {
    fn bits(self) -> u64;
}
impl Bits for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}
impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// Panics, naming `what` and the first index, unless `got` and `want` agree bit for bit
/// element by element (over the shorter of the two, as the checks always did).
pub fn assert_same_bits<T: Bits>(got: &[T], want: &[T], what: &str) {
    let bad = got.iter().zip(want).position(|(a, b)| a.bits() != b.bits());
    assert!(bad.is_none(), "{what}: first difference at {bad:?}");
}

/// The error bound of a sum of `n` terms (the suite's min(n + 2, 4√n + 16) ε Σ|x|).
pub fn close(got: f64, want: f64, n: usize, abs_sum: f64, eps: f64) -> bool {
    let units = ((n + 2) as f64).min(4.0 * (n as f64).sqrt() + 16.0);
    (got - want).abs() <= units * eps * abs_sum.max(f64::MIN_POSITIVE)
}

pub fn sort_one<T: Element>(hip: &HipBackend, what: &str, dims: &[usize], data: &[T]) {
    let cpu = CpuBackend::new();
    let want = Array::from_slice(&cpu, dims, data)
        .and_then(|a| a.sort())
        .and_then(|a| a.to_vec())
        .expect("cpu sort");
    let got = Array::from_slice(hip, dims, data)
        .and_then(|a| a.sort())
        .and_then(|a| a.to_vec())
        .unwrap_or_else(|e| panic!("{what}: sort failed: {e}"));
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

/// Sorts with `alg` (f32 with NaNs and signed zeros on every shape, every other ordered type
/// on the first), then sorted, reversed and constant input on the first.
pub fn sorts(hip: &HipBackend, alg: SortAlgorithm, shapes: &[&[usize]]) {
    let _one = CHOICE.lock();
    hip.kernels().update_policy(|p| p.sort = alg);
    let what = format!("{alg:?}");
    for (k, dims) in shapes.iter().enumerate() {
        let n: usize = dims.iter().product();
        let seed = 10 + k as u64;
        sort_one(hip, &what, dims, &f32_values(n, seed));
        if k > 0 {
            continue;
        }
        sort_one(hip, &what, dims, &f64_values(n, seed));
        let w = words(n, seed);
        let c = |f: fn(u64) -> i32| w.iter().map(|&x| f(x)).collect::<Vec<_>>();
        sort_one(hip, &what, dims, &c(|x| x as i32 % 1000));
        sort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| x as u32).collect::<Vec<_>>(),
        );
        sort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| x as i64).collect::<Vec<_>>(),
        );
        sort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| x >> 3).collect::<Vec<u64>>(),
        );
        sort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| (x >> 5) as u8).collect::<Vec<_>>(),
        );
        sort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| x & 3 == 0).collect::<Vec<_>>(),
        );
        narrow_sorts(hip, &what, dims, &w);
        let up: Vec<i32> = (0..n as i32).collect();
        sort_one(hip, "sorted", dims, &up);
        let down: Vec<i32> = (0..n as i32).rev().collect();
        sort_one(hip, "reversed", dims, &down);
        sort_one(hip, "constant", dims, &vec![7.5f32; n]);
    }
    hip.kernels().reset_policy();
}

/// The 8- and 16-bit types on `dims`: every bit pattern of i8, i16 and u16 may occur, and
/// f16/bf16 from raw bits (NaNs with payloads of either sign, subnormals, both zeros) and
/// from the f32 values (repeats, infinities).
pub fn narrow_sorts(hip: &HipBackend, what: &str, dims: &[usize], w: &[u64]) {
    let n = w.len();
    sort_one(
        hip,
        what,
        dims,
        &w.iter().map(|&x| (x >> 7) as i8).collect::<Vec<_>>(),
    );
    sort_one(
        hip,
        what,
        dims,
        &w.iter().map(|&x| (x >> 9) as i16).collect::<Vec<_>>(),
    );
    sort_one(
        hip,
        what,
        dims,
        &w.iter().map(|&x| (x >> 11) as u16).collect::<Vec<_>>(),
    );
    let bits = |x: u64| (x >> 13) as u16;
    sort_one(
        hip,
        what,
        dims,
        &w.iter()
            .map(|&x| f16::from_bits(bits(x)))
            .collect::<Vec<_>>(),
    );
    sort_one(
        hip,
        what,
        dims,
        &w.iter()
            .map(|&x| bf16::from_bits(bits(x)))
            .collect::<Vec<_>>(),
    );
    let v = f32_values(n, w.first().copied().unwrap_or(0));
    sort_one(
        hip,
        what,
        dims,
        &v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(),
    );
    sort_one(
        hip,
        what,
        dims,
        &v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>(),
    );
}

pub fn permute_one<T: Element>(hip: &HipBackend, dims: &[usize], axes: &[usize], data: &[T]) {
    let cpu = CpuBackend::new();
    let want = Array::from_slice(&cpu, dims, data)
        .and_then(|a| a.permute(axes))
        .and_then(|a| a.to_vec())
        .expect("cpu permute");
    let got = Array::from_slice(hip, dims, data)
        .and_then(|a| a.permute(axes))
        .and_then(|a| a.to_vec())
        .unwrap_or_else(|e| panic!("permute {dims:?} {axes:?}: {e}"));
    assert!(
        got == want,
        "permute {dims:?} by {axes:?} ({}) differs",
        T::DTYPE
    );
}

/// Permutes: f32 on every case, u8, bool, f64 and c64 on every third.
pub fn permutes(hip: &HipBackend, cases: &[(&[usize], &[usize])]) {
    for (k, (dims, axes)) in cases.iter().enumerate() {
        let n: usize = dims.iter().product();
        let w = words(n, 200 + k as u64);
        permute_one(
            hip,
            dims,
            axes,
            &w.iter().map(|&x| x as f32).collect::<Vec<_>>(),
        );
        if k % 3 == 0 {
            permute_one(
                hip,
                dims,
                axes,
                &w.iter().map(|&x| x as u8).collect::<Vec<_>>(),
            );
            permute_one(
                hip,
                dims,
                axes,
                &w.iter().map(|&x| x & 1 == 1).collect::<Vec<_>>(),
            );
            permute_one(
                hip,
                dims,
                axes,
                &w.iter().map(|&x| x as f64).collect::<Vec<_>>(),
            );
            let c: Vec<Complex64> = w
                .iter()
                .map(|&x| Complex64::new(x as f64, -(x as f64)))
                .collect();
            permute_one(hip, dims, axes, &c);
        }
    }
}

/// Uniform draws equal the CPU's bit for bit; normal draws agree to a few ulps.
pub fn draws(hip: &HipBackend, sizes: &[usize]) {
    let cpu = CpuBackend::new();
    for (k, &n) in sizes.iter().enumerate() {
        let seed = 0x1234_5678_9ABC_DEF0 ^ k as u64;
        let f = |b: &HipBackend| {
            Array::<f32, _>::random_uniform(b, &[n], seed).and_then(|a| a.to_vec())
        };
        let got = f(hip).expect("uniform f32");
        let want = Array::<f32, _>::random_uniform(&cpu, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("cpu");
        assert_same_bits(&got, &want, &format!("uniform f32 n={n}"));
        let got = Array::<f64, _>::random_uniform(hip, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("uniform f64");
        let want = Array::<f64, _>::random_uniform(&cpu, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("cpu");
        assert_same_bits(&got, &want, &format!("uniform f64 n={n}"));
        let got = Array::<f32, _>::random_normal(hip, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("normal f32");
        let want = Array::<f32, _>::random_normal(&cpu, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("cpu");
        let bad = got
            .iter()
            .zip(&want)
            .position(|(a, b)| (a - b).abs() > 1e-5 * (1.0 + b.abs()));
        assert!(
            bad.is_none(),
            "normal f32 n={n}: first difference at {bad:?}"
        );
        let got = Array::<f64, _>::random_normal(hip, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("normal f64");
        let want = Array::<f64, _>::random_normal(&cpu, &[n], seed)
            .and_then(|a| a.to_vec())
            .expect("cpu");
        let bad = got
            .iter()
            .zip(&want)
            .position(|(a, b)| (a - b).abs() > 1e-12 * (1.0 + b.abs()));
        assert!(
            bad.is_none(),
            "normal f64 n={n}: first difference at {bad:?}"
        );
    }
}

/// argmax/argmin of `n` f32 (ties, then NaNs at two places), an i32 sum, and sums and argmax
/// along axis 0 of `[rows, c]` for each `c` in `cols`.
pub fn reductions(hip: &HipBackend, n: usize, rows: usize, cols: &[usize]) {
    let cpu = CpuBackend::new();
    let mut x: Vec<f32> = words(n, 300)
        .iter()
        .map(|&w| ((w >> 40) % 1000) as f32)
        .collect();
    let dev = Array::from_slice(hip, &[n], &x).expect("upload");
    let host = Array::from_slice(&cpu, &[n], &x).expect("upload");
    assert_eq!(
        dev.argmax().expect("argmax"),
        host.argmax().expect("cpu"),
        "ties: first index"
    );
    assert_eq!(dev.argmin().expect("argmin"), host.argmin().expect("cpu"));
    let (first, second) = (n * 3 / 5, n * 6 / 7);
    x[first] = f32::NAN;
    x[second] = f32::NAN;
    let dev = Array::from_slice(hip, &[n], &x).expect("upload");
    assert_eq!(dev.argmax().expect("argmax"), first, "the first NaN wins");
    assert_eq!(dev.argmin().expect("argmin"), first);
    let xi: Vec<i32> = words(n, 301)
        .iter()
        .map(|&w| (w % 100_000) as i32 - 50_000)
        .collect();
    let got = Array::from_slice(hip, &[n], &xi)
        .and_then(|a| a.sum_axis(0))
        .and_then(|a| a.to_vec())
        .expect("i32 sum");
    let want = Array::from_slice(&cpu, &[n], &xi)
        .and_then(|a| a.sum_axis(0))
        .and_then(|a| a.to_vec())
        .expect("cpu");
    assert_eq!(got, want);
    for &c in cols {
        let mut m: Vec<f32> = words(rows * c, 302)
            .iter()
            .map(|&w| ((w >> 40) as f32) / 1e6)
            .collect();
        // Column 1: a NaN; column 2: all -0.0 (stays -0.0); column 3: +inf and -inf (NaN).
        m[rows / 2 * c + 1] = f32::NAN;
        for r in 0..rows {
            m[r * c + 2] = -0.0;
        }
        m[rows / 3 * c + 3] = f32::INFINITY;
        m[(rows - 1) * c + 3] = f32::NEG_INFINITY;
        let got = Array::from_slice(hip, &[rows, c], &m)
            .and_then(|a| a.sum_axis(0))
            .and_then(|a| a.to_vec())
            .expect("sum axis 0");
        // The same sum from a view one element into its buffer (rows not 16-byte aligned).
        let shifted = Array::from_slice(hip, &[rows * c + 1], &[&[5.0], &m[..]].concat())
            .and_then(|a| a.slice(1..rows * c + 1))
            .and_then(|v| v.reshape(&[rows as isize, c as isize]))
            .and_then(|v| v.sum_axis(0))
            .and_then(|a| a.to_vec())
            .expect("sum axis 0 of a view");
        assert!(got[1].is_nan() && got[3].is_nan(), "NaN columns");
        assert_eq!(got[2].to_bits(), (-0.0f32).to_bits(), "a -0.0 column");
        assert_eq!(shifted[2].to_bits(), (-0.0f32).to_bits(), "a -0.0 column");
        let want = Array::from_slice(&cpu, &[rows, c], &m)
            .and_then(|a| a.sum_axis(0))
            .and_then(|a| a.to_vec())
            .expect("cpu");
        for (what, got) in [("aligned", &got), ("offset view", &shifted)] {
            for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                let abs: f64 = (0..rows).map(|r| m[r * c + j].abs() as f64).sum();
                assert!(
                    same(g, w) || close(*g as f64, *w as f64, rows, abs, f32::EPSILON as f64),
                    "sum axis 0 ({what}) column {j}: {g} vs {w}"
                );
            }
        }
        let got = Array::from_slice(hip, &[rows, c], &m)
            .and_then(|a| a.argmax_axis(0))
            .and_then(|a| a.to_vec())
            .expect("argmax axis 0");
        let want = Array::from_slice(&cpu, &[rows, c], &m)
            .and_then(|a| a.argmax_axis(0))
            .and_then(|a| a.to_vec())
            .expect("cpu");
        assert_eq!(got, want, "argmax axis 0, {c} columns");
    }
}

/// `find` of bool masks of each length (sparse, dense, all true, all false), also from a view
/// one byte into its buffer (the byte kernels), equals the CPU's; `find_first` too.
pub fn finds(hip: &HipBackend, sizes: &[usize]) {
    let cpu = CpuBackend::new();
    for (k, &n) in sizes.iter().enumerate() {
        let w = words(n + 1, 400 + k as u64);
        let masks: [Vec<bool>; 4] = [
            w.iter().map(|&x| x % 13 == 0).collect(),
            w.iter().map(|&x| x % 3 != 0).collect(),
            vec![true; n + 1],
            vec![false; n + 1],
        ];
        for (d, m) in masks.iter().enumerate() {
            let want = Array::from_slice(&cpu, &[n], &m[1..])
                .and_then(|a| a.find())
                .and_then(|a| a.to_vec())
                .expect("cpu find");
            let got = Array::from_slice(hip, &[n], &m[1..])
                .and_then(|a| a.find())
                .and_then(|a| a.to_vec())
                .unwrap_or_else(|e| panic!("find n={n} mask {d}: {e}"));
            assert_eq!(got, want, "find n={n} mask {d}");
            let got = Array::from_slice(hip, &[n + 1], m)
                .and_then(|a| a.slice(1..n + 1))
                .and_then(|v| v.find())
                .and_then(|a| a.to_vec())
                .unwrap_or_else(|e| panic!("find of a view n={n} mask {d}: {e}"));
            assert_eq!(got, want, "find of an offset view n={n} mask {d}");
            let first = Array::from_slice(hip, &[n], &m[1..])
                .and_then(|a| a.find_first())
                .expect("find_first");
            assert_eq!(first, want.first().map(|&i| i as usize), "find_first n={n}");
        }
    }
}
