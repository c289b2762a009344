//! Sorts, find, bit-identical random numbers and matmul, vendor BLAS, cross-thread visibility.

use super::*;
use gpuarrays_core::{bf16, f16};

#[test]
fn sorts_match_cpu_with_nans_last() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    let n = (1 << 17) + 3;
    let mut x = values(n, 5);
    for k in (0..n).step_by(997) {
        x[k] = f32::NAN;
    }
    x[11] = f32::NEG_INFINITY;
    x[12] = f32::INFINITY;
    let g = Array::from_slice(&hip, &[n], &x)
        .expect("upload")
        .sort()
        .expect("sort")
        .to_vec()
        .expect("read");
    let w = Array::from_slice(&cpu, &[n], &x)
        .expect("upload")
        .sort()
        .expect("sort")
        .to_vec()
        .expect("read");
    assert_eq!(g.len(), w.len());
    for (k, (g, w)) in g.iter().zip(&w).enumerate() {
        assert!(g == w || (g.is_nan() && w.is_nan()), "[{k}] {g} vs {w}");
    }
    let rows: Vec<i64> = values(1000 * 37, 6)
        .iter()
        .map(|v| (v * 1e12) as i64)
        .collect();
    let g = Array::from_slice(&hip, &[1000, 37], &rows)
        .expect("upload")
        .sort()
        .expect("sort");
    let w = Array::from_slice(&cpu, &[1000, 37], &rows)
        .expect("upload")
        .sort()
        .expect("sort");
    assert_eq!(g.to_vec().expect("read"), w.to_vec().expect("read"));
}

#[test]
fn find_matches_cpu() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    let n = 3_000_001;
    let m: Vec<bool> = values(n, 7).iter().map(|v| *v > 0.7).collect();
    let g = Array::from_slice(&hip, &[n], &m)
        .expect("upload")
        .find()
        .expect("find");
    let w = Array::from_slice(&cpu, &[n], &m)
        .expect("upload")
        .find()
        .expect("find");
    assert_eq!(g.to_vec().expect("read"), w.to_vec().expect("read"));
    let none = vec![false; 10_000];
    let g = Array::from_slice(&hip, &[10_000], &none)
        .expect("upload")
        .find()
        .expect("find");
    assert!(g.to_vec().expect("read").is_empty());
}

#[test]
fn random_uniforms_and_matmul_are_bit_identical_to_cpu() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    let n = (1 << 20) + 5;
    let g = Array::<f32, _>::random_uniform(&hip, &[n], 42)
        .expect("random")
        .to_vec()
        .expect("read");
    let w = Array::<f32, _>::random_uniform(&cpu, &[n], 42)
        .expect("random")
        .to_vec()
        .expect("read");
    assert!(
        g.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()),
        "f32 uniforms differ"
    );
    let g = Array::<f64, _>::random_uniform(&hip, &[n], 7)
        .expect("random")
        .to_vec()
        .expect("read");
    let w = Array::<f64, _>::random_uniform(&cpu, &[n], 7)
        .expect("random")
        .to_vec()
        .expect("read");
    assert!(
        g.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()),
        "f64 uniforms differ"
    );
    // The backend's own matmul kernel (the route of integer products, and of floats on
    // request): contraction off and k accumulated in order: equal bits. A
    // backend of its own, so that its route does not change the products of other tests.
    let own = HipBackend::with_runtime(
        hip.runtime().clone(),
        0,
        DiskCache::configured(hip.runtime().config()),
    )
    .expect("backend");
    own.set_matmul_route(MatmulRoute::Kernel);
    let (m, k, nn) = (70, 45, 33);
    let a = values(m * k, 8);
    let b = values(k * nn, 9);
    let g = Array::from_slice(&own, &[m, k], &a)
        .unwrap()
        .matmul(&Array::from_slice(&own, &[k, nn], &b).unwrap());
    // The reference order, computed here: `acc = acc + a·b` from k = 0, one rounding each
    // (the CPU reference's matmul runs blocked kernels, whose order differs).
    let mut w = vec![0f32; m * nn];
    for (o, w) in w.iter_mut().enumerate() {
        let (row, j) = (o / nn, o % nn);
        let mut acc = 0f32;
        for p in 0..k {
            acc += a[row * k + p] * b[p * nn + j];
        }
        *w = acc;
    }
    let g = g.expect("matmul").to_vec().expect("read");
    assert!(
        g.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()),
        "matmul differs"
    );
    // A fused axpy with a scalar: equal bits too (no FMA).
    let x = Array::from_slice(&hip, &[n], &values(n, 10)).unwrap();
    let y = Array::from_slice(&hip, &[n], &values(n, 11)).unwrap();
    let xc = Array::from_slice(&cpu, &[n], &values(n, 10)).unwrap();
    let yc = Array::from_slice(&cpu, &[n], &values(n, 11)).unwrap();
    let g: Vec<f32> = (&x * 1.7f32 + &y)
        .eval()
        .expect("eval")
        .to_vec()
        .expect("read");
    let w: Vec<f32> = (&xc * 1.7f32 + &yc)
        .eval()
        .expect("eval")
        .to_vec()
        .expect("read");
    assert!(
        g.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()),
        "axpy differs"
    );
}

