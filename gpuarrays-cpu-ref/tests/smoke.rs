//! Quick checks of each CPU kernel against plain loops written in the test. The thorough
//! checks are the conformance suite (scalar oracle) and the NumPy cross-check.

use gpuarrays_core::{Array, Backend, DType, Error};
use gpuarrays_cpu_ref::CpuBackend;

fn data(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 10.0 - 50.0)
        .collect()
}

#[test]
fn fused_expression_with_broadcast_and_views() {
    let b = CpuBackend::new();
    let x = Array::from_slice(&b, &[3, 5], &data(15)).unwrap();
    let row = Array::from_slice(&b, &[5], &[1.0f32, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let y: Array<f32, _> = ((x.ex() * 2.0 + row.ex()).max(0.0)).eval().unwrap();
    let xv = data(15);
    let want: Vec<f32> = (0..15)
        .map(|i| (xv[i] * 2.0 + (i % 5 + 1) as f32).max(0.0))
        .collect();
    assert_eq!(y.to_vec().unwrap(), want);
    // A view with an offset as an operand.
    let tail = x.view(&[1..3, 0..5]).unwrap();
    assert_eq!(tail.offset(), 5);
    let t: Array<f32, _> = (tail.ex() + 1.0).eval().unwrap();
    assert_eq!(
        t.to_vec().unwrap(),
        xv[5..].iter().map(|v| v + 1.0).collect::<Vec<_>>()
    );
}

#[test]
fn reductions_scans_and_layout() {
    let b = CpuBackend::new();
    let n = 100_003;
    let v: Vec<i64> = (0..n as i64).map(|i| (i * 31) % 1001 - 500).collect();
    let a = Array::from_slice(&b, &[n], &v).unwrap();
    assert_eq!(a.sum().unwrap(), v.iter().sum::<i64>());
    assert_eq!(a.min().unwrap(), *v.iter().min().unwrap());
    let amax = v
        .iter()
        .enumerate()
        .fold(0, |best, (i, x)| if *x > v[best] { i } else { best });
    assert_eq!(a.argmax().unwrap(), amax);
    let m = Array::from_slice(&b, &[3, 4], &(0..12).collect::<Vec<i32>>()).unwrap();
    assert_eq!(
        m.sum_axis(0).unwrap().to_vec().unwrap(),
        vec![12, 15, 18, 21]
    );
    assert_eq!(m.sum_axis(1).unwrap().to_vec().unwrap(), vec![6, 22, 38]);
    assert_eq!(
        m.cumsum(1).unwrap().to_vec().unwrap(),
        vec![0, 1, 3, 6, 4, 9, 15, 22, 8, 17, 27, 38]
    );
    assert_eq!(
        m.reverse(0).unwrap().to_vec().unwrap(),
        vec![8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]
    );
    assert_eq!(
        m.transpose().unwrap().to_vec().unwrap(),
        vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    let e: Array<f32, _> = Array::zeros(&b, &[0]).unwrap();
    assert_eq!(e.sum().unwrap(), 0.0);
    assert!(matches!(e.max(), Err(Error::EmptyReduction { .. })));
}

#[test]
fn sort_find_matmul_random() {
    let b = CpuBackend::new();
    let a = Array::from_slice(&b, &[5], &[3.0f64, f64::NAN, -1.0, 2.0, 0.5]).unwrap();
    let s = a.sort().unwrap().to_vec().unwrap();
    assert_eq!(&s[..4], &[-1.0, 0.5, 2.0, 3.0]);
    assert!(s[4].is_nan());
    let mask: Array<bool, _> = a.ex().gt(1.0).eval().unwrap();
    assert_eq!(mask.find().unwrap().to_vec().unwrap(), vec![0, 3]);
    assert_eq!(mask.find_first().unwrap(), Some(0));
    let l = Array::from_slice(&b, &[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let r = Array::from_slice(&b, &[3, 2], &[7i32, 8, 9, 10, 11, 12]).unwrap();
    assert_eq!(
        l.matmul(&r).unwrap().to_vec().unwrap(),
        vec![58, 64, 139, 154]
    );
    let u1: Array<f32, _> = Array::random_uniform(&b, &[1000], 7).unwrap();
    let u2: Array<f32, _> =
        Array::random_uniform(&CpuBackend::with_threads(1).unwrap(), &[1000], 7).unwrap();
    assert_eq!(u1.to_vec().unwrap(), u2.to_vec().unwrap());
    let c = u1.cast_dyn(DType::I32).unwrap();
    assert_eq!(c.dtype(), DType::I32);
}

#[test]
fn find_first_is_the_first_true_or_none() {
    let b = CpuBackend::new();
    let first = |v: &[bool]| v.iter().position(|&x| x);
    let masks: [&[bool]; 6] = [
        &[false; 9],
        &[true, false, true],
        &[true; 4],
        &[false, false, false, true],
        &[false, true, false],
        &[true],
    ];
    for m in masks {
        let a = Array::from_slice(&b, &[m.len()], m).unwrap();
        assert_eq!(a.find_first().unwrap(), first(m), "{m:?}");
    }
    // Views at an offset: a true element just before the view must not be found.
    let m = [true, false, false, false, true, false];
    let a = Array::from_slice(&b, &[6], &m).unwrap();
    for (lo, hi) in [(1, 4), (1, 6), (4, 6), (0, 1), (5, 6)] {
        // One range: the view's axis 0 (not a list of one range, as clippy suspects).
        #[allow(clippy::single_range_in_vec_init)]
        let v = a.view(&[lo..hi]).unwrap();
        assert_eq!(
            v.find_first().unwrap(),
            first(&m[lo..hi]),
            "view {lo}..{hi}"
        );
    }
    // Non-bool: the first non-zero, in a 2-D array.
    let x = Array::from_slice(&b, &[2, 3], &[0.0f32, 0.0, -0.0, 0.0, 2.5, 0.0]).unwrap();
    assert_eq!(x.find_first().unwrap(), Some(4));
}

#[test]
fn the_device_name_gives_the_threads_the_pool_has() {
    let default = CpuBackend::with_threads(0).unwrap();
    let name = &default.device().name;
    assert!(!name.contains("(0 threads)"), "{name}");
    let want = format!("({} threads)", rayon::current_num_threads());
    assert!(name.contains(&want), "{name}, expected {want}");
    assert!(
        CpuBackend::with_threads(3)
            .unwrap()
            .device()
            .name
            .contains("(3 threads)")
    );
}

/// Half scans keep an f32 running value and round each output once: 4096 ones sum to 4096
/// at the end (a running value rounded to f16 at every step stalls at 2048, where 2048 + 1
/// rounds back to 2048), the last element is the sum, and a running product that leaves the
/// half range and comes back is finite again; on a strided view too.
#[test]
fn half_scans_round_each_output_once() {
    use gpuarrays_core::{bf16, f16};
    let b = CpuBackend::new();
    let ones = Array::<f16, _>::full(&b, &[4096], f16::ONE).unwrap();
    let c = ones.cumsum(0).unwrap().to_vec().unwrap();
    let want: Vec<f16> = (1..=4096).map(|k| f16::from_f32(k as f32)).collect();
    assert_eq!(c, want);
    assert_eq!(c[4095], ones.sum().unwrap());
    // 300·300 = 90000 overflows f16, but the f32 running product does not: × 1/256 brings it
    // back to 351.5625, exact in f16.
    let x = Array::from_slice(
        &b,
        &[3],
        &[
            f16::from_f32(300.0),
            f16::from_f32(300.0),
            f16::from_f32(1.0 / 256.0),
        ],
    )
    .unwrap();
    let p = x.cumprod(0).unwrap().to_vec().unwrap();
    assert_eq!(p[0], f16::from_f32(300.0));
    assert!(p[1].is_infinite());
    assert_eq!(p[2], f16::from_f32(90000.0 / 256.0));
    // bf16 along a strided axis: columns of a transposed 2-D array.
    let m = Array::<bf16, _>::full(&b, &[300, 2], bf16::ONE).unwrap();
    let t = m.transpose().unwrap();
    let s = t.cumsum(1).unwrap().to_vec().unwrap();
    let row: Vec<bf16> = (1..=300).map(|k| bf16::from_f32(k as f32)).collect();
    assert_eq!(&s[..300], &row[..]);
    assert_eq!(&s[300..], &row[..]);
}
