//! gpuarrays-hip: the HIP backend of gpuarrays, on AMD GPUs (ROCm: libamdhip64 + hiprtc) and
//! NVIDIA GPUs (what HIP does there: the CUDA driver API + NVRTC), both loaded at run time, so
//! the crate builds and runs on a machine with neither (a missing runtime is a one-line error).
//!
//! Most programs only need [`HipBackend`], an implementation of `gpuarrays_core::Backend`;
//! its errors convert into core's, so `?` works in code returning `gpuarrays_core::Result`:
//!
//! ```
//! use gpuarrays_core::{Array, Result};
//! use gpuarrays_hip::HipBackend;
//!
//! fn double_on_gpu() -> Result<Vec<f32>> {
//!     let hip = HipBackend::new(0)?; // device 0 of the platform found at run time
//!     let x = Array::<f32, _>::from_vec(&hip, vec![1.0, 2.0, 3.0])?;
//!     let y: Array<f32, _> = (x.ex() * 2.0).eval()?; // one fused kernel
//!     y.to_vec()
//! }
//!
//! match double_on_gpu() {
//!     Ok(y) => assert_eq!(y, vec![2.0, 4.0, 6.0]),
//!     // No GPU here: one line saying what is missing and what to install.
//!     Err(e) => eprintln!("{e}"),
//! }
//! ```
//!
//! ## Where things are
//!
//! | concept | type | file |
//! |---|---|---|
//! | the backend on one device | [`HipBackend`], [`HipBuffer`] | `backend/mod.rs`, `backend/hip_buffer.rs` |
//! | what HIP itself cannot run (nothing: type rules are core's) | [`backend::supports`] | `backend/support.rs` |
//! | errors, and their conversion into core's | [`HipError`]; `From<HipError> for gpuarrays_core::Error`, [`backend::to_core`] | `error.rs`, `backend/core_error.rs` |
//! | one platform and the state of each of its devices | [`HipRuntime`] | `runtime/mod.rs` |
//! | the runtime's settings, and every environment variable the crate reads | [`RuntimeConfig`] | `runtime/config.rs` |
//! | which kernels run where several compute the same results, and where matrix products go | [`KernelPolicy`], [`kernels::DeviceKernels::policy`] | `runtime/policy.rs` |
//! | one device's state (stream pools, events, memory pool) | [`DeviceState`] | `device/state.rs` |
//! | a device allocation with the record of every stream that may still use it | [`DeviceBuffer`] | `device/buffer.rs` |
//! | the ordering protocol: order operands, enqueue, record uses, in one step | [`DeviceState::enqueue`], [`Access`] | `device/enqueue.rs` |
//! | caching, stream-ordered memory pool | [`MemoryPool`], [`DeviceAllocation`] | `memory/memory_pool.rs`, `memory/block_cache.rs` |
//! | the pool's out-of-memory retry, and memory allocated during a graph capture | [`MemoryPool`] | `memory/memory_pool/release.rs`, `memory/memory_pool/capture_frees.rs` |
//! | releasing idle resources when memory runs out | [`ReleaseHook`] | `memory/release_hooks.rs` |
//! | large copies to and from pageable host memory, staged through pinned chunks by several threads | [`memory::PinnedStaging`], [`memory::CopyWorkers`], [`DeviceBuffer::copy_to_host_at`] | `memory/pinned_staging.rs`, `memory/copy_workers.rs`, `device/staged_copy.rs` |
//! | a stream, its generation, state and owner | [`Stream`], [`stream::OwnerToken`] | `stream/shared_stream.rs`, `stream/owner.rs` |
//! | user graph capture: record array operations once, launch them again and again, update them with new scalars (in place: `cuGraphExecUpdate`/`hipGraphExecUpdate`) | [`HipBackend::capture`], [`HipGraph`], [`HipGraph::update`], [`stream::GraphRecording`] | `backend/graph.rs`, `stream/recording.rs`, `memory/memory_pool/graph_pins.rs` |
//! | graph captures begun through a stream, and the count of running ones | [`Stream::begin_capture`], [`stream::active_captures`] | `stream/capture.rs` |
//! | recycled streams per device × priority | [`StreamPool`], [`StreamPriority`] | `stream/stream_pool.rs`, `stream/priority.rs` |
//! | the calling thread's stream, and scoped overrides | [`with_stream`], [`with_priority`] | `stream/thread.rs` |
//! | the streams that may still use a buffer, and the generation rule | [`BufferUses`], [`Use`] | `stream/use_record.rs` |
//! | run-time compiled kernels of one device | [`kernels::DeviceKernels`] | `kernels/device_kernels.rs` |
//! | the kernel families (elementwise, reduce, scan, sort, find, matmul) | functions of [`kernels`] | `kernels/<family>/` or `kernels/<family>.rs` |
//! | matrix products through cuBLAS / rocBLAS, handles cached per device and leased per thread | [`blas::DeviceBlas`], [`blas::OwnedBlasHandle`] | `blas/` |
//! | device-side timing (events) | [`backend::HipTimer`] | `backend/timer.rs` |
//! | the C++ text kernels are built from | [`kernels::cpp`] | `kernels/cpp/` |
//! | compiled modules, in memory and on disk | [`kernels::ModuleCache`], [`kernels::DiskCache`] | `kernels/cache/` |
//! | FFT plans (leased, bounded, per device) and work areas per stream | [`fft::FftState`], [`fft::FftPlanCache`], [`fft::WorkAreas`] | `fft/` |
//! | cuFFT and rocFFT | `platform::nvidia::cufft`, `platform::amd::rocfft` | `platform/nvidia/cufft.rs`, `platform/amd/rocfft.rs` |
//! | the HIP operations the backend needs: devices, streams, events, memory; and by concern, kernels and modules, graph capture, vendor BLAS and FFT | [`Platform`]; [`platform::KernelModules`], [`platform::GraphCapture`], [`platform::BlasLibrary`], [`platform::FftLibrary`] | `platform/mod.rs`; `platform/modules.rs`, `platform/graphs.rs`, `platform/libraries.rs` |
//! | AMD, NVIDIA and the test double (with its race detector) | [`platform::amd::AmdPlatform`], [`platform::nvidia::NvidiaPlatform`], `platform::test_double::FakePlatform` (feature `test-double`) | `platform/amd/`, `platform/nvidia/`, `platform/test_double/` |
//! | the vendor BLAS of each platform (cuBLAS via cudarc, rocBLAS via [`platform::amd::rocblas`]) | [`platform::BlasLibrary::blas_gemm`] | `platform/nvidia/blas.rs`, `platform/amd/rocblas.rs`, `platform/test_double/blas.rs` |
//! | copies between devices: peer access once per pair, the ordering protocol across two devices | [`HipBackend::device_copy_route`], [`DeviceCopyRoute`], [`runtime::PeerLinks`], [`device::enqueue_across`] | `backend/device_copy.rs`, `runtime/peer_links.rs`, `device/enqueue_across.rs` |
//! | collectives on arrays (NCCL/RCCL): communicators, groups, the id's bootstrap across processes | [`collectives::Communicator`], [`collectives::group`], [`collectives::bootstrap`] | `collectives/` |
//! | peer access and copies, and the collective library, at the platform level | [`platform::PeerAccess`], [`platform::CollectiveLibrary`] (NCCL/RCCL table: [`platform::nccl_api`]) | `platform/peers.rs`, `platform/collectives.rs`, `platform/nccl_api.rs`, `platform/*/multi_device.rs` |
//! | locks and atomics switchable to loom's (models: `src/loom_models/`) | `sync` | `sync.rs` |
//! | which platform, which device | [`PlatformKind`], [`DeviceId`] | `ids.rs` |
//!
//! Each top-level module imports only the ones below it: `sync` ← `ids` ← `error` ←
//! `platform` ← `stream` ← `memory` ← `device` ← `runtime` ← `blas` ← `kernels` ← `fft` ←
//! `backend` ← `collectives`; within a layer no file imports a file that imports it back.
//! `tests/module_layers.rs` checks both.

pub mod backend;
pub mod blas;
pub mod collectives;
pub mod device;
pub mod error;
pub mod fft;
pub mod ids;
pub mod kernels;
pub mod memory;
pub mod platform;
pub mod runtime;
pub mod stream;
mod sync;

#[cfg(all(test, loom, feature = "test-double"))]
mod loom_models;

pub use backend::{DeviceCopyRoute, HipBackend, HipBuffer, HipGraph, HipTimer};
pub use device::{Access, AccessKind, DeviceBuffer, DeviceState};
pub use error::{HipError, Result};
pub use ids::{DeviceId, PlatformKind};
pub use memory::{DeviceAllocation, MemoryPool, MemoryStats, ReleaseHook};
pub use platform::Platform;
pub use runtime::{HipRuntime, KernelPolicy, RuntimeConfig};
pub use stream::{
    BufferUses, Stream, StreamPool, StreamPoolStats, StreamPriority, Use, with_priority,
    with_stream,
};