/// Products through the vendor BLAS (cuBLAS / rocBLAS): every BLAS type, 2-D, batched,
/// broadcast on either side and offset views, within the suite's rounding bound of the CPU
/// reference; and they really went through the library (a handle was created).
#[test]
fn vendor_blas_products_match_cpu_within_rounding() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    let shapes: [(&[usize], &[usize]); 6] = [
        (&[257, 300], &[300, 129]),
        (&[1, 1], &[1, 1]),
        (&[8, 64, 65], &[8, 65, 33]),
        (&[8, 64, 65], &[65, 33]),
        (&[1, 64, 65], &[8, 65, 33]),
        (&[3, 17, 1], &[3, 1, 19]),
    ];
    for (da, db) in shapes {
        let (na, nb): (usize, usize) = (da.iter().product(), db.iter().product());
        let (va, vb) = (values(na, 21), values(nb, 22));
        let k = da[da.len() - 1];
        // Σ|a||b| ≤ k for values in [-1, 1).
        let bound = k as f32;
        let got = Array::from_slice(&hip, da, &va)
            .and_then(|a| a.matmul(&Array::from_slice(&hip, db, &vb)?))
            .and_then(|c| c.to_vec())
            .expect("hip");
        let want = Array::from_slice(&cpu, da, &va)
            .and_then(|a| a.matmul(&Array::from_slice(&cpu, db, &vb)?))
            .and_then(|c| c.to_vec())
            .expect("cpu");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(close(*g, *w, k, bound), "{da:?}·{db:?} [{i}]: {g} vs {w}");
        }
        // f64 and both complex types, same shapes.
        let to64 = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
        let g64 = Array::from_slice(&hip, da, &to64(&va))
            .and_then(|a| a.matmul(&Array::from_slice(&hip, db, &to64(&vb))?))
            .and_then(|c| c.to_vec())
            .expect("hip f64");
        let w64 = Array::from_slice(&cpu, da, &to64(&va))
            .and_then(|a| a.matmul(&Array::from_slice(&cpu, db, &to64(&vb))?))
            .and_then(|c| c.to_vec())
            .expect("cpu f64");
        for (g, w) in g64.iter().zip(&w64) {
            assert!(
                (g - w).abs() <= (k as f64 + 2.0) * f64::EPSILON * k as f64,
                "f64 {g} vs {w}"
            );
        }
        let c32 = |v: &[f32], s: f32| {
            v.iter()
                .map(|&x| gpuarrays_core::Complex32::new(x, x * s))
                .collect::<Vec<_>>()
        };
        let gc = Array::from_slice(&hip, da, &c32(&va, 0.5))
            .and_then(|a| a.matmul(&Array::from_slice(&hip, db, &c32(&vb, -0.25))?))
            .and_then(|c| c.to_vec())
            .expect("hip c32");
        let wc = Array::from_slice(&cpu, da, &c32(&va, 0.5))
            .and_then(|a| a.matmul(&Array::from_slice(&cpu, db, &c32(&vb, -0.25))?))
            .and_then(|c| c.to_vec())
            .expect("cpu c32");
        for (g, w) in gc.iter().zip(&wc) {
            assert!(
                close(g.re, w.re, 2 * k, 2.0 * bound) && close(g.im, w.im, 2 * k, 2.0 * bound),
                "c32 {g} vs {w}"
            );
        }
    }
    // Offsets: a view's rows reach the library at their element offset.
    let v = values(5 * 6 * 7, 23);
    let w = values(7 * 4, 24);
    let a = Array::from_slice(&hip, &[5, 6, 7], &v).expect("a");
    let bb = Array::from_slice(&hip, &[7, 4], &w).expect("b");
    let got = a
        .view(&[2..4, 0..6, 0..7])
        .and_then(|x| x.matmul(&bb))
        .and_then(|c| c.to_vec())
        .expect("hip view");
    let a = Array::from_slice(&cpu, &[5, 6, 7], &v).expect("a");
    let bb = Array::from_slice(&cpu, &[7, 4], &w).expect("b");
    let want = a
        .view(&[2..4, 0..6, 0..7])
        .and_then(|x| x.matmul(&bb))
        .and_then(|c| c.to_vec())
        .expect("cpu view");
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w, 7, 7.0), "view {g} vs {w}");
    }
    if hip.matmul_route() != MatmulRoute::Kernel {
        assert!(
            hip.blas().cache().stats().created >= 1,
            "the products went through the vendor BLAS ({})",
            hip.blas().version().unwrap_or_else(|e| e.to_string())
        );
    }
}

