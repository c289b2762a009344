//! The thin platform layer: the HIP operations the backend needs, and nothing else.
//!
//! All platform-specific code lives below this module. Three implementations:
//! - [`amd::AmdPlatform`]: libamdhip64 + hiprtc, loaded at run time;
//! - [`nvidia::NvidiaPlatform`]: what HIP does on NVIDIA, the CUDA driver API + NVRTC via cudarc;
//! - `test_double::FakePlatform`: an in-process test double in host memory with injectable
//!   faults, compiled only with the `test-double` feature (the crate's tests and benches).
//!
//! Every implementation resolves all of its symbols when it is created, into a `Result`.
//!
//! The operations are split by concern, so that an implementation (and a reader) meets them
//! in groups of a few: [`Platform`] itself holds devices, streams, events and memory, what
//! every layer above uses; its supertraits hold run-time compilation, modules and launches
//! ([`KernelModules`], `modules.rs`), graph capture ([`GraphCapture`], `graphs.rs`), the
//! two vendor libraries of one device ([`BlasLibrary`], [`FftLibrary`], `libraries.rs`), and
//! what spans devices: peer copies ([`PeerAccess`], `peers.rs`) and collectives
//! ([`CollectiveLibrary`], `collectives.rs`). A `dyn Platform` offers every method of all
//! seven; code calling one of the concern traits' methods on a concrete platform type imports
//! that trait. Each implementation has one file per part (`platform_impl.rs`: `Platform`;
//! `work_impl.rs`: the four single-device concern traits; `multi_device.rs`: the two that
//! span devices).
//!
//! Threading contract: operations that take only a handle (stream, event, pointer, function)
//! must run on a thread that has called [`Platform::bind_device`] for that handle's device;
//! the runtime layer above does so. Operations that take a [`DeviceId`] bind it themselves.

mod blas_types;
mod collectives;
mod fft_types;
mod graphs;
mod handles;
mod libraries;
mod modules;
pub mod nccl_api;
mod peers;
mod select;
mod types;

pub mod access_declarations;
pub mod amd;
pub mod loader;
pub mod nvidia;
pub mod ranges;
#[cfg(feature = "test-double")]
pub mod test_double;

pub use crate::error::codes;
pub use crate::ids::{DeviceId, PlatformKind};
pub use blas_types::{BlasMath, BlasType, GemmStridedBatched};
pub use collectives::{
    CollectiveCall, CollectiveId, CollectiveKind, CollectiveLibrary, CollectiveType, CommHandle,
    ReduceOp,
};
pub use fft_types::{FftPlanDesc, FftPlanHandle, FftPlanInfo};
pub use graphs::GraphCapture;
pub use handles::{
    BlasHandle, DevicePtr, EventHandle, FunctionHandle, GraphExecHandle, GraphHandle, ModuleHandle,
    StreamHandle,
};
pub use libraries::{BlasLibrary, FftLibrary};
pub use modules::KernelModules;
pub use peers::PeerAccess;
pub use select::{PLATFORM_ENV, select_platform, select_platform_named};
pub use types::{
    CaptureMode, CompileRequest, CompiledProgram, DeviceProperties, LaunchConfig, MemInfo,
    PriorityRange, WorkStatus,
};

use crate::error::Result;
use std::ffi::c_void;

