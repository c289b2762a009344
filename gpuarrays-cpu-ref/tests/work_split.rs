//! The ways the CPU backend splits work (elementwise blocks and tasks, reduction blocks,
//! column strips and row blocks, parallel copies) on shapes that cross every boundary:
//! results are checked against plain loops written here where the order of operations
//! cannot matter (integers, min/max/argmax, elementwise arithmetic), and for float sums
//! bit for bit across 1, 3 and 16 threads.

use gpuarrays_core::{Array, Element};
use gpuarrays_cpu_ref::CpuBackend;

fn backends() -> Vec<CpuBackend> {
    [1, 3, 16]
        .into_iter()
        .map(|t| CpuBackend::with_threads(t).unwrap())
        .collect()
}

/// Deterministic values in [-range, range].
fn ints(n: usize, seed: u64, range: i64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 33) as i64 % (2 * range + 1)) - range
        })
        .collect()
}

fn floats(n: usize, seed: u64) -> Vec<f32> {
    ints(n, seed, 1 << 20)
        .into_iter()
        .map(|v| v as f32 / (1 << 18) as f32)
        .collect()
}

/// Shapes `[outer, len, inner]` and the axis reduced (1): one strip and one row block, several
/// 1024-column strips with a partial last one, several row blocks, both, a narrow inner, and
/// the contiguous case; several 32 KiB strips (8,192 f32 accumulators) with row blocks and a
/// partial last strip, and rows that each fit one block (one pass, no partials).
const SHAPES: [[usize; 3]; 9] = [
    [1, 40, 700],
    [1, 300, 2500],
    [2, 150, 1100],
    [1, 70_000, 2],
    [3, 5, 4097],
    [4, 40_000, 1],
    [1, 130, 9000],
    [2, 70, 8300],
    [300, 1000, 1],
];

/// `f` folded over the middle axis of `x` with shape `[o, l, i]`, in order.
fn plain<T: Copy, A: Copy>(
    x: &[T],
    [o, l, i]: [usize; 3],
    init: impl Fn(T, usize) -> A,
    f: impl Fn(A, T, usize) -> A,
) -> Vec<A> {
    let mut out = Vec::with_capacity(o * i);
    for a in 0..o {
        for c in 0..i {
            let at = |k: usize| x[(a * l + k) * i + c];
            let mut acc = init(at(0), 0);
            for k in 1..l {
                acc = f(acc, at(k), k);
            }
            out.push(acc);
        }
    }
    out
}

fn same_for_all<T: Element + std::fmt::Debug>(results: Vec<Vec<T>>, what: &str) {
    for (t, r) in results.iter().enumerate().skip(1) {
        assert!(
            r == &results[0],
            "{what}: thread count #{t} differs from the first"
        );
    }
}

#[test]
fn axis_reductions_match_plain_loops_and_ignore_the_thread_count() {
    for shape in SHAPES {
        let [o, l, i] = shape;
        let n = o * l * i;
        let iv = ints(n, n as u64, 1 << 40);
        // Large values so that sums wrap around: exact whatever the order.
        let wrap: Vec<i64> = iv.iter().map(|v| v.wrapping_mul(1 << 22)).collect();
        let fv = floats(n, 7 + n as u64);
        let want_sum = plain(&wrap, shape, |v, _| v, |a, v, _| a.wrapping_add(v));
        let want_min = plain(&iv, shape, |v, _| v, |a, v, _| a.min(v));
        let want_argmax = plain(
            &fv,
            shape,
            |v, k| (v, k as i64),
            |(m, at), v, k| if v > m { (v, k as i64) } else { (m, at) },
        );
        let want_fsum = plain(&fv, shape, |v, _| v as f64, |a, v, _| a + v as f64);
        let mut fsums = Vec::new();
        for b in backends() {
            let a = Array::from_slice(&b, &shape, &wrap).unwrap();
            assert_eq!(
                a.sum_axis(1).unwrap().to_vec().unwrap(),
                want_sum,
                "{shape:?}"
            );
            let a = Array::from_slice(&b, &shape, &iv).unwrap();
            assert_eq!(
                a.min_axis(1).unwrap().to_vec().unwrap(),
                want_min,
                "{shape:?}"
            );
            let f = Array::from_slice(&b, &shape, &fv).unwrap();
            let got: Vec<i64> = f.argmax_axis(1).unwrap().to_vec().unwrap();
            let idx: Vec<i64> = want_argmax.iter().map(|p| p.1).collect();
            assert_eq!(got, idx, "{shape:?}");
            let s = f.sum_axis(1).unwrap().to_vec().unwrap();
            for (g, w) in s.iter().zip(&want_fsum) {
                assert!((*g as f64 - w).abs() <= 1e-3 * (1.0 + w.abs()), "{shape:?}");
            }
            fsums.push(s);
        }
        same_for_all(fsums, &format!("f32 sum along axis 1 of {shape:?}"));
    }
}

#[test]
fn full_reductions_ignore_the_thread_count() {
    for n in [1, 7, 8, 9, 16_383, 16_384, 16_385, 1 << 20] {
        let fv = floats(n, n as u64);
        let mut sums = Vec::new();
        for b in backends() {
            let a = Array::from_slice(&b, &[n], &fv).unwrap();
            sums.push(vec![a.sum().unwrap()]);
            let want = fv.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            assert_eq!(a.max().unwrap(), want);
        }
        same_for_all(sums, &format!("f32 sum of {n}"));
    }
}

