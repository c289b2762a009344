//! Checks of the scans: every row scan of the kernel policy against the CPU reference, and
//! the special values (NaN, infinities, signed zeros) through each.

use super::*;

/// Cumsums (f32 within the suite's bound, i32 exact also from an unaligned view, u8 exact,
/// f64 cumprod on the first shape) with every row scan, and the same bits twice.
pub fn scans(hip: &HipBackend, shapes: &[&[usize]]) {
    let cpu = CpuBackend::new();
    let _one = CHOICE.lock();
    for mode in RowScan::ALL {
        hip.kernels().update_policy(|p| p.row_scan = Some(mode));
        for (k, dims) in shapes.iter().enumerate() {
            let n: usize = dims.iter().product();
            let axis = dims.len() - 1;
            let len = dims[axis];
            let w = words(n, 100 + k as u64);
            let xf: Vec<f32> = w
                .iter()
                .map(|&x| (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                .collect();
            let run = |b: &HipBackend| Array::from_slice(b, dims, &xf).and_then(|a| a.cumsum(axis));
            let got = run(hip)
                .and_then(|a| a.to_vec())
                .unwrap_or_else(|e| panic!("{mode:?} {dims:?}: {e}"));
            let want = Array::from_slice(&cpu, dims, &xf)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("cpu");
            let mut abs = 0.0f64;
            for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                abs = if i % len == 0 { 0.0 } else { abs } + xf[i].abs() as f64;
                assert!(
                    close(*g as f64, *r as f64, i % len + 1, abs, f32::EPSILON as f64),
                    "{mode:?} f32 {dims:?} at {i}: got {g}, want {r}"
                );
            }
            let again = run(hip).and_then(|a| a.to_vec()).expect("again");
            assert!(
                got.iter()
                    .zip(&again)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{mode:?} {dims:?}: two runs differ"
            );
            let xi: Vec<i32> = w.iter().map(|&x| (x % 2001) as i32 - 1000).collect();
            let want = Array::from_slice(&cpu, dims, &xi)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("cpu");
            let got = Array::from_slice(hip, dims, &xi)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("i32");
            assert_eq!(got, want, "{mode:?} i32 {dims:?}");
            // An odd offset: the rows are not 16-byte aligned (no vector loads).
            let shifted =
                Array::from_slice(hip, &[n + 1], &[&[7], &xi[..]].concat()).expect("upload");
            let idims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            let got = shifted
                .slice(1..n + 1)
                .and_then(|v| v.reshape(&idims))
                .and_then(|v| v.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("i32 unaligned");
            assert_eq!(got, want, "{mode:?} i32 {dims:?} (unaligned)");
            if k > 0 {
                continue;
            }
            let xd: Vec<f64> = w
                .iter()
                .map(|&x| ((x >> 11) as f64 / (1u64 << 53) as f64) * 1e-6 + 1.0)
                .collect();
            let got = Array::from_slice(hip, dims, &xd)
                .and_then(|a| a.cumprod(axis))
                .and_then(|a| a.to_vec())
                .expect("f64 cumprod");
            let want = Array::from_slice(&cpu, dims, &xd)
                .and_then(|a| a.cumprod(axis))
                .and_then(|a| a.to_vec())
                .expect("cpu");
            for (i, (g, r)) in got.iter().zip(&want).enumerate() {
                let tol = 4.0 * ((i % len + 2) as f64) * f64::EPSILON * r.abs();
                assert!(
                    (g - r).abs() <= tol,
                    "{mode:?} f64 cumprod at {i}: {g} vs {r}"
                );
            }
            let xu: Vec<u8> = w.iter().map(|&x| x as u8).collect();
            let got = Array::from_slice(hip, dims, &xu)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("u8");
            let want = Array::from_slice(&cpu, dims, &xu)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("cpu");
            assert_eq!(got, want, "{mode:?} u8 {dims:?}");
        }
    }
    hip.kernels().reset_policy();
}

/// Cumsums of f32 rows holding the special values, with every row scan: all -0.0 rows keep
/// -0.0 bit for bit; a row with +inf then -inf (inf from the first, NaN from the second) and
/// a row with a NaN (NaN from there on) agree with the CPU in class, finite values within the
/// suite's bound.
pub fn scan_special_values(hip: &HipBackend, dims: &[usize]) {
    let cpu = CpuBackend::new();
    let _one = CHOICE.lock();
    let n: usize = dims.iter().product();
    let axis = dims.len() - 1;
    let len = dims[axis];
    let zeros = vec![-0.0f32; n];
    let mut special: Vec<f32> = words(n, 7)
        .iter()
        .map(|&x| (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
        .collect();
    for (r, row) in special.chunks_mut(len).enumerate() {
        match r % 3 {
            0 => {
                row[len / 3] = f32::INFINITY;
                row[2 * len / 3] = f32::NEG_INFINITY;
            }
            1 => row[len - len / 4 - 1] = f32::NAN,
            _ => row[len / 2] = -0.0,
        }
    }
    for mode in RowScan::ALL {
        hip.kernels().update_policy(|p| p.row_scan = Some(mode));
        let on_hip = |x: &[f32]| {
            Array::from_slice(hip, dims, x)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .unwrap_or_else(|e| panic!("{mode:?} {dims:?}: {e}"))
        };
        let on_cpu = |x: &[f32]| {
            Array::from_slice(&cpu, dims, x)
                .and_then(|a| a.cumsum(axis))
                .and_then(|a| a.to_vec())
                .expect("cpu")
        };
        let got = on_hip(&zeros);
        assert!(
            got.iter().all(|g| g.to_bits() == (-0.0f32).to_bits()),
            "{mode:?} {dims:?}: a cumsum of -0.0 must stay -0.0"
        );
        let got = on_hip(&special);
        let want = on_cpu(&special);
        let mut abs = 0.0f64;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            abs = if i % len == 0 { 0.0 } else { abs } + special[i].abs() as f64;
            let ok = if w.is_finite() {
                close(*g as f64, *w as f64, i % len + 1, abs, f32::EPSILON as f64)
            } else {
                same(g, w)
            };
            assert!(ok, "{mode:?} {dims:?} special at {i}: got {g}, want {w}");
        }
    }
    hip.kernels().reset_policy();
}

/// Cumsums and cummaxes of f16 and bf16 with every row scan, along rows and along columns
/// (split columns: carries in memory), bit for bit equal to the CPU reference: the inputs are
/// multiples of 1/64 in −2..2, so every running sum is exact in f32 whatever the association,
/// and each output is that sum rounded once. The running sums need more bits than a half
/// holds, so a tile total or carry rounded to the half type would show.
pub fn half_scans(hip: &HipBackend, shapes: &[(&[usize], usize)]) {
    let cpu = CpuBackend::new();
    let _one = CHOICE.lock();
    for mode in RowScan::ALL {
        hip.kernels().update_policy(|p| p.row_scan = Some(mode));
        for (k, &(dims, axis)) in shapes.iter().enumerate() {
            let n: usize = dims.iter().product();
            let xf: Vec<f32> = words(n, 300 + k as u64)
                .iter()
                .map(|&x| ((x >> 40) % 257) as f32 / 64.0 - 2.0)
                .collect();
            fn check<T: Element + PartialEq + std::fmt::Debug>(
                hip: &HipBackend,
                cpu: &CpuBackend,
                what: &str,
                dims: &[usize],
                axis: usize,
                x: &[T],
            ) {
                for max in [false, true] {
                    let run = |a: Array<T, _>| if max { a.cummax(axis) } else { a.cumsum(axis) };
                    let got = Array::from_slice(hip, dims, x)
                        .and_then(run)
                        .and_then(|a| a.to_vec())
                        .unwrap_or_else(|e| panic!("{what} {dims:?} axis {axis}: {e}"));
                    let want = Array::from_slice(cpu, dims, x)
                        .and_then(|a| if max { a.cummax(axis) } else { a.cumsum(axis) })
                        .and_then(|a| a.to_vec())
                        .expect("cpu");
                    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                        panic!(
                            "{what} {dims:?} axis {axis} (max {max}) at {i}: got {:?}, want {:?}",
                            got[i], want[i]
                        );
                    }
                }
            }
            let h: Vec<f16> = xf.iter().map(|&v| f16::from_f32(v)).collect();
            check(hip, &cpu, &format!("{mode:?} f16"), dims, axis, &h);
            let b: Vec<bf16> = xf.iter().map(|&v| bf16::from_f32(v)).collect();
            check(hip, &cpu, &format!("{mode:?} bf16"), dims, axis, &b);
        }
    }
    hip.kernels().reset_policy();
}
