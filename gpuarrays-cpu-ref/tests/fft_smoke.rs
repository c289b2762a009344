//! FFTs on the CPU reference against a direct DFT written here, over the lowering paths of
//! core: last axis, first axis, a middle axis (a loop of strided calls), 2-D runs, real
//! transforms, crop/pad, norms, derived inputs. The full matrix is in the conformance suite.

use gpuarrays_core::{Array, Complex64, FftNorm};
use gpuarrays_cpu_ref::CpuBackend;

fn data(n: usize, seed: u64) -> Vec<Complex64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = (x % 2000) as f64 / 1000.0 - 1.0;
            let b = ((x >> 20) % 2000) as f64 / 1000.0 - 1.0;
            Complex64::new(a, b)
        })
        .collect()
}

/// The DFT of `x` (shape `dims`, row-major) along `axis`, direct sum.
fn dft_axis(x: &[Complex64], dims: &[usize], axis: usize, inverse: bool) -> Vec<Complex64> {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = vec![Complex64::new(0.0, 0.0); x.len()];
    for o in 0..outer {
        for i in 0..inner {
            for k in 0..n {
                let mut acc = Complex64::new(0.0, 0.0);
                for j in 0..n {
                    let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    acc += x[(o * n + j) * inner + i] * Complex64::from_polar(1.0, angle);
                }
                out[(o * n + k) * inner + i] = acc;
            }
        }
    }
    out
}

fn close(got: &[Complex64], want: &[Complex64]) {
    assert_eq!(got.len(), want.len());
    let scale: f64 = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).norm() <= 1e-9 * scale,
            "element {i}: got {g}, want {w}"
        );
    }
}

#[test]
fn complex_transforms_along_every_kind_of_axis() {
    let cpu = CpuBackend::new();
    let dims = [3, 5, 4];
    let x = data(60, 1);
    let a = Array::from_slice(&cpu, &dims, &x).unwrap();
    for axis in 0..3 {
        let got = a
            .fft(None, axis, FftNorm::Backward)
            .unwrap()
            .to_vec()
            .unwrap();
        close(&got, &dft_axis(&x, &dims, axis, false));
    }
    let both = a.fftn(None, Some(&[0, 2]), FftNorm::Backward).unwrap();
    let want = dft_axis(&dft_axis(&x, &dims, 0, false), &dims, 2, false);
    close(&both.to_vec().unwrap(), &want);
    let all = a.fftn(None, None, FftNorm::Backward).unwrap();
    let back = all.ifftn(None, None, FftNorm::Backward).unwrap();
    close(&back.to_vec().unwrap(), &x);
}

#[test]
fn real_transforms_crop_pad_and_norms() {
    let cpu = CpuBackend::new();
    let re: Vec<f64> = data(14, 2).iter().map(|c| c.re).collect();
    let a = Array::from_slice(&cpu, &[2, 7], &re).unwrap();
    // rfft with n = 9 (zero-padded) along the last axis, ortho.
    let got = a.rfft(Some(9), 1, FftNorm::Ortho).unwrap();
    assert_eq!(got.dims(), &[2, 5]);
    let mut padded = vec![Complex64::new(0.0, 0.0); 18];
    for r in 0..2 {
        for c in 0..7 {
            padded[r * 9 + c] = Complex64::new(re[r * 7 + c], 0.0);
        }
    }
    let full = dft_axis(&padded, &[2, 9], 1, false);
    let want: Vec<Complex64> = (0..2)
        .flat_map(|r| (0..5).map(move |k| (r, k)))
        .map(|(r, k)| full[r * 9 + k] / 3.0)
        .collect();
    close(&got.to_vec().unwrap(), &want);
    // irfft back to 9 points recovers the padded signal.
    let back = got.irfft(Some(9), 1, FftNorm::Ortho).unwrap();
    let back: Vec<Complex64> = back
        .to_vec()
        .unwrap()
        .iter()
        .map(|&v| Complex64::new(v, 0.0))
        .collect();
    close(&back, &padded);
    // fft of real input is promoted; a derived (offset) input works.
    let view = a.view(&[1..2, 0..7]).unwrap();
    let got = view
        .fft(Some(5), 1, FftNorm::Forward)
        .unwrap()
        .to_vec()
        .unwrap();
    let row: Vec<Complex64> = re[7..12].iter().map(|&v| Complex64::new(v, 0.0)).collect();
    let want: Vec<Complex64> = dft_axis(&row, &[5], 0, false)
        .iter()
        .map(|v| v / 5.0)
        .collect();
    close(&got, &want);
}
