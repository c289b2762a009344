//! gpuarrays-cpu-ref: the CPU reference backend (rayon).
//!
//! It is the oracle GPU backends are checked against, so it is written to be right first:
//! every element type and operation, the exact semantics of `gpuarrays_core::kernel`, and
//! results that never depend on the number of threads (work is split into fixed-size blocks
//! combined in a fixed order). It is itself checked against a scalar oracle (the conformance
//! crate) and against NumPy (`tests/numpy_crosscheck.rs`).
//!
//! | file | what |
//! |---|---|
//! | `backend.rs` | `CpuBackend`, the `Backend` impl |
//! | `buffer/` | `CpuBuffer`, aligned host memory with checked raw access; `Stored<T>`, how it holds each element type; `access.rs`, the ordering of calls of several threads on one buffer |
//! | `parallel.rs` | whether a kernel may split its work over the pool (not on a rayon worker holding locks) |
//! | `elementwise/` | the block evaluator of fused expressions (`plan.rs`: a program compiled per call; `instructions.rs`: each instruction's kernel; `kernel.rs`: the kernels' loops; `layout.rs`: gather and scatter) |
//! | `reduce.rs`, `scan.rs`, `sort.rs`, `matmul.rs` | the other kernels |
//! | `indexing.rs` | gathers and scatters (deterministic: each task owns whole target elements) |
//! | `fft.rs` | FFTs with rustfft, plans in a bounded `HandleCache` |
//!
//! The per-type arithmetic (`gpuarrays_core::host::semantics`) and the serial pieces of the
//! axis kernels and FFTs (`gpuarrays_core::host`) live in core, shared with the small-backend
//! kit; this crate adds the parallel split, the buffer access and the plan cache.

mod backend;
mod buffer;
mod elementwise;
mod error;
mod fft;
mod indexing;
mod matmul;
mod parallel;
mod reduce;
mod scan;
mod sort;

pub use backend::CpuBackend;
pub use buffer::CpuBuffer;
pub use error::CpuError;
