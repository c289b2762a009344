//! Lloyd's k-means on any backend: distances through one matrix product, labels by
//! `argmin_axis`, new centroids by `index_add` (scatter-add of every point into its
//! cluster's row) and `bincount` (the cluster sizes), the inertia by `take` (each point's
//! centroid, gathered). No one-hot matrix: the update reads each point once.

use gpuarrays::prelude::*;

/// `n` points of `dim` coordinates around `k` centres (point `i` belongs to cluster
/// `i % k`), from a fixed integer hash: the same values on every machine.
pub fn blobs(n: usize, dim: usize, k: usize) -> Vec<f32> {
    let hash = |i: usize| {
        let mut z = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
        z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        ((z ^ (z >> 29)) >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    (0..n * dim)
        .map(|p| {
            let (i, j) = (p / dim, p % dim);
            let centre = ((i % k) * 7 + j * 3) % 11;
            centre as f32 * 2.0 - 10.0 + hash(p)
        })
        .collect()
}

/// One iteration: the label of every point (its nearest centroid; the first on a tie)
/// and the new centroids (the mean of each cluster; an empty cluster keeps its centroid).
pub fn step<B: Backend>(
    x: &Array<f32, B>,
    centroids: &Array<f32, B>,
) -> Result<(Array<i64, B>, Array<f32, B>)> {
    let (k, dim) = (centroids.dims()[0], centroids.dims()[1]);
    // |x − c|² = |x|² − 2·x·c + |c|²; |x|² is the same for every centroid of a point, so the
    // nearest centroid minimises |c|² − 2·x·c.
    let xc = x.matmul(&centroids.transpose()?)?;
    let cc = (centroids.ex() * centroids)
        .eval::<f32>()?
        .sum_axis(1)?
        .reshape(&[1, k as isize])?;
    let d: Array<f32, B> = (cc.ex() - xc.ex() * 2.0f32).eval()?;
    let labels = d.argmin_axis(1)?;
    let mut sums = Array::<f32, B>::zeros(x.backend(), &[k, dim])?;
    sums.index_add(0, &labels, x)?;
    let counts = labels
        .bincount(k)?
        .cast::<f32>()?
        .reshape(&[k as isize, 1])?;
    let next = counts
        .ex()
        .gt(0.0f32)
        .select(sums.ex() / &counts, centroids)
        .eval()?;
    Ok((labels, next))
}

/// Σ |x − centroid(x)|²: each point's centroid gathered by its label.
pub fn inertia<B: Backend>(
    x: &Array<f32, B>,
    centroids: &Array<f32, B>,
    labels: &Array<i64, B>,
) -> Result<f32> {
    let mine = centroids.take(labels, Some(0), IndexMode::Raise)?;
    let diff: Array<f32, B> = (x.ex() - &mine).eval()?;
    (diff.ex() * &diff).eval::<f32>()?.sum()
}

/// Runs `iterations` steps from the first `k` points; returns the labels and centroids.
pub fn run<B: Backend>(
    x: &Array<f32, B>,
    k: usize,
    iterations: usize,
) -> Result<(Array<i64, B>, Array<f32, B>)> {
    let mut centroids = x.view(&[0..k, 0..x.dims()[1]])?.copy()?;
    let mut labels = Array::<i64, B>::zeros(x.backend(), &[x.dims()[0]])?;
    for _ in 0..iterations {
        (labels, centroids) = step(x, &centroids)?;
    }
    Ok((labels, centroids))
}
