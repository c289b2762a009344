//! k-means clustering with gathers and scatters, on the backend chosen at run time (the GPU
//! where there is one, else the CPU; `GPUARRAYS_BACKEND=cpu|hip|wgpu`).
//!
//! ```text
//! cargo run --release --example kmeans
//! ```

mod kmeans;

use gpuarrays::prelude::*;

fn main() -> Result<()> {
    let backend = default_backend()?;
    println!("device: {}", backend.device());
    let (n, dim, k, iterations) = (100_000, 8, 5, 10);
    let x = Array::from_slice(&backend, &[n, dim], &kmeans::blobs(n, dim, k))?;
    let (labels, centroids) = kmeans::run(&x, k, iterations)?;
    println!("{n} points of {dim} coordinates, {k} clusters, {iterations} iterations");
    println!("inertia: {:.1}", kmeans::inertia(&x, &centroids, &labels)?);
    println!("cluster sizes: {:?}", labels.bincount(k)?.to_vec()?);
    println!("centroids:\n{centroids}");
    // Points were made round-robin over the clusters: each holds exactly n / k of them.
    if labels
        .bincount(k)?
        .to_vec()?
        .iter()
        .any(|&c| c != (n / k) as i64)
    {
        eprintln!("a cluster does not hold its n / k points");
        std::process::exit(1);
    }
    Ok(())
}
