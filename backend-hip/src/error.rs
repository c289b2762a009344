//! The crate's one error type. Every variant says what went wrong and what to do about it.

use crate::ids::{DeviceId, PlatformKind};

/// Result alias used throughout `gpuarrays-hip`.
pub type Result<T, E = HipError> = std::result::Result<T, E>;

/// Everything that can go wrong in the HIP backend's runtime layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HipError {
    /// No candidate file of a shared library could be opened.
    #[error(
        "{platform}: could not load {library} ({tried}). {hint}",
        tried = .tried.join("; ")
    )]
    LibraryNotFound {
        /// The platform that needed the library.
        platform: PlatformKind,
        /// Which library, e.g. "CUDA driver (libcuda)".
        library: &'static str,
        /// Every name or path tried, each with the loader's reason.
        tried: Vec<String>,
        /// What to install or set.
        hint: &'static str,
    },

    /// The library loaded but lacks symbols the platform needs.
    #[error(
        "{platform}: {library} ({path}) lacks required symbols {missing:?}; \
         the installed runtime is older than this backend supports. {hint}"
    )]
    MissingSymbols {
        /// The platform that needed the symbols.
        platform: PlatformKind,
        /// Which library.
        library: &'static str,
        /// The file that was opened.
        path: String,
        /// Every required symbol that was not found.
        missing: Vec<String>,
        /// What to install.
        hint: &'static str,
    },

    /// Automatic platform choice found no usable platform.
    #[error("no HIP platform is usable: {}. Install ROCm (AMD) or the NVIDIA driver and CUDA (NVRTC), or set GPUARRAYS_HIP_PLATFORM=amd|nvidia to see one platform's error alone", reasons.join("; "))]
    NoPlatform {
        /// Why each platform was rejected.
        reasons: Vec<String>,
    },

    /// The platform loaded but reports no device.
    #[error(
        "{platform}: no GPU device found; check the driver (`rocm-smi` / `nvidia-smi`) and device permissions"
    )]
    NoDevice {
        /// The platform asked.
        platform: PlatformKind,
    },

    /// A device ordinal out of range.
    #[error("{platform}: device {device} does not exist (the platform has {count} device(s))")]
    InvalidDevice {
        /// The platform asked.
        platform: PlatformKind,
        /// The ordinal asked for.
        device: DeviceId,
        /// How many devices there are.
        count: usize,
    },

    /// An environment variable has a value this crate does not understand.
    #[error("environment variable {var}={value:?} is not understood; expected {expected}")]
    InvalidConfig {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// The accepted values.
        expected: &'static str,
    },

    /// A platform API call returned an error code.
    #[error("{platform}: {call} failed with {name} ({code}): {message}")]
    Api {
        /// The platform.
        platform: PlatformKind,
        /// The API function, e.g. "cuStreamCreateWithPriority".
        call: &'static str,
        /// The numeric error code.
        code: i32,
        /// The error's symbolic name, e.g. "CUDA_ERROR_INVALID_HANDLE".
        name: String,
        /// The platform's description of the error.
        message: String,
    },

    /// A call into a binding library panicked (it was caught; the platform may be unusable).
    #[error(
        "{platform}: {call} panicked inside the binding library: {message}; this is a bug or an unsupported runtime, please report it"
    )]
    BindingPanicked {
        /// The platform.
        platform: PlatformKind,
        /// The API function.
        call: &'static str,
        /// The panic message.
        message: String,
    },

    /// Device memory is exhausted even after releasing cached memory and retrying.
    #[error(
        "out of device memory on device {device}: {requested} bytes requested, {free} bytes free of {total} \
         (after releasing {released} cached bytes and retrying); free arrays you no longer need, \
         use smaller batches, or call free_all_shared() on large buffers"
    )]
    OutOfMemory {
        /// The device.
        device: DeviceId,
        /// Bytes asked for.
        requested: usize,
        /// Bytes free after the retry, as the platform reports.
        free: usize,
        /// Total device memory.
        total: usize,
        /// Bytes released by the pool and hooks before the retry.
        released: usize,
    },

    /// A stream is in an error state (a kernel failed, or the stream was destroyed).
    #[error(
        "stream {stream:#x} on device {device} is unusable: {reason}; work queued on it may be lost, recreate the data it produced"
    )]
    StreamUnusable {
        /// The device.
        device: DeviceId,
        /// The raw stream handle.
        stream: u64,
        /// Why.
        reason: String,
    },

    /// An operation would have been recorded into another thread's graph capture.
    #[error(
        "stream {stream:#x} is capturing a graph; {what} must not be recorded into another thread's capture. Retry after the capture ends, or use your own stream"
    )]
    StreamCapturing {
        /// The raw stream handle.
        stream: u64,
        /// What was attempted.
        what: &'static str,
    },

    /// Run-time compilation failed.
    #[error("{platform}: compiling {program} for {arch} failed ({call}): {log}")]
    Compile {
        /// The platform.
        platform: PlatformKind,
        /// The program's name.
        program: String,
        /// The target architecture.
        arch: String,
        /// The failing call.
        call: &'static str,
        /// The compiler's log.
        log: String,
    },

    /// A caller passed something invalid.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// A test double's injected fault or an operation the test double cannot emulate.
    #[error("test double: {0}")]
    TestDouble(String),
}

impl HipError {
    /// The platform error code, if this is an API error.
    pub fn api_code(&self) -> Option<i32> {
        match self {
            HipError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Whether this error means "out of memory" at the platform level.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, HipError::OutOfMemory { .. })
            || self.api_code() == Some(codes::OUT_OF_MEMORY)
    }
}

/// Error codes that HIP and CUDA share (HIP copied CUDA's numbering).
pub mod codes {
    /// Success.
    pub const SUCCESS: i32 = 0;
    /// Invalid value.
    pub const INVALID_VALUE: i32 = 1;
    /// Out of memory (`hipErrorOutOfMemory`, `CUDA_ERROR_OUT_OF_MEMORY`).
    pub const OUT_OF_MEMORY: i32 = 2;
    /// Invalid (e.g. destroyed) handle.
    pub const INVALID_HANDLE: i32 = 400;
    /// Work not yet complete (not an error).
    pub const NOT_READY: i32 = 600;
    /// Illegal address in a kernel.
    pub const ILLEGAL_ADDRESS: i32 = 700;
    /// The context was destroyed.
    pub const CONTEXT_IS_DESTROYED: i32 = 709;
    /// A kernel failed.
    pub const LAUNCH_FAILURE: i32 = 719;
    /// The operation is not permitted while capturing.
    pub const STREAM_CAPTURE_UNSUPPORTED: i32 = 900;
}
