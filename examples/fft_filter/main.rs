//! A low-pass filter in the frequency domain, written once for every backend and run on the
//! backend chosen at run time (`GPUARRAYS_BACKEND=cpu|hip` forces one): a 50 Hz tone plus a
//! 400 Hz tone, sampled at 2 kHz, goes through `rfft`, every bin above 100 Hz is zeroed
//! (`rfftfreq` gives each bin's frequency), and `irfft` brings the 50 Hz tone back.
//!
//! ```text
//! cargo run --release --example fft_filter
//! ```

use gpuarrays::prelude::*;

/// `x` without the frequencies above `cutoff` Hz (`rate`: samples per second).
fn low_pass<B: Backend>(x: &Array<f32, B>, rate: f64, cutoff: f64) -> Result<Array<f32, B>> {
    let n = x.len();
    let spectrum = x.rfft(None, 0, FftNorm::Backward)?;
    let freqs = Array::<f32, B>::rfftfreq(x.backend(), n, 1.0 / rate)?;
    // 1 where the bin's frequency is at most the cutoff, 0 above: one fused kernel.
    let keep: Array<Complex32, B> = freqs.ex().abs().le(cutoff).cast(DType::C32).eval()?;
    let filtered: Array<Complex32, B> = (spectrum.ex() * &keep).eval()?;
    filtered.irfft(Some(n), 0, FftNorm::Backward)
}

fn main() -> Result<()> {
    let backend = default_backend()?;
    println!("device: {}", backend.device());
    let (rate, n) = (2000.0, 4096);
    let tone = |f: f64, i: usize| (2.0 * std::f64::consts::PI * f * i as f64 / rate).sin();
    let samples: Vec<f32> = (0..n)
        .map(|i| (tone(50.0, i) + 0.5 * tone(400.0, i)) as f32)
        .collect();
    let x = Array::<f32, _>::from_vec(&backend, samples)?;
    let y = low_pass(&x, rate, 100.0)?.to_vec()?;
    // What is left is (nearly) the 50 Hz tone alone: compare away from the ends, where the
    // tones' non-integer number of periods smears a little energy across bins.
    let worst = (n / 8..n - n / 8)
        .map(|i| (y[i] as f64 - tone(50.0, i)).abs())
        .fold(0.0, f64::max);
    println!("largest deviation from the 50 Hz tone in the middle 3/4: {worst:.3}");
    if worst > 0.1 {
        eprintln!("the filter did not remove the 400 Hz tone");
        std::process::exit(1);
    }
    Ok(())
}
