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
//! Threading contract: operations that take only a handle (stream, event, pointer, function)
//! must run on a thread that has called [`Platform::bind_device`] for that handle's device;
//! the runtime layer above does so. Operations that take a [`DeviceId`] bind it themselves.

mod blas_types;
mod fft_types;
mod handles;
mod select;
mod types;

pub mod access_declarations;
pub mod amd;
pub mod loader;
pub mod nvidia;
#[cfg(feature = "test-double")]
pub mod test_double;

pub use crate::error::codes;
pub use crate::ids::{DeviceId, PlatformKind};
pub use blas_types::{BlasMath, BlasType, GemmStridedBatched};
pub use fft_types::{FftPlanDesc, FftPlanHandle, FftPlanInfo};
pub use handles::{
    BlasHandle, DevicePtr, EventHandle, FunctionHandle, GraphExecHandle, GraphHandle, ModuleHandle,
    StreamHandle,
};
pub use select::{PLATFORM_ENV, select_platform, select_platform_named};
pub use types::{
    CaptureMode, CompileRequest, CompiledProgram, DeviceProperties, LaunchConfig, MemInfo,
    PriorityRange, WorkStatus,
};

use crate::error::Result;
use std::ffi::c_void;

/// The HIP operations the backend needs. Object-safe; one instance per process and platform.
pub trait Platform: Send + Sync + std::fmt::Debug {
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

    // ---- run-time compilation and modules ----
    /// The run-time compiler's version, for cache keys (e.g. "nvrtc 13.0", "hiprtc 50221153").
    fn compiler_version(&self) -> Result<String>;
    /// Compile HIP-dialect C++ to a loadable binary for `request.arch`.
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram>;
    /// Load a compiled binary on `device`.
    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle>;
    /// Unload a module.
    fn unload_module(&self, module: ModuleHandle) -> Result<()>;
    /// Look up a kernel by its (lowered) name.
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle>;
    /// Launch a kernel.
    ///
    /// # Safety
    /// `args` must hold one pointer per kernel parameter, each pointing to a value of that
    /// parameter's type in storage readable for at least 8 bytes (the 8-byte slots of
    /// `KernelArgs`; the test double reads every parameter as one 8-byte word to find the
    /// device addresses a kernel touches), and every device pointer passed must stay valid
    /// until the kernel ends.
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        config: &LaunchConfig,
        stream: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()>;

    // ---- vendor BLAS (cuBLAS on NVIDIA, rocBLAS on AMD), loaded at first use ----
    /// The BLAS library's name and version (e.g. "cuBLAS 13.0.0"), loading it if needed. A
    /// missing library or symbol is [`crate::HipError::LibraryNotFound`] /
    /// [`crate::HipError::MissingSymbols`] saying what to install.
    fn blas_version(&self) -> Result<String>;
    /// Create a BLAS handle bound to `device`.
    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle>;
    /// Destroy a handle created on `device` (the platform binds `device` first). The caller
    /// must not use the handle afterwards.
    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()>;
    /// Set `handle`'s stream to `stream` and precision to `gemm.math`, then enqueue the
    /// product `gemm` on it. The calling thread must be bound to the handle's device.
    ///
    /// # Safety
    /// Every matrix `gemm` describes (pointers, leading dimensions, strides, batch) must lie
    /// inside live device allocations of the handle's device until the product has run, and
    /// the handle must not be used by another thread at the same time.
    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()>;

    // ---- graph capture ----
    /// Start capturing work enqueued on `stream` into a graph.
    fn begin_capture(&self, stream: StreamHandle, mode: CaptureMode) -> Result<()>;
    /// Stop capturing and return the graph.
    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle>;
    /// Whether `stream` is capturing.
    fn is_capturing(&self, stream: StreamHandle) -> Result<bool>;
    /// Instantiate a graph.
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle>;
    /// Launch an instantiated graph on `stream`.
    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()>;
    /// Destroy a graph.
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()>;
    /// Destroy an instantiated graph.
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()>;

    // ---- FFT (cuFFT on NVIDIA, rocFFT on AMD) ----
    /// Create a plan for `desc` on `device`, holding no work area of its own (cuFFT's
    /// auto-allocation off; rocFFT gets one at each execution). Binds `device`.
    fn fft_plan_create(&self, device: DeviceId, desc: &FftPlanDesc) -> Result<FftPlanInfo>;
    /// Destroy a plan created on `device`, with `device` current during the call; the calling
    /// thread's binding is restored afterwards.
    fn fft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()>;
    /// Run `plan` (made for `desc`) on `stream`, with `work` (at least the plan's
    /// `work_bytes`) as its work area; both are set at every call.
    ///
    /// # Safety
    /// `input` and `output` must be device allocations laid out as `desc` says (the same
    /// pointer iff `desc.in_place`), `work` an allocation of at least `work_bytes` bytes (or
    /// anything when 0), all on the stream's device and alive until the transform has run;
    /// the plan must not be used by another thread during the call.
    #[allow(clippy::too_many_arguments)]
    unsafe fn fft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
}
