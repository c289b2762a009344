//! Run-time generated kernels: one HIP-dialect C++ source per kernel family and element type,
//! compiled by hiprtc (AMD) or NVRTC (NVIDIA) through [`crate::Platform::compile`], cached in
//! memory per device and on disk ([`cache`]).
//!
//! | family | file | kernels |
//! |---|---|---|
//! | fused elementwise (incl. casts, random) | [`elementwise`] | codegen from a `Program`, specialised on each operand's access |
//! | reductions (8 ops) | [`reduce`] | rows: thread/warp/block(+partials); columns: split axis (+partials) |
//! | inclusive scans | [`scan`] | rows: tiles with a block scan and carries; columns: split axis with carries |
//! | sort | [`sort`] | bitonic network over order-preserving keys |
//! | find | [`find`] | count, scan, scatter |
//! | matmul | [`matmul`] | 16×16 shared-memory tiles |
//!
//! Shared pieces: the [`prelude`] (types, complex arithmetic, NaN rules, warp shuffles with
//! the device's warp size), [`ctypes`] and [`ops`] (element types and operation semantics as
//! C++ expressions), [`combine`] (warp/block reduce and scan), [`args`] (parameter packing)
//! and [`device::DeviceKernels`] (per-device state and launching).

pub mod args;
pub mod cache;
pub mod combine;
pub mod ctypes;
pub mod device;
pub mod elementwise;
pub mod find;
pub mod matmul;
pub mod ops;
pub mod prelude;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod sort;

pub use cache::{CacheStats, DiskCache, KERNEL_CACHE_ENV, KernelSource, Module, ModuleCache};
pub use device::DeviceKernels;
pub use prelude::Dialect;
