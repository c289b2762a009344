//! wgpu FFT throughput: complex f32 (NumPy's c64) 2^20-point 1-D, 1024×1024 2-D and a batch
//! of 1024 transforms of 4096 points, each through the public API (`fft`, `fft2`) exactly as
//! users call it (the output allocation, from the buffer pool, included).
//!
//! Every figure is the median over 7 repetitions of (the time of `k` back-to-back
//! transforms followed by one wait) / `k`: wall time, which on a GPU adds one submit and
//! wait per `k` transforms. (On branches whose `WgpuBackend` has `device_time`, the rows
//! belong in `benches/wgpu_timings.rs`, timed with its device-side `time`: [`fft_rows`]
//! takes the timing function as an argument for that.) "GB/s" counts one read and one write
//! of the complex data (what a single-pass FFT would move), in 10⁹ bytes per second.
//! `WGPU_FFT_BENCH_SMALL=1` runs a quarter of each size (e.g. on lavapipe).

use gpuarrays_core::bench_stats::{Plan, Wait, median, sample};
use gpuarrays_core::{Array, Backend, Complex32, FftNorm};
use gpuarrays_wgpu::WgpuBackend;

/// Median wall seconds per operation over 7 repetitions of `k` operations and one wait.
fn time(b: &WgpuBackend, k: usize, f: impl FnMut()) -> (f64, &'static str) {
    let plan = Plan {
        warmup: 2,
        samples: 7,
        calls: k,
        wait: Wait::Inside,
    };
    let wall = sample(plan, f, || b.synchronize().expect("synchronize"));
    (median(wall), "wall")
}

/// The FFT rows: `(label, seconds, clock, GB/s)`, timed by `time(k, f)`.
fn fft_rows(
    b: &WgpuBackend,
    shrink: usize,
    mut time: impl FnMut(usize, &mut dyn FnMut()) -> (f64, &'static str),
) -> Vec<(String, f64, &'static str, f64)> {
    let mut rows = Vec::new();
    let nb = FftNorm::Backward;
    let data = |n: usize| -> Vec<Complex32> {
        (0..n)
            .map(|i| Complex32::new(((i * 7919) % 1000) as f32 / 500.0 - 1.0, 0.25))
            .collect()
    };
    let mut row = |label: String, dims: &[usize], f: &dyn Fn(&Array<Complex32, WgpuBackend>)| {
        let n: usize = dims.iter().product();
        let a = Array::<Complex32, _>::from_slice(b, dims, &data(n)).expect("input");
        let (t, clock) = time(10, &mut || f(&a));
        let gbs = 2.0 * 8.0 * n as f64 / t / 1e9;
        rows.push((label, t, clock, gbs));
    };
    let n1 = (1usize << 20) / shrink;
    row(format!("fft c64 1-D {n1}"), &[n1], &|a| {
        a.fft(None, 0, nb).expect("fft");
    });
    let side = 1024 / shrink.isqrt().max(1);
    row(format!("fft2 c64 {side}x{side}"), &[side, side], &|a| {
        a.fft2(None, None, nb).expect("fft2");
    });
    let batch = 1024 / shrink;
    row(
        format!("fft c64 batched {batch}x4096 (last axis)"),
        &[batch, 4096],
        &|a| {
            a.fft(None, 1, nb).expect("batched fft");
        },
    );
    rows
}

fn main() {
    let b = match WgpuBackend::new() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("fft_timings: no wgpu adapter ({e}); nothing to measure");
            return;
        }
    };
    let shrink = if std::env::var("WGPU_FFT_BENCH_SMALL").is_ok_and(|v| v == "1") {
        4
    } else {
        1
    };
    println!("adapter: {}", b.adapter());
    println!(
        "workgroup storage {} bytes; max storage binding {} MiB",
        b.limits().max_compute_workgroup_storage_size,
        b.limits().max_storage_buffer_binding_size >> 20
    );
    println!(
        "{:<44} {:>12} {:>7} {:>9}",
        "transform", "time (µs)", "clock", "GB/s"
    );
    let bb = b.clone();
    for (label, t, clock, gbs) in fft_rows(&b, shrink, |k, f| time(&bb, k, f)) {
        println!("{label:<44} {:>12.1} {clock:>7} {gbs:>9.2}", t * 1e6);
    }
}
