//! The HIP backend on a real GPU: the whole conformance suite against the CPU reference, and
//! targeted checks of the paths only large inputs reach (split reductions, multi-level
//! scans, global sort merges, bit-exact random numbers and own-kernel matmul, products
//! through the vendor BLAS, determinism, cross-thread ordering).
//!
//! Without a GPU or driver every test prints why and passes; with `GPUARRAYS_REQUIRE_GPU=1`
//! (set by `.gpu/env.sh` on the GPU machine) a missing GPU fails instead.

use gpuarrays_conformance::{SuiteConfig, SuiteReport};
use gpuarrays_core::{Array, Backend};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::blas::MatmulRoute;
use gpuarrays_hip::kernels::DiskCache;

mod sorts_random_blas;
mod suite_and_scans;

fn gpu() -> Option<HipBackend> {
    match HipBackend::new(0) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_GPU=1 but the HIP backend is unavailable: {e}"
            );
            eprintln!("skipped: no HIP device ({e})");
            None
        }
    }
}

/// A deterministic pseudo-random f32 in [-1, 1) (SplitMix64).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 23) as f32) - 1.0
        })
        .collect()
}

/// Relative error bound for sums of n terms: the suite's min(n + 2, 4√n + 16) ε Σ|x|.
fn close(got: f32, want: f32, n: usize, abs_sum: f32) -> bool {
    let units = ((n + 2) as f32).min(4.0 * (n as f32).sqrt() + 16.0);
    (got - want).abs() <= units * f32::EPSILON * abs_sum.max(f32::MIN_POSITIVE)
}
