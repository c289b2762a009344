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
