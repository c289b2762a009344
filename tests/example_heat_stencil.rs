//! The heat-stencil example against NumPy: the same steps on the same grid, written with
//! NumPy slices in float32, compared element by element. On the CPU reference every
//! operation rounds once in f32, as NumPy's do, so the grids agree to a few ulps; wgpu
//! (where there is an adapter) is held to the same tolerance.
//!
//! Without NumPy the test is skipped with the reason, unless `GPUARRAYS_REQUIRE_NUMPY=1`.

#[path = "../examples/heat_stencil/stencil.rs"]
mod stencil;

use std::process::Command;

use gpuarrays::BackendKind;
use gpuarrays::prelude::*;

const NUMPY: &str = r#"
import sys, numpy as np
n, steps, alpha = int(sys.argv[1]), int(sys.argv[2]), np.float32(sys.argv[3])
u = np.zeros((n, n), np.float32)
u[0, :] = 1
u[n // 4:3 * n // 4, n // 4:3 * n // 4] = 0.5
for _ in range(steps):
    c = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - c * np.float32(4)
    u[1:-1, 1:-1] = c + lap * alpha
sys.stdout.buffer.write(u.astype('<f4').tobytes())
"#;

fn numpy_grid(n: usize, steps: usize, alpha: f32) -> Option<Vec<f32>> {
    let out = Command::new("python3")
        .args([
            "-c",
            NUMPY,
            &n.to_string(),
            &steps.to_string(),
            &alpha.to_string(),
        ])
        .output();
    match out {
        Ok(o) if o.status.success() => Some(
            o.stdout
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
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

fn check<B: Backend>(b: &B, want: &[f32], n: usize, steps: usize, alpha: f32) {
    let u = stencil::initial(b, n).unwrap();
    stencil::run(&u, steps, alpha).unwrap();
    let got = u.to_vec().unwrap();
    assert_eq!(got.len(), want.len());
    let mut worst = 0f32;
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g - w).abs();
        assert!(err <= 1e-5, "{}: element {k} = {g}, NumPy {w}", b.name());
        worst = worst.max(err);
    }
    eprintln!(
        "{}: {n}x{n}, {steps} steps, largest difference from NumPy {worst:e}",
        b.name()
    );
}

#[test]
fn heat_stencil_matches_numpy() {
    let (n, steps, alpha) = (48, 60, 0.2f32);
    let Some(want) = numpy_grid(n, steps, alpha) else {
        return;
    };
    // The grid changed: the test would notice a stencil that does nothing.
    assert!(
        want.iter()
            .filter(|&&x| x != 0.0 && x != 0.5 && x != 1.0)
            .count()
            > n * n / 4
    );
    check(&CpuBackend::new(), &want, n, steps, alpha);
    match AnyBackend::open(BackendKind::Wgpu, 0) {
        Ok(w) => check(&w, &want, n, steps, alpha),
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter: {e}")
        }
        Err(e) => eprintln!("wgpu skipped: {e}"),
    }
}
