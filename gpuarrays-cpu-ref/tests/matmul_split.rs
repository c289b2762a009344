//! The CPU backend's matrix products on shapes that cross every tiling boundary (row tiles,
//! column tiles for few rows, the one-row and one-column kernels, batches, the integer
//! kernel's k and n blocks): integers exactly against a plain wrapping loop, f32, f64 and
//! c64 close to a plain loop in f64 and bit for bit across 1, 3 and 16 threads.

use gpuarrays_core::{Array, Element};
use gpuarrays_cpu_ref::CpuBackend;
use num_complex::Complex64;

/// (batch, m, k, n): row tiles with a partial last one, column tiles, one row, one column,
/// k past the integer kernel's block of 128 and n past its block of 512, k = 1.
const SHAPES: [[usize; 4]; 9] = [
    [1, 300, 70, 90],
    [1, 1030, 33, 17],
    [1, 3, 200, 1100],
    [1, 1, 1000, 700],
    [1, 700, 1000, 1],
    [2, 260, 130, 515],
    [3, 5, 7, 9],
    [1, 40, 1, 600],
    [1, 1, 1, 1],
];

fn vals(n: usize, seed: u64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (s >> 20) as i64
        })
        .collect()
}

/// The product by the definition, in `acc`'s arithmetic.
fn plain<T: Copy, A: Copy>(
    a: &[T],
    b: &[T],
    [batch, m, k, n]: [usize; 4],
    zero: A,
    fma: impl Fn(A, T, T) -> A,
) -> Vec<A> {
    let mut out = Vec::with_capacity(batch * m * n);
    for q in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = zero;
                for p in 0..k {
                    s = fma(s, a[(q * m + i) * k + p], b[(q * k + p) * n + j]);
                }
                out.push(s);
            }
        }
    }
    out
}

fn product<T: Element>(cpu: &CpuBackend, s: [usize; 4], a: &[T], b: &[T]) -> Vec<T> {
    let [batch, m, k, n] = s;
    let x = Array::<T, _>::from_slice(cpu, &[batch, m, k], a).unwrap();
    let y = Array::<T, _>::from_slice(cpu, &[batch, k, n], b).unwrap();
    x.matmul(&y).unwrap().to_vec().unwrap()
}

fn pools() -> Vec<CpuBackend> {
    [1, 3, 16]
        .into_iter()
        .map(|t| CpuBackend::with_threads(t).unwrap())
        .collect()
}

#[test]
fn integer_products_wrap_exactly() {
    for s in SHAPES {
        let [batch, m, k, n] = s;
        let (a, b) = (vals(batch * m * k, 1), vals(batch * k * n, 2));
        let want = plain(&a, &b, s, 0i64, |acc, x, y| {
            acc.wrapping_add(x.wrapping_mul(y))
        });
        let a8: Vec<u8> = a.iter().map(|&v| v as u8).collect();
        let b8: Vec<u8> = b.iter().map(|&v| v as u8).collect();
        let want8 = plain(&a8, &b8, s, 0u8, |acc, x, y| {
            acc.wrapping_add(x.wrapping_mul(y))
        });
        for cpu in pools() {
            assert_eq!(product(&cpu, s, &a, &b), want, "i64 {s:?}");
            assert_eq!(product(&cpu, s, &a8, &b8), want8, "u8 {s:?}");
        }
    }
}

fn close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-4 * scale,
        "{what}: {got} vs {want}"
    );
}

#[test]
fn float_and_complex_products_are_close_and_ignore_the_thread_count() {
    for s in SHAPES {
        let [batch, m, k, n] = s;
        let f = |v: i64| (v % 2001 - 1000) as f64 / 1000.0;
        let a: Vec<f64> = vals(batch * m * k, 3).into_iter().map(f).collect();
        let b: Vec<f64> = vals(batch * k * n, 4).into_iter().map(f).collect();
        let want = plain(&a, &b, s, 0.0, |acc, x, y| acc + x * y);
        let (a32, b32): (Vec<f32>, Vec<f32>) = (
            a.iter().map(|&v| v as f32).collect(),
            b.iter().map(|&v| v as f32).collect(),
        );
        let ca: Vec<Complex64> = a
            .iter()
            .zip(b.iter().rev().cycle())
            .map(|(&r, &i)| Complex64::new(r, i))
            .collect();
        let cb: Vec<Complex64> = b
            .iter()
            .zip(a.iter().cycle())
            .map(|(&r, &i)| Complex64::new(r, -i))
            .collect();
        let cwant = plain(&ca, &cb, s, Complex64::new(0.0, 0.0), |acc, x, y| {
            acc + x * y
        });
        let (mut r64, mut r32, mut rc) = (Vec::new(), Vec::new(), Vec::new());
        for cpu in pools() {
            let g64 = product(&cpu, s, &a, &b);
            let g32 = product(&cpu, s, &a32, &b32);
            let gc = product(&cpu, s, &ca, &cb);
            for ((&x, &y), &w) in g64.iter().zip(&g32).zip(&want) {
                close(x, w, k as f64, &format!("f64 {s:?}"));
                close(y as f64, w, 10.0 * k as f64, &format!("f32 {s:?}"));
            }
            for (x, w) in gc.iter().zip(&cwant) {
                close(x.re, w.re, 2.0 * k as f64, &format!("c64 {s:?}"));
                close(x.im, w.im, 2.0 * k as f64, &format!("c64 {s:?}"));
            }
            r64.push(g64);
            r32.push(g32);
            rc.push(gc);
        }
        for t in 1..r64.len() {
            assert!(
                r64[t] == r64[0] && r32[t] == r32[0] && rc[t] == rc[0],
                "{s:?}: thread counts differ"
            );
        }
    }
}