/// The HIP operations the backend needs. Object-safe; one instance per process and platform.
///
/// This trait holds the calls every layer uses: devices, streams, events, memory. The other
/// concerns are supertraits, each in its own file: [`KernelModules`] (run-time compilation,
/// modules, launches), [`GraphCapture`], [`BlasLibrary`] and [`FftLibrary`]. A
/// `dyn Platform` has all of them; a caller imports the concern trait whose methods it calls.
pub trait Platform:
    KernelModules
    + GraphCapture
    + BlasLibrary
    + FftLibrary
    + PeerAccess
    + CollectiveLibrary
    + Send
    + Sync
    + std::fmt::Debug
{
    /// Which platform this is.
    fn kind(&self) -> PlatformKind;

    /// Whether this platform checks the ordering of work on buffers (the test double's race
    /// detector) and so wants each operation's operand roles declared through
    /// [`access_declarations`]. Real platforms do not.
    fn checks_ordering(&self) -> bool {
        false
    }

    // ---- devices and contexts ----
    /// Number of devices.
    fn device_count(&self) -> Result<usize>;
    /// Name, architecture, warp size, multiprocessors, memory of one device.
    fn device_properties(&self, device: DeviceId) -> Result<DeviceProperties>;
    /// Make `device` current for the calling thread (context / `hipSetDevice`). Cheap when it
    /// already is.
    fn bind_device(&self, device: DeviceId) -> Result<()>;
    /// Free and total memory of `device`.
    fn mem_info(&self, device: DeviceId) -> Result<MemInfo>;
    /// Wait until all work on `device` is done.
    fn synchronize_device(&self, device: DeviceId) -> Result<()>;

    // ---- streams ----
    /// The numeric priority range of streams on `device`.
    fn stream_priority_range(&self, device: DeviceId) -> Result<PriorityRange>;
    /// Create a non-blocking stream with a numeric priority.
    fn create_stream(&self, device: DeviceId, priority: i32) -> Result<StreamHandle>;
    /// Destroy a stream (queued work still completes).
    fn destroy_stream(&self, stream: StreamHandle) -> Result<()>;
    /// Whether all work queued on `stream` has completed. Never blocks.
    fn query_stream(&self, stream: StreamHandle) -> WorkStatus;
    /// Block until all work queued on `stream` has completed.
    fn synchronize_stream(&self, stream: StreamHandle) -> Result<()>;

    // ---- events ----
    /// Create an event without timing.
    fn create_event(&self, device: DeviceId) -> Result<EventHandle>;
    /// Record `event` at the current end of `stream`.
    fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()>;
    /// Make future work on `stream` wait for `event` (device-side, host does not block).
    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()>;
    /// Whether the work before `event` has completed. Never blocks.
    fn query_event(&self, event: EventHandle) -> WorkStatus;
    /// Block until the work before `event` has completed.
    fn synchronize_event(&self, event: EventHandle) -> Result<()>;
    /// Destroy an event.
    fn destroy_event(&self, event: EventHandle) -> Result<()>;
    /// Create an event that records a timestamp (for device-side timing; `create_event`'s
    /// events do not, which makes their records and waits cheaper).
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle>;
    /// Milliseconds between two recorded, completed timing events of one device.
    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32>;

    // ---- memory ----
    /// Stream-ordered allocation on the stream's device.
    fn alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr>;
    /// Stream-ordered free.
    fn free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()>;
    /// Copy host → device, ordered on `stream`.
    ///
    /// # Safety
    /// `src` must be valid for reads of `bytes` until the copy has completed, and `dst` must be
    /// a device allocation of at least `bytes` bytes.
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
    /// Copy device → host, ordered on `stream`.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `bytes` until the copy has completed, and `src` must
    /// be a device allocation of at least `bytes` bytes.
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
    /// Copy device → device, ordered on `stream`.
    ///
    /// # Safety
    /// Both ranges must lie inside live device allocations.
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
    /// Set `bytes` bytes at `dst` to `value`, ordered on `stream`.
    ///
    /// # Safety
    /// The range must lie inside a live device allocation.
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;

    // ---- page-locked host memory (the staging buffers of large host copies) ----
    /// Allocate `bytes` of page-locked ("pinned") host memory that copies on every device of
    /// the platform can use directly (`cuMemHostAlloc` / `hipHostMalloc`, portable).
    /// Copies between it and a device run at the link's speed and do not block the host.
    fn host_alloc_pinned(&self, device: DeviceId, bytes: usize) -> Result<*mut u8>;
    /// Free memory from [`Platform::host_alloc_pinned`].
    ///
    /// # Safety
    /// `ptr` came from `host_alloc_pinned` of this platform, is freed once, and no copy that
    /// uses it is still queued.
    unsafe fn host_free_pinned(&self, device: DeviceId, ptr: *mut u8) -> Result<()>;
}
