//! Choosing the backend at run time: which backends this build has, which one
//! `default_backend()` picks here and why, and the same generic function run on every device
//! that is available, each result checked against the CPU reference.
//!
//! ```text
//! cargo run --release --example choose_backend
//! GPUARRAYS_BACKEND=cpu cargo run --release --example choose_backend   # force the CPU
//! ```

use gpuarrays::prelude::*;
use gpuarrays::{BackendKind, default_backend_choice};

/// Written once: the root mean square of `x`, in one fused kernel plus one reduction.
fn rms<B: Backend>(x: &Array<f64, B>) -> Result<f64> {
    let squares = (x.ex() * x.ex()).eval::<f64>()?;
    Ok(squares.mean()?.sqrt())
}

fn main() -> Result<()> {
    println!("backends in this build: {}", BackendKind::compiled_names());

    // What a program usually does: take the default and go.
    let choice = default_backend_choice()?;
    println!("default backend: {}", choice.backend.device());
    for skipped in &choice.passed_over {
        println!("  passed over: {skipped}");
    }

    // The same function on every available device, against the CPU reference's answer.
    let reference = rms(&Array::<f64, _>::random_uniform(
        &CpuBackend::new(),
        &[1 << 16],
        7,
    )?)?;
    println!("rms of 65536 uniform numbers (seed 7) on the CPU reference: {reference:.12}");
    let mut mismatches = 0;
    for kind in BackendKind::compiled() {
        let devices = match AnyBackend::open_all(kind) {
            Ok(devices) => devices,
            Err(e) => {
                println!("{e}");
                continue;
            }
        };
        for backend in devices {
            // Same seed, same numbers on every backend (counter-based generator). A device
            // that cannot run f64 says so (an error naming the type, device and alternative).
            let got = match Array::<f64, _>::random_uniform(&backend, &[1 << 16], 7)
                .and_then(|x| rms(&x))
            {
                Ok(got) => got,
                Err(e) => {
                    println!("{}: {e}", backend.device());
                    continue;
                }
            };
            // Sums may add in another order on another device: equal to within rounding.
            let ok = (got - reference).abs() <= 1e-12 * reference;
            println!(
                "{}: {got:.12} {}",
                backend.device(),
                if ok { "(matches)" } else { "(DIFFERS)" }
            );
            mismatches += usize::from(!ok);
        }
    }
    if mismatches > 0 {
        eprintln!("{mismatches} device(s) disagree with the CPU reference");
        std::process::exit(1);
    }
    Ok(())
}
