//! Plain data types of the platform layer.

/// What the backend needs to know about a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// Marketing name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compiler target, e.g. "sm_90" or "gfx942" (with feature suffixes stripped).
    pub arch: String,
    /// Threads per warp / wavefront (32 on NVIDIA, 32 or 64 on AMD). Never hard-code it.
    pub warp_size: u32,
    /// Streaming multiprocessors / compute units.
    pub multiprocessor_count: u32,
    /// Total device memory in bytes.
    pub total_memory: usize,
    /// Largest block size.
    pub max_threads_per_block: u32,
    /// Static + dynamic shared memory available to one block, in bytes.
    pub max_shared_memory_per_block: u32,
}

/// Free and total device memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemInfo {
    /// Bytes free.
    pub free: usize,
    /// Bytes in total.
    pub total: usize,
}

/// Numeric stream priorities of a device. Lower numbers mean higher priority on both
/// platforms; `least` is the default priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriorityRange {
    /// Lowest priority (numerically greatest), the default.
    pub least: i32,
    /// Highest priority (numerically smallest).
    pub greatest: i32,
}

/// Completion state of a stream's or event's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkStatus {
    /// All queued work has completed.
    Ready,
    /// Work is still queued or running.
    Busy,
    /// The query failed: the object is in an error state or no longer exists.
    Error(i32),
}

/// Graph capture mode (same values on HIP and CUDA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptureMode {
    /// Unsafe calls from any thread are prohibited during capture.
    Global,
    /// Unsafe calls from this thread are prohibited during capture (the default here).
    #[default]
    ThreadLocal,
    /// No restriction.
    Relaxed,
}

impl CaptureMode {
    /// The platform's numeric value.
    pub fn raw(self) -> u32 {
        match self {
            CaptureMode::Global => 0,
            CaptureMode::ThreadLocal => 1,
            CaptureMode::Relaxed => 2,
        }
    }
}

/// Grid and block shape of a kernel launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid, x/y/z.
    pub grid: [u32; 3],
    /// Threads per block, x/y/z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block in bytes.
    pub shared_mem_bytes: u32,
}

/// A run-time compilation request.
#[derive(Debug, Clone, Copy)]
pub struct CompileRequest<'a> {
    /// Program name (used in logs and error messages).
    pub name: &'a str,
    /// HIP-dialect C++ source.
    pub source: &'a str,
    /// Kernel name expressions to resolve (plain names for `extern "C"` kernels, or template
    /// instantiations such as `axpy<float>`).
    pub kernel_names: &'a [&'a str],
    /// Extra compiler options (the architecture option is added by the platform).
    pub options: &'a [&'a str],
    /// Target architecture, as in [`DeviceProperties::arch`].
    pub arch: &'a str,
}

/// The output of [`super::KernelModules::compile`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledProgram {
    /// Loadable binary (cubin for NVIDIA, code object for AMD).
    pub binary: Vec<u8>,
    /// For each requested kernel name, the symbol to pass to `get_function`.
    pub lowered_names: Vec<(String, String)>,
    /// The compiler's log (warnings), possibly empty.
    pub log: String,
}

impl CompiledProgram {
    /// The lowered (symbol) name of `kernel`, if it was requested.
    pub fn lowered_name(&self, kernel: &str) -> Option<&str> {
        self.lowered_names
            .iter()
            .find(|(k, _)| k == kernel)
            .map(|(_, l)| l.as_str())
    }
}
