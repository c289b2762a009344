//! `topk` on long rows takes core's selection path (a sampled threshold, then a sort of the
//! candidates); shorter rows and a failed threshold take the full sort. Both must give the
//! stable argsort's first `k`, bit for bit: here against `argsort` on the CPU reference, for
//! distinct values, heavy ties, special values, 8-byte keys, a negative stride, an axis
//! other than the last, and input built so that the strided sample misjudges the row (the
//! full sort then runs).

use gpuarrays_core::{Array, Element, SortOrder, s};
use gpuarrays_cpu_ref::CpuBackend;

const LEN: usize = (1 << 20) + 77;

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

/// `topk(k)` of `x` along `axis` equals the first `k` of the stable argsort, both orders,
/// and its values are the elements at its indices (bit for bit: NaNs included).
fn check<T: Element>(what: &str, x: &Array<T, CpuBackend>, k: usize, axis: usize) {
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        let (values, indices) = x.topk(k, axis, order).expect("topk");
        let all = x.argsort(axis, order).expect("argsort");
        let first: Vec<_> = (0..x.ndim())
            .map(|a| if a == axis { 0..k } else { 0..x.dims()[a] })
            .collect();
        let want = all.view(&first).and_then(|a| a.to_vec()).expect("first k");
        assert_eq!(
            indices.to_vec().expect("indices"),
            want,
            "{what} {order:?}: indices"
        );
        let at = x.take_along_axis(&indices, axis).expect("take");
        assert_eq!(
            values.raw().to_bytes().expect("values"),
            at.raw().to_bytes().expect("elements"),
            "{what} {order:?}: values are not the elements at the indices"
        );
    }
}

#[test]
fn long_rows_match_the_stable_argsort() {
    let cpu = CpuBackend::new();
    let w = words(LEN, 1);
    let distinct: Vec<f32> = w.iter().map(|&v| (v >> 40) as f32 / 3.0 - 1e5).collect();
    let x = Array::from_slice(&cpu, &[LEN], &distinct).unwrap();
    check("distinct f32", &x, 100, 0);
    check("distinct f32, k = 1", &x, 1, 0);
    check("distinct f32 reversed", &x.at(&s![..;-1]).unwrap(), 37, 0);

    let ties: Vec<i32> = w.iter().map(|&v| (v % 7) as i32).collect();
    check(
        "ties i32",
        &Array::from_slice(&cpu, &[LEN], &ties).unwrap(),
        100,
        0,
    );

    let special: Vec<f64> = w
        .iter()
        .map(|&v| match v % 64 {
            0 => f64::NAN,
            1 => -0.0,
            2 => 0.0,
            3 => f64::INFINITY,
            4 => f64::NEG_INFINITY,
            _ => (v >> 11) as f64 * 1e-9 - 4e6,
        })
        .collect();
    check(
        "specials f64",
        &Array::from_slice(&cpu, &[LEN], &special).unwrap(),
        300,
        0,
    );

    let wide: Vec<u64> = w.iter().map(|&v| v >> (v % 7)).collect();
    check(
        "u64",
        &Array::from_slice(&cpu, &[LEN], &wide).unwrap(),
        64,
        0,
    );

    // A column of a [LEN, 1] array: the axis moved last is a strided row.
    let column = Array::from_slice(&cpu, &[LEN, 1], &distinct).unwrap();
    check("column", &column, 50, 0);
}

#[test]
fn a_sample_that_misjudges_the_row_falls_back_to_the_full_sort() {
    // The sample reads every (LEN / 2^16)-th element: put the smallest values exactly there,
    // so the sampled threshold admits too few candidates for k = 100 ascending.
    let cpu = CpuBackend::new();
    let step = LEN / (1 << 16);
    let x: Vec<f32> = (0..LEN)
        .map(|i| {
            if i % step == 0 {
                (i / step) as f32
            } else {
                1e6 + i as f32
            }
        })
        .collect();
    check(
        "periodic f32",
        &Array::from_slice(&cpu, &[LEN], &x).unwrap(),
        100,
        0,
    );
}

#[test]
fn short_rows_and_many_rows_sort_whole() {
    let cpu = CpuBackend::new();
    let w = words(3 * 5000, 3);
    let x: Vec<f32> = w.iter().map(|&v| (v % 1000) as f32).collect();
    let a = Array::from_slice(&cpu, &[3, 5000], &x).unwrap();
    check("3 rows", &a, 10, 1);
    check("columns", &a, 2, 0);
}
