//! gpuarrays: GPU array programming in Rust — one generic API over HIP (AMD and NVIDIA),
//! WebGPU and a CPU reference backend.
//!
//! ```ignore
//! use gpuarrays::prelude::*;
//!
//! let cpu = CpuBackend::new();
//! let x = Array::<f32, _>::from_vec(&cpu, vec![1.0, 2.0, 3.0])?;
//! let y: Array<f32, _> = (x.ex() * 2.0 + 1.0).eval()?;   // one fused kernel
//! assert_eq!(y.to_vec()?, vec![3.0, 5.0, 7.0]);
//! ```
//!
//! - everything of [`gpuarrays_core`] is re-exported at the top level (arrays, element
//!   types, the `Backend` trait, kernel descriptions, errors);
//! - [`cpu`]: the CPU reference backend; [`conformance`]: the conformance suite;
//! - [`backends`]: the backends compiled into this build and whether each is available.

pub use gpuarrays_core::*;

/// The CPU reference backend (`gpuarrays-cpu-ref`).
pub use gpuarrays_cpu_ref as cpu;

/// The conformance suite (`gpuarrays-conformance`).
pub use gpuarrays_conformance as conformance;

/// The HIP backend (`gpuarrays-hip`): AMD through ROCm, NVIDIA through CUDA.
#[cfg(feature = "hip")]
pub use gpuarrays_hip as hip;

pub mod backends;

/// What most programs need: `use gpuarrays::prelude::*;`.
pub mod prelude {
    pub use gpuarrays_core::{
        Array, Backend, Complex32, Complex64, DType, Element, Error, Expr, RawArray, Result, Scalar,
    };
    pub use gpuarrays_cpu_ref::CpuBackend;
}