/// f16 and bf16 products (the libraries' mixed-precision entry points, tensor cores) against
/// the CPU reference: both sum in f32, in different orders, and round once, so they may differ
/// by the two f32 sums' errors plus one rounding of the half type. A long inner dimension
/// (4096) is among the shapes: it is where the library splits the sum (split-K).
#[test]
fn half_products_match_cpu_within_one_rounding() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    let shapes: [(&[usize], &[usize]); 4] = [
        (&[257, 300], &[300, 129]),
        (&[16, 4096], &[4096, 16]),
        (&[8, 64, 65], &[65, 33]),
        (&[1, 1], &[1, 1]),
    ];
    fn both<T: gpuarrays_core::Element>(
        hip: &HipBackend,
        cpu: &CpuBackend,
        da: &[usize],
        db: &[usize],
        va: &[T],
        vb: &[T],
    ) -> (Vec<T>, Vec<T>) {
        let got = Array::from_slice(hip, da, va)
            .and_then(|a| a.matmul(&Array::from_slice(hip, db, vb)?))
            .and_then(|c| c.to_vec())
            .expect("hip");
        let want = Array::from_slice(cpu, da, va)
            .and_then(|a| a.matmul(&Array::from_slice(cpu, db, vb)?))
            .and_then(|c| c.to_vec())
            .expect("cpu");
        (got, want)
    }
    for (da, db) in shapes {
        let (na, nb): (usize, usize) = (da.iter().product(), db.iter().product());
        let (va, vb) = (values(na, 31), values(nb, 32));
        let k = da[da.len() - 1];
        // Σ|a||b| ≤ k for values in [-1, 1); each side's f32 sum is within the suite's bound
        // of the exact sum, and each rounds once to the half type.
        let f32_part =
            2.0 * ((k + 2) as f32).min(4.0 * (k as f32).sqrt() + 16.0) * f32::EPSILON * k as f32;
        let within = |g: f32, w: f32, half_eps: f32| {
            (g - w).abs() <= f32_part + half_eps * g.abs().max(w.abs())
        };
        let h: (Vec<f16>, Vec<f16>) = (
            va.iter().map(|&x| f16::from_f32(x)).collect(),
            vb.iter().map(|&x| f16::from_f32(x)).collect(),
        );
        let (got, want) = both(&hip, &cpu, da, db, &h.0, &h.1);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                within(g.to_f32(), w.to_f32(), f16::EPSILON.to_f32()),
                "f16 {da:?}·{db:?} [{i}]: {g} vs {w}"
            );
        }
        let b: (Vec<bf16>, Vec<bf16>) = (
            va.iter().map(|&x| bf16::from_f32(x)).collect(),
            vb.iter().map(|&x| bf16::from_f32(x)).collect(),
        );
        let (got, want) = both(&hip, &cpu, da, db, &b.0, &b.1);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                within(g.to_f32(), w.to_f32(), bf16::EPSILON.to_f32()),
                "bf16 {da:?}·{db:?} [{i}]: {g} vs {w}"
            );
        }
    }
    if hip.matmul_route() != MatmulRoute::Kernel {
        assert!(
            hip.blas().cache().stats().created >= 1,
            "the half products went through the vendor BLAS ({})",
            hip.blas().version().unwrap_or_else(|e| e.to_string())
        );
    }
}

#[test]
fn work_of_one_thread_is_visible_to_another() {
    let Some(hip) = gpu() else { return };
    let n = 1 << 22;
    let x = Array::from_slice(&hip, &[n], &values(n, 12)).expect("upload");
    // Thread A computes (asynchronously, on its stream); thread B reads right after.
    let y = std::thread::scope(|s| {
        s.spawn(|| (&x * 2.0f32 + 1.0f32).eval::<f32>().expect("eval"))
            .join()
            .expect("thread A")
    });
    let got = std::thread::scope(|s| {
        s.spawn(|| y.to_vec().expect("read"))
            .join()
            .expect("thread B")
    });
    let want: Vec<f32> = values(n, 12).iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(got, want);
}
