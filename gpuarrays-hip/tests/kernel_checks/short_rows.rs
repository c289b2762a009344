//! Rows in the register sort's range (padded to at most 2048 keys), every ordered type: the
//! result against the CPU reference (equal values, NaNs alike) and, bit for bit, against the
//! bitonic tile, which sorts the same keys (so -0.0 before 0.0, one NaN pattern).
//!
//! Each length runs with `2048 / p + 3` rows (`p` the padded length): a full block of rows and
//! a partial second one. The values hold duplicates, both zeros, infinities, NaNs and the
//! types' extremes (the greatest value has the padding's key); the 8- and 16-bit types too.

use gpuarrays_core::element::as_bytes;
use gpuarrays_core::{Array, Element, bf16, f16};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::sort::SortAlgorithm;

use super::{CHOICE, f32_values, f64_values, same, words};

/// Rows of `len` elements in the register sort's block layout: one full block and 3 more rows.
pub fn rows_for(len: usize) -> usize {
    2048 / len.next_power_of_two().min(2048) + 3
}

/// The register sort's output of `data` (rows of `len`) equals the CPU reference's and, for
/// floats (where equal values may differ in bits), has the bitonic tile's bits.
fn check<T: Element>(hip: &HipBackend, len: usize, data: &[T]) {
    let dims = [data.len() / len, len];
    let run = |alg| {
        hip.kernels().update_policy(|p| p.sort = alg);
        Array::from_slice(hip, &dims, data)
            .and_then(|a| a.sort())
            .and_then(|a| a.to_vec())
            .unwrap_or_else(|e| panic!("{alg:?} {dims:?} {}: {e}", T::DTYPE))
    };
    let register = run(SortAlgorithm::Register);
    let want = Array::from_slice(&CpuBackend::new(), &dims, data)
        .and_then(|a| a.sort())
        .and_then(|a| a.to_vec())
        .expect("cpu sort");
    if let Some(i) = (0..want.len()).find(|&i| !same(&register[i], &want[i])) {
        panic!(
            "register {dims:?} {}: first difference at {i} (row {}): got {:?}, want {:?}",
            T::DTYPE,
            i / len,
            &register[i.saturating_sub(2)..(i + 3).min(register.len())],
            &want[i.saturating_sub(2)..(i + 3).min(want.len())]
        );
    }
    if T::DTYPE.is_float() {
        let bitonic = run(SortAlgorithm::Bitonic);
        assert!(
            as_bytes(&register) == as_bytes(&bitonic),
            "{dims:?} {}: register and bitonic sorts differ in bits",
            T::DTYPE
        );
    }
}

/// Integers from `w`: a quarter the greatest value, an eighth the least, the rest `f(word)`.
fn with_extremes<T: Copy>(w: &[u64], max: T, min: T, f: impl Fn(u64) -> T) -> Vec<T> {
    w.iter()
        .map(|&x| match x % 8 {
            0 | 1 => max,
            2 => min,
            _ => f(x >> 3),
        })
        .collect()
}

/// f32 rows (the suite's special values, descending runs, all NaN) of every length of
/// `f32_lens`, and every ordered type on rows of each length of `all_lens`.
pub fn short_rows(hip: &HipBackend, f32_lens: &[usize], all_lens: &[usize]) {
    let _one = CHOICE.lock();
    for &len in f32_lens {
        let n = rows_for(len) * len;
        check(hip, len, &f32_values(n, 1000 + len as u64));
        let down: Vec<f32> = (0..n).rev().map(|i| (i % (len + 1)) as f32).collect();
        check(hip, len, &down);
    }
    for &len in all_lens {
        let n = rows_for(len) * len;
        let seed = 2000 + len as u64;
        let w = words(n, seed);
        check(hip, len, &f64_values(n, seed));
        check(
            hip,
            len,
            &with_extremes(&w, i32::MAX, i32::MIN, |x| (x % 200) as i32 - 100),
        );
        check(hip, len, &with_extremes(&w, u32::MAX, 0, |x| x as u32));
        check(
            hip,
            len,
            &with_extremes(&w, i64::MAX, i64::MIN, |x| (x % 50) as i64 - 25),
        );
        check(hip, len, &with_extremes(&w, u64::MAX, 0, |x| x));
        check(hip, len, &with_extremes(&w, u8::MAX, 0, |x| x as u8));
        check(hip, len, &w.iter().map(|&x| x % 3 == 0).collect::<Vec<_>>());
        check(
            hip,
            len,
            &with_extremes(&w, i8::MAX, i8::MIN, |x| (x % 9) as i8 - 4),
        );
        check(
            hip,
            len,
            &with_extremes(&w, i16::MAX, i16::MIN, |x| x as i16),
        );
        check(
            hip,
            len,
            &with_extremes(&w, u16::MAX, 0, |x| (x % 300) as u16),
        );
        let v = f32_values(n, seed);
        check(
            hip,
            len,
            &v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(),
        );
        check(
            hip,
            len,
            &v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>(),
        );
        check(hip, len, &vec![f32::NAN; n]);
    }
    hip.kernels().reset_policy();
}
