//! The k-means example against NumPy: the same data, initial centroids and steps in
//! float32 with `np.add.at` and `np.bincount`, compared after every run. The labels must be
//! equal (the clusters are far apart, so no distance is a near tie) and the centroids equal
//! to float32 rounding (NumPy's matrix product and ours add in different orders).
//!
//! Without NumPy the test is skipped with the reason, unless `GPUARRAYS_REQUIRE_NUMPY=1`.

#[path = "../examples/kmeans/kmeans.rs"]
mod kmeans;

use std::io::Write;
use std::process::{Command, Stdio};

use gpuarrays::BackendKind;
use gpuarrays::prelude::*;

const NUMPY: &str = r#"
import sys, numpy as np
n, dim, k, iters = map(int, sys.argv[1:5])
x = np.frombuffer(sys.stdin.buffer.read(), dtype='<f4').reshape(n, dim)
c = x[:k].copy()
for _ in range(iters):
    d = (c * c).sum(axis=1)[None, :] - np.float32(2) * (x @ c.T)
    labels = d.argmin(axis=1)
    sums = np.zeros((k, dim), np.float32)
    np.add.at(sums, labels, x)
    counts = np.bincount(labels, minlength=k).astype(np.float32)[:, None]
    with np.errstate(all='ignore'):
        c = np.where(counts > 0, sums / counts, c).astype(np.float32)
sys.stdout.buffer.write(labels.astype('<i8').tobytes() + c.astype('<f4').tobytes())
"#;

struct Reference {
    labels: Vec<i64>,
    centroids: Vec<f32>,
}

fn numpy_kmeans(x: &[f32], n: usize, dim: usize, k: usize, iters: usize) -> Option<Reference> {
    let args = [n, dim, k, iters].map(|v| v.to_string());
    let child = Command::new("python3")
        .arg("-c")
        .arg(NUMPY)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let out = child.and_then(|mut c| {
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        c.stdin.take().expect("stdin").write_all(&bytes)?;
        c.wait_with_output()
    });
    match out {
        Ok(o) if o.status.success() && o.stdout.len() == n * 8 + k * dim * 4 => {
            let (l, c) = o.stdout.split_at(n * 8);
            Some(Reference {
                labels: l
                    .chunks_exact(8)
                    .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect(),
                centroids: c
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect(),
            })
        }
        other => {
            let why = format!("python3 with NumPy did not run the reference: {other:?}");
            if std::env::var("GPUARRAYS_REQUIRE_NUMPY").as_deref() == Ok("1") {
                panic!("GPUARRAYS_REQUIRE_NUMPY=1: {why}");
            }
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn check<B: Backend>(b: &B, x: &[f32], want: &Reference, shape: (usize, usize, usize, usize)) {
    let (n, dim, k, iters) = shape;
    let xa = Array::from_slice(b, &[n, dim], x).unwrap();
    let (labels, centroids) = kmeans::run(&xa, k, iters).unwrap();
    assert_eq!(
        labels.to_vec().unwrap(),
        want.labels,
        "{}: labels",
        b.name()
    );
    let got = centroids.to_vec().unwrap();
    let mut worst = 0f32;
    for (j, (g, w)) in got.iter().zip(&want.centroids).enumerate() {
        let err = (g - w).abs() / w.abs().max(1.0);
        assert!(
            err <= 1e-5,
            "{}: centroid value {j} = {g}, NumPy {w}",
            b.name()
        );
        worst = worst.max(err);
    }
    // The inertia gathers each point's centroid by its label (`take`).
    let inertia = kmeans::inertia(&xa, &centroids, &labels).unwrap() as f64;
    let host: f64 = (0..n * dim)
        .map(|p| {
            let c = want.labels[p / dim] as usize * dim + p % dim;
            (x[p] as f64 - want.centroids[c] as f64).powi(2)
        })
        .sum();
    assert!(
        (inertia - host).abs() <= 1e-4 * host,
        "{}: inertia {inertia}, from NumPy's clustering {host}",
        b.name()
    );
    eprintln!(
        "{}: {n} points, {k} clusters, {iters} iterations: labels equal, largest relative centroid difference {worst:e}",
        b.name()
    );
}

#[test]
fn kmeans_matches_numpy() {
    let shape @ (n, dim, k, iters) = (3000, 5, 6, 8);
    let x = kmeans::blobs(n, dim, k);
    let Some(want) = numpy_kmeans(&x, n, dim, k, iters) else {
        return;
    };
    // The reference did cluster: every cluster holds its n / k points, and the centroids
    // moved away from the first points.
    for c in 0..k as i64 {
        assert_eq!(want.labels.iter().filter(|&&l| l == c).count(), n / k);
    }
    assert_ne!(&want.centroids[..], &x[..k * dim]);
    check(&CpuBackend::new(), &x, &want, shape);
    match AnyBackend::open(BackendKind::Wgpu, 0) {
        Ok(w) => check(&w, &x, &want, shape),
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter: {e}")
        }
        Err(e) => eprintln!("wgpu skipped: {e}"),
    }
}
