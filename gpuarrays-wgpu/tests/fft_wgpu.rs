//! FFTs on the wgpu backend against the CPU reference, with the device's workgroup line
//! limit (4096 points on most adapters): one pass per axis up to that length, two beyond.
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;
mod fft_common;

#[test]
fn power_of_two_transforms_match_the_cpu_reference() {
    let Some(gpu) = fft_common::open() else {
        return;
    };
    let worst = fft_common::all_cases(&gpu, 1 << 14);
    println!("largest relative error: {worst:.2e}");
}

#[test]
fn other_lengths_and_double_precision_are_reported_unsupported() {
    let Some(gpu) = fft_common::open() else {
        return;
    };
    fft_common::refusals(&gpu);
}

/// The direction is a parameter of the FFT kernels, not part of their source: an inverse
/// transform of a shape already transformed forward compiles nothing (compiling is most of
/// a first FFT's cost on a software adapter), and gives the CPU reference's values.
#[test]
fn an_inverse_transform_reuses_the_forward_kernels() {
    let Some(gpu) = fft_common::open() else {
        return;
    };
    let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    let dims = [3usize, 64];
    let data: Vec<gpuarrays_core::Complex32> = (0..dims.iter().product::<usize>())
        .map(|i| gpuarrays_core::Complex32::new((i % 7) as f32 - 3.0, (i % 5) as f32 * 0.5))
        .collect();
    let a = gpuarrays_core::Array::from_slice(&gpu, &dims, &data).expect("upload");
    let created = || gpu.pipeline_stats().created;
    let before = created();
    // Neither call scales its result (`Backward` scales the inverse, `Forward` the forward
    // transform), so only FFT kernels run.
    let y = a
        .fft(None, 1, gpuarrays_core::FftNorm::Backward)
        .expect("forward");
    let after_forward = created();
    assert!(
        after_forward > before,
        "the forward transform compiled no kernel ({before} pipelines before and after)"
    );
    let z = y
        .ifft(None, 1, gpuarrays_core::FftNorm::Forward)
        .expect("inverse");
    assert_eq!(
        created(),
        after_forward,
        "the inverse transform compiled kernels of its own"
    );
    let b = gpuarrays_core::Array::from_slice(&cpu, &dims, &data).expect("upload");
    let want = b
        .fft(None, 1, gpuarrays_core::FftNorm::Backward)
        .and_then(|y| y.ifft(None, 1, gpuarrays_core::FftNorm::Forward))
        .expect("cpu")
        .to_vec()
        .expect("read");
    let got = z.to_vec().expect("read");
    fft_common::check("ifft of fft [3, 64] axis 1", 64, &got, &want);
}
