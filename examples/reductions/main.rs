//! Reductions over all elements and along axes, scans, comparisons, argmax and find, on a
//! table of seeded random numbers, on the backend chosen at run time (the GPU where there is
//! one, else the CPU; `GPUARRAYS_BACKEND=cpu|hip|wgpu` forces one).
//!
//! ```text
//! cargo run --release --example reductions
//! ```

use gpuarrays::kernel::ReduceOp;
use gpuarrays::prelude::*;

fn main() -> Result<()> {
    let backend = default_backend()?;
    println!("device: {}", backend.device());
    let (rows, cols) = (1000, 8);

    // A 1000 x 8 table of standard normal numbers. The generator is counter-based: the same
    // seed gives the same numbers on every backend.
    let x = Array::<f64, _>::random_normal(&backend, &[rows, cols], 42)?;

    // Over all elements.
    println!("all {} elements:", x.len());
    println!("  sum  = {:.6}", x.sum()?);
    println!("  mean = {:.6}   (close to 0)", x.mean()?);
    println!("  min  = {:.6} at flat index {}", x.min()?, x.argmin()?);
    println!("  max  = {:.6} at flat index {}", x.max()?, x.argmax()?);

    // Along an axis: axis 0 reduces over the rows (one value per column), axis 1 over the
    // columns (one value per row).
    let col_mean = x.mean_axis(0)?;
    let var = ((x.ex() - col_mean.ex()) * (x.ex() - col_mean.ex())).eval::<f64>()?; // broadcasts (1000, 8) - (8,)
    let col_var = var.mean_axis(0)?;
    println!("per column (axis 0):");
    println!("  mean     = {:.3?}", col_mean.to_vec()?);
    println!("  variance = {:.3?}   (close to 1)", col_var.to_vec()?);
    let row_max = x.max_axis(1)?;
    let which = x.argmax_axis(1)?;
    println!(
        "per row (axis 1): max of row 0 = {:.3} in column {}",
        row_max.to_vec()?[0],
        which.to_vec()?[0]
    );

    // Comparisons give bool arrays; any/all/find work on them.
    let big = x.ex().abs().gt(3.0).eval::<bool>()?;
    let positions = big.find()?.to_vec()?;
    println!(
        "|x| > 3 at {} positions (normal tails: about 0.27% of {} = {:.0}), first at {:?}",
        positions.len(),
        x.len(),
        0.0027 * x.len() as f64,
        big.find_first()?
    );
    println!(
        "any |x| > 3: {}, all |x| < 10: {}",
        big.any()?,
        x.ex().abs().lt(10.0).eval::<bool>()?.all()?
    );

    // Counting with a cast: bool -> i64, then sum.
    let count = big.cast::<i64>()?.sum()?;
    if count as usize != positions.len() {
        eprintln!(
            "the mask counts {count} but find() returned {} positions",
            positions.len()
        );
        std::process::exit(1);
    }

    // A running sum along the rows of column 0 (cumsum along axis 0), and the last value
    // equals that column's sum.
    let running = x.cumsum(0)?;
    let last_row = running.view(&[rows - 1..rows, 0..cols])?.to_vec()?;
    let col_sum = x.sum_axis(0)?.to_vec()?;
    println!(
        "cumsum along axis 0 ends at the column sums: {:.6} == {:.6}",
        last_row[0], col_sum[0]
    );
    // Both add the same 1000 terms, in orders that may differ: equal to within rounding.
    let bound = 1e-12 * x.ex().abs().eval::<f64>()?.sum()?;
    if (last_row[0] - col_sum[0]).abs() > bound {
        eprintln!("cumsum's last row differs from the column sum by more than {bound:e}");
        std::process::exit(1);
    }

    // Integer reductions wrap instead of overflowing.
    let ints = Array::<i32, _>::from_vec(&backend, vec![i32::MAX, 1, 2])?;
    let wrapped = ints.sum()?;
    println!("i32 sum of [MAX, 1, 2] wraps to {wrapped}");
    if wrapped != i32::MAX.wrapping_add(3) {
        eprintln!("expected {}", i32::MAX.wrapping_add(3));
        std::process::exit(1);
    }

    // Unsupported combinations are errors that say why, never wrong numbers.
    match x.cast_dyn(DType::C64)?.reduce(ReduceOp::Min, None) {
        Err(e) => println!("min of complex numbers: {e}"),
        Ok(_) => {
            eprintln!("the minimum of complex numbers was computed instead of rejected");
            std::process::exit(1);
        }
    }
    Ok(())
}
