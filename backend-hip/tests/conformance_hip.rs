//! The HIP backend on a real GPU: the whole conformance suite against the CPU reference, and
//! targeted checks of the paths only large inputs reach (split reductions, multi-level
//! scans, global sort merges, bit-exact random numbers and own-kernel matmul, products
//! through the vendor BLAS, determinism, cross-thread ordering).
//!
//! Without a GPU or driver every test prints why and passes; with `GPUARRAYS_REQUIRE_GPU=1`
//! (set by `.gpu/env.sh` on the GPU machine) a missing GPU fails instead.

use gpuarrays_conformance::{SuiteConfig, SuiteReport};
use gpuarrays_core::{Array, Backend};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::blas::MatmulRoute;
use gpuarrays_hip::kernels::DiskCache;

fn gpu() -> Option<HipBackend> {
    match HipBackend::new(0) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_GPU=1 but the HIP backend is unavailable: {e}"
            );
            eprintln!("skipped: no HIP device ({e})");
            None
        }
    }
}

/// A deterministic pseudo-random f32 in [-1, 1) (SplitMix64).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 23) as f32) - 1.0
        })
        .collect()
}

/// Relative error bound for sums of n terms: the suite's min(n + 2, 4√n + 16) ε Σ|x|.
fn close(got: f32, want: f32, n: usize, abs_sum: f32) -> bool {
    let units = ((n + 2) as f32).min(4.0 * (n as f32).sqrt() + 16.0);
    (got - want).abs() <= units * f32::EPSILON * abs_sum.max(f32::MIN_POSITIVE)
}

