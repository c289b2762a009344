//! gpuarrays-core: element types, storage, derived arrays, the `Backend` trait and the
//! backend-neutral array operations.
//!
//! | concept | type | file |
//! |---|---|---|
//! | element types | [`Element`], [`DType`], [`Scalar`] | `element.rs`, `dtype.rs`, `scalar.rs` |
//! | `DType` → Rust type | [`dispatch_dtype!`] | `dtype_dispatch.rs` |
//! | storage | [`DataRef`] (refcounted buffer, destructor runs once) | `data_ref.rs` |
//! | arrays | [`Array<T, B>`], [`RawArray<B>`] | `array.rs` |
//! | derived arrays (strided views) | `view`, `slice`, `reshape`, `reinterpret`; `at` + [`s!`]; `permute`, `reverse`, `broadcast_to`, `diagonal`, ... | `derive.rs`, `slicing.rs`, `views.rs` |
//! | capabilities | [`OpKind`], [`Support`], [`TypeRule`] (a leaf); [`ensure_supported`] | `capability.rs`; `support.rs` |
//! | the backend trait | [`Backend`] | `backend.rs` |
//! | the small-backend kit: every kernel on the host, the trait's defaults | [`host`] | `host/` |
//! | kernel descriptions | [`kernel::Program`], [`kernel::ReduceArgs`], ... | `kernel/` |
//! | fused expressions | [`Expr`] | `ops/expr.rs` |
//! | FFTs (NumPy semantics), fftfreq/fftshift | [`FftNorm`], `Array::fft`, ..., [`kernel::FftArgs`] | `ops/fft.rs`, `ops/fft_lowering.rs`, `ops/fft_helpers.rs`, `kernel/fft.rs` |
//! | statistics (`var`, `std`, `logsumexp`) and vector helpers (`norm`, `dot`, `vdot`, `outer`), composed of other kernels | [`NormOrd`], `Array::var`, ... | `ops/statistics.rs`, `ops/linalg.rs` |
//! | handle cache | [`handle_cache::HandleCache`] | `handle_cache/` |
//!
//! Core is safe Rust (`#![forbid(unsafe_code)]`): it decides shapes, types and lifetimes,
//! and only backends touch memory, so every `unsafe` block of the project sits in a backend
//! next to the memory it is about.

#![forbid(unsafe_code)]

pub mod array;
mod array_display;
pub mod backend;
// Statistics and the sampling loop of the timing programs (benches, `gpuarrays bench`);
// not part of the API.
#[doc(hidden)]
pub mod bench_stats;
pub mod capability;
pub mod data_ref;
mod derive;
pub mod device;
pub mod dtype;
mod dtype_dispatch;
pub mod element;
pub mod error;
mod error_kind;
pub mod graph;
pub mod handle_cache;
pub mod host;
pub mod kernel;
pub mod memory;
pub mod ops;
pub mod profiling;
pub mod scalar;
mod scalar_format;
pub mod shape;
mod slicing;
pub mod support;
mod sync;
#[cfg(test)]
mod test_backend;
mod views;

pub use array::{Array, RawArray};
pub use backend::Backend;
pub use capability::{OpKind, Support, TypeRule};
pub use data_ref::DataRef;
pub use device::{DeviceInfo, SubnormalFlush};
pub use dtype::DType;
pub use element::Element;
pub use error::{Error, ErrorKind, Result};
pub use graph::{Graph, GraphReplay, capture};
pub use half::{bf16, f16};
pub use kernel::IndexMode;
pub use memory::{MemoryStats, MemoryTracker};
pub use num_complex::{Complex32, Complex64};
pub use ops::{Expr, FftElement, FftNorm, Indexing, NormOrd, Pad, Side, SortOrder, Unique};
pub use scalar::Scalar;
pub use slicing::{NEW_AXIS, SliceArg};
pub use support::ensure_supported;
