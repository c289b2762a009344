//! The whole suite against the CPU reference, large sums, argmax, multi-level scans.

use super::*;

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