#[test]
fn elementwise_blocks_strides_and_broadcasts_match_plain_loops() {
    // Rows cross block (2,048) and task boundaries; the transposed operand is strided, the
    // row broadcast along axis 0, the column along axis 1.
    let (r, c) = (37, 4099);
    let m = floats(r * c, 1);
    let row = floats(c, 2);
    let col = floats(r, 3);
    let mt = floats(c * r, 4);
    let want: Vec<f32> = (0..r * c)
        .map(|p| {
            let (i, j) = (p / c, p % c);
            (m[p] * row[j] - col[i]).max(mt[j * r + i]) / 2.0
        })
        .collect();
    for b in backends() {
        let am = Array::from_slice(&b, &[r, c], &m).unwrap();
        let arow = Array::from_slice(&b, &[c], &row).unwrap();
        let acol = Array::from_slice(&b, &[r, 1], &col).unwrap();
        let amt = Array::from_slice(&b, &[c, r], &mt).unwrap();
        let t = amt.transpose().unwrap();
        let got: Array<f32, _> = ((am.ex() * arow.ex() - acol.ex()).max(t.ex()) / 2.0)
            .eval()
            .unwrap();
        assert_eq!(got.to_vec().unwrap(), want);
        // In place: the output is one of the inputs, and the last instruction reads it.
        let mut y = am.copy().unwrap();
        let e = y.ex() * 3.0 + y.ex();
        e.eval_into(&mut y).unwrap();
        let want2: Vec<f32> = m.iter().map(|v| v * 3.0 + v).collect();
        assert_eq!(y.to_vec().unwrap(), want2);
        // Bool results go through columns of bytes.
        let mask: Array<bool, _> = am.ex().gt(0.0).eval().unwrap();
        let want3: Vec<bool> = m.iter().map(|&v| v > 0.0).collect();
        assert_eq!(mask.to_vec().unwrap(), want3);
    }
}

#[test]
fn large_copies_between_and_within_buffers() {
    let n = (1 << 20) + 5;
    let v = floats(n, 9);
    for b in backends() {
        let a = Array::from_slice(&b, &[n], &v).unwrap();
        let mut d = Array::<f32, _>::zeros(&b, &[n]).unwrap();
        d.assign(&a).unwrap();
        assert_eq!(d.to_vec().unwrap(), v);
        assert_eq!(a.copy().unwrap().to_vec().unwrap(), v);
    }
}

#[test]
fn scans_match_plain_loops_and_ignore_the_thread_count() {
    // Along a non-last axis with several column strips; long lines cut into blocks, one
    // line and several; short lines.
    for (dims, axis) in [
        (vec![50, 2500], 0),
        (vec![2, 30, 1500], 1),
        (vec![200_001], 0),
        (vec![3, 70_000], 1),
        (vec![40, 333], 1),
    ] {
        let n: usize = dims.iter().product();
        let outer: usize = dims[..axis].iter().product();
        let len = dims[axis];
        let inner: usize = dims[axis + 1..].iter().product();
        let iv: Vec<i64> = ints(n, n as u64, 1 << 40)
            .into_iter()
            .map(|v| v.wrapping_mul(1 << 22))
            .collect();
        let fv = floats(n, 3 + n as u64);
        let scan_plain = |x: &[i64]| {
            let mut y = x.to_vec();
            for o in 0..outer {
                for k in 1..len {
                    for i in 0..inner {
                        let at = (o * len + k) * inner + i;
                        y[at] = y[at - inner].wrapping_add(x[at]);
                    }
                }
            }
            y
        };
        let want = scan_plain(&iv);
        let mut fscans = Vec::new();
        for b in backends() {
            let a = Array::from_slice(&b, &dims, &iv).unwrap();
            assert_eq!(a.cumsum(axis).unwrap().to_vec().unwrap(), want, "{dims:?}");
            let f = Array::from_slice(&b, &dims, &fv).unwrap();
            fscans.push(f.cumsum(axis).unwrap().to_vec().unwrap());
        }
        // Floats: within the documented bound of a sum in any order of a sequential f64
        // scan (min(n + 2, 4√n + 16) ε times the running Σ|x|, the conformance suite's
        // allowance), and the same bits for every thread count.
        let mut acc = vec![0f64; n];
        let mut mag = vec![0f64; n];
        for o in 0..outer {
            for k in 0..len {
                for i in 0..inner {
                    let at = (o * len + k) * inner + i;
                    let (prev, pmag) = if k == 0 {
                        (0.0, 0.0)
                    } else {
                        (acc[at - inner], mag[at - inner])
                    };
                    acc[at] = prev + fv[at] as f64;
                    mag[at] = pmag + (fv[at] as f64).abs();
                }
            }
        }
        let units = (len as f64 + 2.0).min(4.0 * (len as f64).sqrt() + 16.0);
        for ((g, w), m) in fscans[0].iter().zip(&acc).zip(&mag) {
            let bound = units * f32::EPSILON as f64 * m.max(f32::MIN_POSITIVE as f64);
            assert!((*g as f64 - w).abs() <= bound, "{dims:?}: {g} vs {w}");
        }
        same_for_all(fscans, &format!("f32 cumsum along axis {axis} of {dims:?}"));
    }
}
