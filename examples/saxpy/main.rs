//! SAXPY, `y = a·x + y`, written once for every backend and run on the CPU backend.
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
        Some(arg) => arg.parse().expect("the argument is an element count"),
        None => 1 << 20,
    };
    let backend = CpuBackend::new();
    println!("device: {}", backend.device());

    // x = 0, 1, 2, ...; y = 2 everywhere.
    let x = Array::<f32, _>::arange(&backend, 0.0, 1.0, n)?;
    let mut y = Array::<f32, _>::full(&backend, &[n], 2.0)?;

    let start = std::time::Instant::now();
    saxpy(3.0, &x, &mut y)?;
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
        "{n} elements in {:.2} ms ({:.1} GB/s: two reads and one write of 4 bytes each)",
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
