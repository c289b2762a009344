//! Run-time generated kernels: one HIP-dialect C++ source per kernel family and element type,
//! compiled by hiprtc (AMD) or NVRTC (NVIDIA) through [`crate::platform::KernelModules::compile`], cached in
//! memory per device and on disk ([`cache`]).
//!
//! | family | file | kernels |
//! |---|---|---|
//! | fused elementwise (incl. casts, random) | [`elementwise`] | codegen from a `Program`, specialised on each operand's access; permuting copies through shared-memory tiles of 1024 elements (32×32, or 8×128 and 16×64 when a side is short) |
//! | reductions (8 ops) | [`reduce`] | rows: thread/warp/block, partials combined by the last block; columns: split axis, partials combined by the last split |
//! | inclusive scans | [`scan`] | rows: one pass, carries from a fixed tree of tile aggregates (or 3 passes); columns: split axis with carries |
//! | sort | [`sort`] | LSD radix sort of order-preserving keys (onesweep, or one block per row); bitonic network for short rows |
//! | find | [`find`] | count, scan, scatter |
//! | search sorted | [`search`] | binary search of u32/u64 keys: the first steps in a shared-memory sample of the table, the rest through the cache |
//! | gather, scatter, scatter-add | [`indexing`] | one thread per point of the index space, per 16-byte row chunk along a contiguous inner axis; adds by atomics, through per-block shared-memory bins for few bins |
//! | matmul | [`matmul`] | 16×16 shared-memory tiles |
//!
//! Shared pieces: [`cpp`] (the C++ text every source is built from: the header, element
//! types, core's lowered primitives printed as C++, warp/block reduce and scan, the random
//! draws), [`args`] (parameter packing), [`cache`] (compiled modules) and [`DeviceKernels`] in
//! [`device_kernels`] (per-device kernel state, launching and scratch buffers).
//!
//! `DeviceKernels` holds one compiled-kernel set per family, keyed by the family's key type;
//! the families are functions that take the `DeviceKernels` they launch on. The elementwise
//! key ([`elementwise::layout::EwKey`]) is the one key defined inside its family, so
//! `device_kernels.rs` imports `elementwise/layout.rs`, a leaf, while `elementwise/mod.rs`
//! imports `device_kernels.rs`: no file-level loop.

pub mod args;
pub mod cache;
pub mod cpp;
pub mod device_kernels;
pub mod elementwise;
pub mod find;
pub mod indexing;
pub mod matmul;
pub mod reduce;
pub mod scan;
pub mod search;
pub mod sort;

pub use cache::{CacheStats, DiskCache, KERNEL_CACHE_ENV, KernelSource, Module, ModuleCache};
pub use cpp::Dialect;
pub use device_kernels::DeviceKernels;
