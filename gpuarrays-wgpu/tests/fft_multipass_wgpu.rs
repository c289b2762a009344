//! The multi-pass FFT path on small data: workgroup lines capped at 16 points (for the whole
//! process, hence a test binary of its own), so a 4096-point axis takes three passes, and
//! the real-input crop and Hermitian-extension passes run. Against the CPU reference.

mod common;
mod fft_common;

#[test]
fn transforms_split_into_many_passes_match_the_cpu_reference() {
    let Some(gpu) = fft_common::open() else {
        return;
    };
    gpuarrays_wgpu::set_fft_line_limit(16);
    let worst = fft_common::all_cases(&gpu, 4096);
    fft_common::refusals(&gpu);
    gpuarrays_wgpu::set_fft_line_limit(0);
    println!("largest relative error: {worst:.2e}");
}
