//! Rows in the register sort's range (padded to at most 2048 keys), every ordered type: the
//! result against the CPU reference (equal values, NaNs alike) and, bit for bit, against the
//! bitonic tile, which sorts the same keys (so -0.0 before 0.0, one NaN pattern).
//!
//! Each length runs with `2048 / p + 3` rows (`p` the padded length): a full block of rows and
//! a partial second one. The values hold duplicates, both zeros, infinities, NaNs and the
//! types' extremes (the greatest value has the padding's key).

use gpuarrays_core::element::as_bytes;
use gpuarrays_core::{Array, Element};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::sort::{self, SortAlgorithm};

use super::{CHOICE, f32_values, f64_values, sort_one, words};

/// Rows of `len` elements in the register sort's block layout: one full block and 3 more rows.
pub fn rows_for(len: usize) -> usize {
    2048 / len.next_power_of_two().min(2048) + 3
}

/// The register sort's output of `data` (rows of `len`) equals the CPU reference's and has
/// the bitonic tile's bits.
fn check<T: Element>(hip: &HipBackend, len: usize, data: &[T]) {
    let dims = [data.len() / len, len];
    sort::set_algorithm(Some(SortAlgorithm::Register));
    sort_one(hip, "register", &dims, data);
    let run = |alg| {
        sort::set_algorithm(Some(alg));
        Array::from_slice(hip, &dims, data)
            .and_then(|a| a.sort())
            .and_then(|a| a.to_vec())
            .unwrap_or_else(|e| panic!("{alg:?} {dims:?} {}: {e}", T::DTYPE))
    };
    let (register, bitonic) = (run(SortAlgorithm::Register), run(SortAlgorithm::Bitonic));
    assert!(
        as_bytes(&register) == as_bytes(&bitonic),
        "{dims:?} {}: register and bitonic sorts differ in bits",
        T::DTYPE
    );
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

/// Every length of `lens` with f32 (the suite's special values), and with every other ordered
/// type when `all_types`.
pub fn short_rows(hip: &HipBackend, lens: &[usize], all_types: bool) {
    let _one = CHOICE.lock();
    for &len in lens {
        let n = rows_for(len) * len;
        let seed = 1000 + len as u64;
        check(hip, len, &f32_values(n, seed));
        if !all_types {
            continue;
        }
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
        check(
            hip,
            len,
            &w.iter().map(|&x| x % 3 == 0).collect::<Vec<_>>(),
        );
        let down: Vec<f32> = (0..n).rev().map(|i| (i % (len + 1)) as f32).collect();
        check(hip, len, &down);
        check(hip, len, &vec![f32::NAN; n]);
    }
    sort::set_algorithm(None);
}
