//! gpuarrays: GPU array programming in Rust. Write array code once, generic over a
//! [`Backend`], and run it on whichever backend the program picks when it starts.
//!
//! ```
//! use gpuarrays::prelude::*;
//!
//! /// Written once, for every backend.
//! fn scale_and_shift<B: Backend>(x: &Array<f32, B>) -> Result<Array<f32, B>> {
//!     (x.ex() * 2.0 + 1.0).eval() // one fused kernel
//! }
//!
//! fn main() -> Result<()> {
//!     // The CPU reference backend, by name ...
//!     let cpu = CpuBackend::new();
//!     let x = Array::<f32, _>::from_vec(&cpu, vec![1.0, 2.0, 3.0])?;
//!     assert_eq!(scale_and_shift(&x)?.to_vec()?, vec![3.0, 5.0, 7.0]);
//!
//!     // ... or the best device of this machine: a GPU where there is one, else the CPU
//!     // (`GPUARRAYS_BACKEND=cpu|hip|wgpu|hip:1` forces one).
//!     let backend = default_backend()?;
//!     println!("running on {}", backend.device());
//!     let x = Array::<f32, _>::from_vec(&backend, vec![1.0, 2.0, 3.0])?;
//!     assert_eq!(scale_and_shift(&x)?.to_vec()?, vec![3.0, 5.0, 7.0]);
//!     Ok(())
//! }
//! ```
//!
//! The backends (each GPU backend behind a cargo feature of this crate):
//!
//! | backend | module | cargo feature | runs on |
//! |---|---|---|---|
//! | CPU reference (`gpuarrays-cpu-ref`) | [`cpu`] | — | the CPU (rayon); every type and operation, checked against a scalar oracle |
//! | HIP (`gpuarrays-hip`) | `hip` | `hip` | AMD GPUs through ROCm, NVIDIA GPUs through CUDA (runtimes loaded at run time) |
//! | WebGPU (`gpuarrays-wgpu`) | `wgpu` | `wgpu` (on by default) | any GPU through Vulkan, Metal or DX12 |
//!
//! What this crate holds:
//! - everything of [`gpuarrays_core`] re-exported at the top level (arrays, element types,
//!   the `Backend` trait, kernel descriptions, errors);
//! - [`AnyBackend`]: one type over the compiled-in backends, chosen at run time by
//!   [`default_backend`] or [`choose_backend`]; [`BackendKind`] lists the backends;
//! - `conformance` (cargo feature `conformance`, off by default): the conformance suite;
//! - `io` (cargo feature `io`, off by default): `ndarray` conversion and `.npy`, `.npz`,
//!   `.safetensors` files.
//!
//! The `gpuarrays` command (`info`, `validate`) is the separate `gpuarrays-cli` crate.

#![forbid(unsafe_code)]

mod any_backend;

pub use any_backend::{
    AnyBackend, AnyBuffer, BACKEND_ENV, BackendChoice, BackendChoiceError, BackendFacts,
    BackendKind, CustomBackend, CustomBuffer, DynBackend, EventTimer, choose_backend,
    default_backend, default_backend_choice,
};
pub use gpuarrays_core::*;

/// The CPU reference backend (`gpuarrays-cpu-ref`).
pub use gpuarrays_cpu_ref as cpu;

/// The HIP backend (`gpuarrays-hip`): AMD through ROCm, NVIDIA through CUDA.
///
/// Opening a HIP device by hand (without a GPU runtime, the error says in one line what is
/// missing and what to install):
///
/// ```no_run
/// use gpuarrays::hip::HipBackend;
/// use gpuarrays::prelude::*;
///
/// fn main() -> Result<()> {
///     let hip = HipBackend::new(0)?;
///     let x = Array::<f32, _>::arange(&hip, 0.0, 1.0, 1000)?;
///     println!("{} on {}", x.sum()?, hip.device());
///     Ok(())
/// }
/// ```
#[cfg(feature = "hip")]
pub use gpuarrays_hip as hip;

/// The WebGPU backend (`gpuarrays-wgpu`): any GPU through Vulkan, Metal or DX12.
#[cfg(feature = "wgpu")]
pub use gpuarrays_wgpu as wgpu;

/// The conformance suite (`gpuarrays-conformance`).
#[cfg(feature = "conformance")]
pub use gpuarrays_conformance as conformance;

/// Reading and writing arrays (`gpuarrays-io`): `ndarray` conversion, NumPy `.npy`/`.npz`
/// and `.safetensors` files, for arrays on any backend.
#[cfg(feature = "io")]
pub use gpuarrays_io as io;

/// Profiler ranges (NVTX, roctx) for gpuarrays' operations.
#[cfg(feature = "profiling")]
pub mod profiling;

/// What most programs need: `use gpuarrays::prelude::*;`.
pub mod prelude {
    pub use crate::{AnyBackend, default_backend};
    pub use gpuarrays_core::{
        Array, Backend, Complex32, Complex64, DType, Element, Error, Expr, FftNorm, IndexMode,
        NEW_AXIS, RawArray, Result, Scalar, Side, SliceArg, SortOrder, s,
    };
    pub use gpuarrays_cpu_ref::CpuBackend;
}

/// The README's Rust examples, compiled and run as doctests (so the front page stays true).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
