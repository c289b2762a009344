//! The heat equation on a square plate, explicit (Jacobi) steps written with 2-D views:
//! `u[1:-1, 1:-1] += alpha * (up + down + left + right - 4 u[1:-1, 1:-1])`, each neighbour
//! a shifted view of the same grid. The boundary keeps its values (the top edge is hot).

use gpuarrays::prelude::*;

/// The starting grid: the top edge at 1, a square in the middle at 0.5, the rest 0.
pub fn initial<B: Backend>(b: &B, n: usize) -> Result<Array<f32, B>> {
    let u = Array::<f32, B>::zeros(b, &[n, n])?;
    u.at(&s![0, ..])?.fill(1.0)?;
    u.at(&s![n / 4..3 * n / 4, n / 4..3 * n / 4])?.fill(0.5)?;
    Ok(u)
}

/// `steps` explicit steps of size `alpha` (stable for `alpha <= 0.25`), in place.
pub fn run<B: Backend>(u: &Array<f32, B>, steps: usize, alpha: f32) -> Result<()> {
    let mut inner = u.at(&s![1..-1, 1..-1])?;
    let up = u.at(&s![..-2, 1..-1])?;
    let down = u.at(&s![2.., 1..-1])?;
    let left = u.at(&s![1..-1, ..-2])?;
    let right = u.at(&s![1..-1, 2..])?;
    for _ in 0..steps {
        // The neighbours overlap the interior being written: core evaluates the right-hand
        // side into a temporary first, so every step reads the previous grid (NumPy's rule).
        let laplacian = up.ex() + down.ex() + left.ex() + right.ex() - inner.ex() * 4.0f32;
        (inner.ex() + laplacian * alpha).eval_into(&mut inner)?;
    }
    Ok(())
}
