//! The host path of a tiny fused op (`a*x + y` on 1024 f32) on the platform test double, and a
//! counting allocator: shared by the `host_path` bench (allocations, instructions and time per
//! call) and the `host_path_allocations` test (which pins the allocation count).
//!
//! The double runs no kernels, so what is measured is host work only: the user API
//! (`Expr` building, lowering, layout simplification, checks), the backend's enqueue (kernel
//! lookup, ordering protocol, argument packing) and the double's own `launch_kernel` (a
//! mutex and a map lookup; the real driver's cost is measured on the GPU machine instead).
//! Race detection and the operation log of the double are off: they are test machinery whose
//! cost is not the product's.

#![allow(dead_code)]

use std::sync::Arc;

// The counting allocator, shared with the workspace's top-level allocation tests.
#[path = "../../../benches/common/counting_alloc.rs"]
mod counting_alloc;
pub use counting_alloc::*;

// The one definition of the tiny op's program, shared with the workspace's top-level benches.
#[path = "../../../benches/common/axpy_program.rs"]
mod axpy_program;
pub use axpy_program::{axpy_args, axpy_program};

use gpuarrays_core::kernel::{ElementwiseArgs, Program};
use gpuarrays_core::{Array, Backend};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakePlatform};
use gpuarrays_hip::{HipBackend, HipBuffer, HipRuntime, RuntimeConfig};

/// Elements of the tiny op (the size of the H200 host figures).
pub const SMALL: usize = 1024;

/// A backend on the test double with the arrays of the tiny op.
pub struct Setup {
    pub platform: Arc<FakePlatform>,
    pub backend: HipBackend,
    pub x: Array<f32, HipBackend>,
    pub y: Array<f32, HipBackend>,
    pub z: Array<f32, HipBackend>,
}

impl Setup {
    /// Panics if the double cannot be set up (a bench or test program).
    pub fn new() -> Setup {
        let platform = Arc::new(FakePlatform::new(FakeConfig {
            detect_races: false,
            keep_log: false,
            ..FakeConfig::default()
        }));
        let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("runtime");
        let backend = HipBackend::with_runtime(rt, 0, DiskCache::off()).expect("backend");
        let xs: Vec<f32> = (0..SMALL).map(|i| i as f32 * 0.5).collect();
        let ys: Vec<f32> = (0..SMALL).map(|i| 1.0 - i as f32).collect();
        let x = Array::from_slice(&backend, &[SMALL], &xs).expect("x");
        let y = Array::from_slice(&backend, &[SMALL], &ys).expect("y");
        let z = Array::zeros(&backend, &[SMALL]).expect("z");
        Setup {
            platform,
            backend,
            x,
            y,
            z,
        }
    }

    /// Three buffers of the tiny op's size for the kernel-level path (x, y, z): buffers of
    /// the caller's own, as a backend caller would have. Give them back with `release`.
    pub fn kernel_buffers(&self) -> [HipBuffer; 3] {
        let bytes = SMALL * 4;
        [(); 3].map(|()| self.backend.alloc(bytes).expect("a buffer of the tiny op"))
    }

    /// Synchronises and releases buffers from `kernel_buffers`.
    pub fn release(&self, buffers: [HipBuffer; 3]) {
        self.backend.synchronize().expect("sync");
        for b in buffers {
            self.backend.release(b);
        }
    }
}

/// One call through the user API: `(x * 1.5 + y).eval_into(z)`. Not inlined, so that
/// `callgrind --toggle-collect` can count exactly its instructions.
#[inline(never)]
pub fn user_api_call(
    x: &Array<f32, HipBackend>,
    y: &Array<f32, HipBackend>,
    z: &mut Array<f32, HipBackend>,
) {
    (x * 1.5f32 + y).eval_into(z).expect("eval_into");
}

/// One call of `Backend::elementwise` with prebuilt arguments (not inlined, as above).
#[inline(never)]
pub fn backend_call(
    backend: &HipBackend,
    program: &Program,
    args: &ElementwiseArgs<'_, HipBuffer>,
) {
    backend.elementwise(program, args).expect("elementwise");
}
