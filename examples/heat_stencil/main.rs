//! Heat diffusion on a plate with 2-D slices (strided views), on the backend chosen at run
//! time (the GPU where there is one, else the CPU; `GPUARRAYS_BACKEND=cpu|hip|wgpu`).
//!
//! ```text
//! cargo run --release --example heat_stencil
//! ```

mod stencil;

use gpuarrays::prelude::*;

fn main() -> Result<()> {
    let backend = default_backend()?;
    println!("device: {}", backend.device());
    let (n, steps, alpha) = (256, 500, 0.2f32);
    let u = stencil::initial(&backend, n)?;
    let before = u.sum()?;
    stencil::run(&u, steps, alpha)?;
    println!("{n} x {n} plate, {steps} steps of alpha = {alpha}");
    println!(
        "heat before: {before:.3}, after: {:.3} (the hot edge feeds it)",
        u.sum()?
    );
    // The middle column, every 32nd row: warm near the hot edge, cooler below.
    let column = u.at(&s![..;32, n / 2])?;
    println!("middle column every 32 rows: {:.3?}", column.to_vec()?);
    let edge = u.at(&s![0, ..])?;
    if edge.min()? != 1.0 || edge.max()? != 1.0 {
        eprintln!("the boundary changed: it must keep its values");
        std::process::exit(1);
    }
    println!("{}", u.at(&s![..;64, ..;64])?);
    Ok(())
}
