//! SAXPY, `y = a·x + y`, written once for every backend and run on the backend chosen at run
//! time: the GPU where there is one, else the CPU (`GPUARRAYS_BACKEND=cpu|hip|wgpu` forces one).
//!
//! ```text
//! cargo run --release --example saxpy            # 1 Mi elements
//! cargo run --release --example saxpy -- 10000000
//! ```

use gpuarrays::prelude::*;

/// `y = a·x + y` in one fused kernel: the expression is built first, then evaluated into `y`
/// in a single pass over memory (no temporary for `a·x`).
fn saxpy<B: Backend>(a: f32, x: &Array<f32, B>, y: &mut Array<f32, B>) -> Result<()> {
    let expr = x.ex() * a + y.ex();
    expr.eval_into(y)
}

fn main() -> Result<()> {
    let n: usize = match std::env::args().nth(1) {
        None => 1 << 20,
        Some(arg) => match arg.parse() {
            Ok(n) => n,
            Err(e) => {
                eprintln!("the argument is an element count, got {arg:?}: {e}");
                std::process::exit(2);
            }
        },
    };
    let backend = default_backend()?;
    println!("device: {}", backend.device());

    // x = 0, 1, 2, ...; y = 2 everywhere.
    let x = Array::<f32, _>::arange(&backend, 0.0, 1.0, n)?;
    let mut y = Array::<f32, _>::full(&backend, &[n], 2.0)?;

    // A GPU backend compiles the kernel on its first use (tens of milliseconds): do that on a
    // tiny array, so that the timing below measures the pass over memory.
    let mut warm = Array::<f32, _>::zeros(&backend, &[4])?;
    saxpy(1.0, &Array::<f32, _>::zeros(&backend, &[4])?, &mut warm)?;
    backend.synchronize()?;

    let start = std::time::Instant::now();
    saxpy(3.0, &x, &mut y)?;
    backend.synchronize()?; // GPU work is asynchronous: wait before reading the clock
    let elapsed = start.elapsed();

    // Check on the host: every element is exactly 3·i + 2 (all values are integers that f32
    // represents exactly up to 2^24).
    let host = y.to_vec()?;
    let wrong = host
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != 3.0 * i as f32 + 2.0)
        .count();
    println!("y[..4] = {:?}", &host[..host.len().min(4)]);
    println!(
        "{n} elements in {:.3} ms ({:.1} GB/s: two reads and one write of 4 bytes each)",
        elapsed.as_secs_f64() * 1e3,
        12.0 * n as f64 / elapsed.as_secs_f64() / 1e9
    );
    println!("sum(y) = {}, max(y) = {}", y.sum()?, y.max()?);
    if wrong > 0 {
        eprintln!("{wrong} elements differ from 3·i + 2");
        std::process::exit(1);
    }
    println!("all {n} elements equal 3·i + 2");
    Ok(())
}