#[test]
fn conformance_suite_matches_cpu_reference() {
    let Some(hip) = gpu() else { return };
    let quick = std::env::var("GPUARRAYS_CONFORMANCE_QUICK").is_ok_and(|v| v == "1");
    let started = std::time::Instant::now();
    // One thread per element type (rows are keyed "op/dtype"): the rows share the device and
    // its kernel cache, each thread on its own pooled stream, and kernels compile in parallel.
    let reports: Vec<SuiteReport> = std::thread::scope(|s| {
        let handles: Vec<_> = gpuarrays_core::DType::ALL
            .iter()
            .map(|d| {
                let hip = hip.clone();
                let cfg = SuiteConfig {
                    quick,
                    ..SuiteConfig::default()
                }
                .with_filter(format!("/{}", d.name()));
                s.spawn(move || gpuarrays_conformance::run(&hip, &cfg))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("suite thread panicked"))
            .collect()
    });
    let mut report = SuiteReport::default();
    let mut seen = std::collections::HashSet::new();
    for r in reports {
        for row in r.rows {
            if seen.insert(row.key()) {
                report.rows.push(row);
            }
        }
    }
    println!("{}", report.table());
    println!("{}", report.summary());
    let stats = hip.kernels().cache_stats();
    println!(
        "device '{}': {} rows in {:.1} s; kernels compiled {}, from disk {}, loaded {}",
        hip.device().name,
        report.rows.len(),
        started.elapsed().as_secs_f64(),
        stats.compiled,
        stats.disk_hits,
        stats.loaded
    );
    assert!(!report.rows.is_empty(), "the suite ran no rows");
    assert!(report.ok(), "{}", report.failure_details());
}

#[test]
fn large_sums_are_deterministic_and_accurate() {
    let Some(hip) = gpu() else { return };
    let n = (1 << 24) + 3;
    let x = values(n, 1);
    let a = Array::from_slice(&hip, &[n], &x).expect("upload");
    let first = a.sum().expect("sum");
    let second = a.sum().expect("sum");
    assert_eq!(first.to_bits(), second.to_bits(), "two runs differ");
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let abs: f32 = x.iter().map(|v| v.abs()).sum();
    assert!(close(first, exact as f32, n, abs), "sum {first} vs {exact}");
    // Split rows (outer < blocks wanted) and columns with splits of the axis.
    let (r, c) = (3, 700_001);
    let m = Array::from_slice(&hip, &[r, c], &x[..r * c]).expect("upload");
    let cpu = CpuBackend::new();
    let mc = Array::from_slice(&cpu, &[r, c], &x[..r * c]).expect("upload");
    for axis in 0..2 {
        let g = m.sum_axis(axis).expect("sum axis").to_vec().expect("read");
        let w = mc.sum_axis(axis).expect("sum axis").to_vec().expect("read");
        let len = if axis == 0 { r } else { c };
        for (i, (g, w)) in g.iter().zip(&w).enumerate() {
            assert!(
                close(*g, *w, len, len as f32),
                "axis {axis} [{i}]: {g} vs {w}"
            );
        }
    }
    let t = Array::from_slice(&hip, &[5000, 7], &x[..35_000]).expect("upload");
    let tc = Array::from_slice(&cpu, &[5000, 7], &x[..35_000]).expect("upload");
    let g = t.sum_axis(0).expect("sum").to_vec().expect("read");
    let w = tc.sum_axis(0).expect("sum").to_vec().expect("read");
    for (g, w) in g.iter().zip(&w) {
        assert!(close(*g, *w, 5000, 5000.0), "{g} vs {w}");
    }
}

#[test]
fn argmax_finds_the_first_nan_and_first_extreme() {
    let Some(hip) = gpu() else { return };
    let n = 3_000_017;
    let mut x = values(n, 2);
    x[2_000_000] = 5.0;
    x[2_500_000] = 5.0;
    let a = Array::from_slice(&hip, &[n], &x).expect("upload");
    assert_eq!(a.argmax().expect("argmax"), 2_000_000);
    x[2_900_000] = f32::NAN;
    x[2_950_000] = f32::NAN;
    let a = Array::from_slice(&hip, &[n], &x).expect("upload");
    assert_eq!(a.argmax().expect("argmax"), 2_900_000);
    assert_eq!(a.argmin().expect("argmin"), 2_900_000);
    assert!(a.max().expect("max").is_nan());
}

#[test]
fn multi_level_scans_match_cpu() {
    let Some(hip) = gpu() else { return };
    let cpu = CpuBackend::new();
    // 1-D: three levels of tiles. Integers are exact.
    let n = (1 << 22) + 7;
    let xi: Vec<i64> = values(n, 3).iter().map(|v| (v * 1000.0) as i64).collect();
    let g = Array::from_slice(&hip, &[n], &xi)
        .expect("upload")
        .cumsum(0)
        .expect("cumsum");
    let w = Array::from_slice(&cpu, &[n], &xi)
        .expect("upload")
        .cumsum(0)
        .expect("cumsum");
    assert_eq!(g.to_vec().expect("read"), w.to_vec().expect("read"));
    // Floats: the look-back carries are one fixed left fold of tile totals, so two runs give
    // the same bits; and the prefixes are within the suite's cumsum tolerance of the CPU's.
    let xf = values(n, 13);
    let a = Array::from_slice(&hip, &[n], &xf).expect("upload");
    let g1 = a.cumsum(0).expect("cumsum").to_vec().expect("read");
    let g2 = a.cumsum(0).expect("cumsum").to_vec().expect("read");
    assert!(
        g1.iter().zip(&g2).all(|(p, q)| p.to_bits() == q.to_bits()),
        "cumsum runs differ"
    );
    let (mut exact, mut abs) = (0f64, 0f32);
    for (k, (&v, &g)) in xf.iter().zip(&g1).enumerate() {
        exact += v as f64;
        abs += v.abs();
        assert!(close(g, exact as f32, k + 1, abs), "[{k}] {g} vs {exact}");
    }
    // Several rows of many tiles: look-backs stop at each row's first tile.
    let xr: Vec<i32> = values(3 * 300_001, 14)
        .iter()
        .map(|v| (v * 100.0) as i32)
        .collect();
    let g = Array::from_slice(&hip, &[3, 300_001], &xr)
        .expect("upload")
        .cumsum(1)
        .expect("cumsum");
    let w = Array::from_slice(&cpu, &[3, 300_001], &xr)
        .expect("upload")
        .cumsum(1)
        .expect("cumsum");
    assert_eq!(g.to_vec().expect("read"), w.to_vec().expect("read"));
    // Strided axis with splits and carries.
    let (o, l, i) = (2, 40_000, 3);
    let xs: Vec<i32> = values(o * l * i, 4)
        .iter()
        .map(|v| (v * 50.0) as i32)
        .collect();
    let g = Array::from_slice(&hip, &[o, l, i], &xs)
        .expect("upload")
        .cumsum(1)
        .expect("cumsum");
    let w = Array::from_slice(&cpu, &[o, l, i], &xs)
        .expect("upload")
        .cumsum(1)
        .expect("cumsum");
    assert_eq!(g.to_vec().expect("read"), w.to_vec().expect("read"));
}

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
    // request): contraction off and k accumulated in order, as on the CPU: equal bits. A
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
    let w = Array::from_slice(&cpu, &[m, k], &a)
        .unwrap()
        .matmul(&Array::from_slice(&cpu, &[k, nn], &b).unwrap());
    let (g, w) = (
        g.expect("matmul").to_vec().expect("read"),
        w.expect("matmul").to_vec().expect("read"),
    );
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
