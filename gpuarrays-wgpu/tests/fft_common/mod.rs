//! FFT cases shared by `fft_wgpu.rs` (the device's workgroup line limit) and
//! `fft_multipass_wgpu.rs` (a small limit, so every transform takes several passes): each
//! runs on the wgpu backend and on the CPU reference (rustfft), and the results must agree
//! to a tolerance that grows with `log2 n`, relative to the largest output magnitude.

use gpuarrays_core::{Array, Backend, Complex32, ErrorKind, FftNorm};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

pub fn open() -> Option<WgpuBackend> {
    crate::common::open_or_skip(&WgpuOptions {
        adapter: None,
        profile: Profile::Adapter,
        binding_limit: None,
        ..WgpuOptions::default()
    })
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (((i * 7919 + seed * 104_729) % 1000) as f32 / 500.0) - 1.0)
        .collect()
}

fn complex(n: usize, seed: usize) -> Vec<Complex32> {
    let (re, im) = (values(n, seed), values(n, seed + 1));
    re.into_iter()
        .zip(im)
        .map(|(a, b)| Complex32::new(a, b))
        .collect()
}

/// Max |got − want| over max |want| (at least 1), as f64.
fn rel_err(got: &[Complex32], want: &[Complex32]) -> f64 {
    assert_eq!(got.len(), want.len(), "result lengths differ");
    let scale = want.iter().map(|z| z.norm() as f64).fold(1.0, f64::max);
    let err = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).norm() as f64)
        .fold(0.0, f64::max);
    err / scale
}

fn tolerance(points: usize) -> f64 {
    4e-7 * (points.max(2) as f64).log2() + 1e-6
}

pub fn check(label: &str, points: usize, got: &[Complex32], want: &[Complex32]) -> f64 {
    let e = rel_err(got, want);
    println!("{label}: relative error {e:.2e}");
    assert!(
        e <= tolerance(points),
        "{label}: relative error {e:.3e} > {:.3e}",
        tolerance(points)
    );
    e
}

fn real(v: Vec<f32>) -> Vec<Complex32> {
    v.into_iter().map(|x| Complex32::new(x, 0.0)).collect()
}

/// Runs `f` on both backends for complex input `dims` and compares.
fn c2c(
    gpu: &WgpuBackend,
    label: &str,
    dims: &[usize],
    points: usize,
    f: impl Fn(&Array<Complex32, WgpuBackend>) -> gpuarrays_core::Result<Array<Complex32, WgpuBackend>>,
    g: impl Fn(&Array<Complex32, CpuBackend>) -> gpuarrays_core::Result<Array<Complex32, CpuBackend>>,
) -> f64 {
    let cpu = CpuBackend::new();
    let n: usize = dims.iter().product();
    let data = complex(n, n + dims.len());
    let a = Array::from_slice(gpu, dims, &data).unwrap();
    let b = Array::from_slice(&cpu, dims, &data).unwrap();
    let got = f(&a).unwrap_or_else(|e| panic!("{label}: {e}"));
    let want = g(&b).unwrap();
    assert_eq!(got.dims(), want.dims(), "{label}: shapes");
    check(
        label,
        points,
        &got.to_vec().unwrap(),
        &want.to_vec().unwrap(),
    )
}

/// Every case; returns the largest relative error seen.
pub fn all_cases(gpu: &WgpuBackend, big: usize) -> f64 {
    let mut worst = 0.0f64;
    let nb = FftNorm::Backward;
    for n in [1usize, 2, 4, 8, 64, 1024, big] {
        for rows in [1usize, 3] {
            let label = format!("fft [{rows}, {n}] axis 1");
            worst = worst.max(c2c(
                gpu,
                &label,
                &[rows, n],
                n,
                |a| a.fft(None, 1, nb),
                |a| a.fft(None, 1, nb),
            ));
            let label = format!("ifft ortho [{rows}, {n}] axis 1");
            let o = FftNorm::Ortho;
            worst = worst.max(c2c(
                gpu,
                &label,
                &[rows, n],
                n,
                |a| a.ifft(None, 1, o),
                |a| a.ifft(None, 1, o),
            ));
        }
    }
    // Strided batches: the first axis (stride = inner), a middle axis (several calls with
    // offsets), odd non-transformed extents.
    worst = worst.max(c2c(
        gpu,
        "fft [256, 6] axis 0",
        &[256, 6],
        256,
        |a| a.fft(None, 0, nb),
        |a| a.fft(None, 0, nb),
    ));
    worst = worst.max(c2c(
        gpu,
        "fft [3, 128, 5] axis 1",
        &[3, 128, 5],
        128,
        |a| a.fft(None, 1, nb),
        |a| a.fft(None, 1, nb),
    ));
    worst = worst.max(c2c(
        gpu,
        "fft [5, 64, 3] axis 1",
        &[5, 64, 3],
        64,
        |a| a.fft(None, 1, nb),
        |a| a.fft(None, 1, nb),
    ));
    worst = worst.max(c2c(
        gpu,
        &format!("fft [{big}, 2] axis 0"),
        &[big, 2],
        big,
        |a| a.fft(None, 0, nb),
        |a| a.fft(None, 0, nb),
    ));
    // Several axes, crop/pad to powers of two, norms.
    worst = worst.max(c2c(
        gpu,
        "fft2 [64, 32]",
        &[64, 32],
        2048,
        |a| a.fft2(None, None, nb),
        |a| a.fft2(None, None, nb),
    ));
    worst = worst.max(c2c(
        gpu,
        "ifftn [8, 16, 32]",
        &[8, 16, 32],
        4096,
        |a| a.ifftn(None, None, nb),
        |a| a.ifftn(None, None, nb),
    ));
    worst = worst.max(c2c(
        gpu,
        "fftn [2, 8, 4, 16] axes 0,1,2,3",
        &[2, 8, 4, 16],
        4096,
        |a| a.fftn(None, Some(&[0, 1, 2, 3]), nb),
        |a| a.fftn(None, Some(&[0, 1, 2, 3]), nb),
    ));
    worst = worst.max(c2c(
        gpu,
        "fftn [6, 16, 8] axes 0,2 s=[8, 4] forward",
        &[6, 16, 8],
        32,
        |a| a.fftn(Some(&[8, 4]), Some(&[0, 2]), FftNorm::Forward),
        |a| a.fftn(Some(&[8, 4]), Some(&[0, 2]), FftNorm::Forward),
    ));
    worst = worst.max(c2c(
        gpu,
        &format!("fft2 [4, {big}]"),
        &[4, big],
        4 * big,
        |a| a.fft2(None, None, nb),
        |a| a.fft2(None, None, nb),
    ));
    // A derived input: rows 1..4 of a larger array (an offset into its buffer).
    worst = worst.max(c2c(
        gpu,
        "fft of a view [1..4, 0..256]",
        &[5, 256],
        256,
        |a| a.view(&[1..4, 0..256])?.fft(None, 1, nb),
        |a| a.view(&[1..4, 0..256])?.fft(None, 1, nb),
    ));
    // Real transforms.
    let cpu = CpuBackend::new();
    for (dims, axes) in [
        (vec![3usize, 64], vec![1usize]),
        (vec![big], vec![0]),
        (vec![2, big], vec![1]),
        (vec![16, 32], vec![0, 1]),
        (vec![8, 4, 16], vec![0, 1, 2]),
        (vec![32, 6], vec![0]),
    ] {
        let n: usize = dims.iter().product();
        let points: usize = axes.iter().map(|&a| dims[a]).product();
        let data = values(n, 5);
        let a = Array::from_slice(gpu, &dims, &data).unwrap();
        let b = Array::from_slice(&cpu, &dims, &data).unwrap();
        let label = format!("rfftn {dims:?} axes {axes:?}");
        let got = a
            .rfftn(None, Some(&axes), nb)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let want = b.rfftn(None, Some(&axes), nb).unwrap();
        assert_eq!(got.dims(), want.dims(), "{label}: shapes");
        worst = worst.max(check(
            &label,
            points,
            &got.to_vec().unwrap(),
            &want.to_vec().unwrap(),
        ));
        // And back: irfftn of the CPU's spectrum.
        let spec = want.to_vec().unwrap();
        let s: Vec<usize> = axes.iter().map(|&a| dims[a]).collect();
        let ga = Array::from_slice(gpu, want.dims(), &spec).unwrap();
        let ca = Array::from_slice(&cpu, want.dims(), &spec).unwrap();
        let label = format!("irfftn {dims:?} axes {axes:?}");
        let got = ga
            .irfftn(Some(&s), Some(&axes), nb)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let want = ca.irfftn(Some(&s), Some(&axes), nb).unwrap();
        assert_eq!(got.dims(), want.dims(), "{label}: shapes");
        worst = worst.max(check(
            &label,
            points,
            &real(got.to_vec().unwrap()),
            &real(want.to_vec().unwrap()),
        ));
    }
    worst
}

/// Lengths that are not powers of two and double precision are refused with
/// `Error::Unsupported` naming the backend, never computed.
pub fn refusals(gpu: &WgpuBackend) {
    let a = Array::from_slice(gpu, &[12], &complex(12, 1)).unwrap();
    let e = a.fft(None, 0, FftNorm::Backward).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("not a power of two"), "{e}");
    let e = a.fft(Some(7), 0, FftNorm::Backward).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(
        !gpu.supports(gpuarrays_core::DType::C64, gpuarrays_core::OpKind::Fft)
            .is_yes()
    );
    assert!(
        gpu.supports(gpuarrays_core::DType::C32, gpuarrays_core::OpKind::Fft)
            .is_yes()
    );
}
