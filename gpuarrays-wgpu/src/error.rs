//! The crate's one error type. Every variant says what went wrong and what to do about it;
//! [`WgpuError`] converts into core's [`gpuarrays_core::Error`] so backend methods can use `?`:
//! [`WgpuError::OutOfMemory`] into `Error::OutOfMemory` (with its numbers), everything else
//! into `Error::Backend`.

/// Result alias used throughout `gpuarrays-wgpu`.
pub type Result<T, E = WgpuError> = std::result::Result<T, E>;

/// Everything that can go wrong in the wgpu backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WgpuError {
    /// No adapter was found at all.
    #[error(
        "no WebGPU adapter found ({backends}); install a Vulkan driver (on Debian: \
         `apt-get install mesa-vulkan-drivers` gives the software adapter llvmpipe) or a GPU driver"
    )]
    NoAdapter {
        /// Which wgpu backends were searched.
        backends: String,
    },

    /// `GPUARRAYS_WGPU_ADAPTER` names no adapter.
    #[error(
        "GPUARRAYS_WGPU_ADAPTER={selector:?} matches none of the adapters [{available}]; \
         give an index or a substring of one of these names"
    )]
    AdapterNotFound {
        /// The selector given.
        selector: String,
        /// The adapters there are, "index: name (backend)".
        available: String,
    },

    /// The adapter refused to create a device.
    #[error("adapter '{adapter}' could not create a device: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        reason: String,
    },

    /// A request larger than one of the device's limits.
    #[error(
        "{what} needs {requested} bytes but '{adapter}' allows at most {limit} ({limit_name}); {hint}"
    )]
    LimitExceeded {
        /// What was being done.
        what: String,
        /// How much was needed.
        requested: u64,
        /// The device limit.
        limit: u64,
        /// The wgpu limit's name, e.g. "max_storage_buffer_binding_size".
        limit_name: &'static str,
        /// The adapter.
        adapter: String,
        /// What to do instead.
        hint: &'static str,
    },

    /// An allocation the device cannot make: a buffer larger than one buffer may be, or
    /// device memory exhausted (after the pool released its idle buffers and the allocation
    /// was retried). Becomes core's `Error::OutOfMemory`.
    #[error("allocating {requested} bytes on '{adapter}' failed: {cause}; {}", free_text(*free))]
    OutOfMemory {
        /// The adapter.
        adapter: String,
        /// The bytes asked for.
        requested: u64,
        /// Why.
        cause: OomCause,
        /// Free memory in bytes, where known: Vulkan's `VK_EXT_memory_budget` (budget less
        /// usage, over the device-local heaps), or for a CPU adapter the host's available
        /// memory (see `memory_budget.rs`).
        free: Option<u64>,
    },

    /// A generated shader failed to compile (a bug in this crate: every shader is validated
    /// by naga in the tests).
    #[error("the generated WGSL for {kernel} did not compile on '{adapter}': {reason}")]
    Shader {
        /// Which kernel.
        kernel: String,
        /// The adapter.
        adapter: String,
        /// wgpu's message.
        reason: String,
    },

    /// wgpu reported an error on the device (validation, out of memory, device lost).
    #[error("wgpu reported an error on '{adapter}': {reason}")]
    Device {
        /// The adapter.
        adapter: String,
        /// wgpu's message.
        reason: String,
    },

    /// Mapping a buffer for a read failed.
    #[error("reading {bytes} bytes back from '{adapter}' failed: {reason}")]
    Readback {
        /// The adapter.
        adapter: String,
        /// How many bytes.
        bytes: usize,
        /// wgpu's message.
        reason: String,
    },

    /// Arguments core should never pass (a bug in the caller).
    #[error("{0} (a bug in the caller: core validates this before dispatch)")]
    InvalidArgument(String),
}

/// Why an allocation failed ([`WgpuError::OutOfMemory`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OomCause {
    /// The smallest buffer that holds the request (`None`: more than `u64::MAX` bytes) is
    /// larger than the device's `max_buffer_size`.
    BufferLimit {
        /// Bytes of the smallest buffer (the request rounded up to 256).
        buffer: Option<u64>,
        /// The device's `max_buffer_size`.
        max: u64,
    },
    /// The driver refused a buffer of `buffer` bytes for lack of memory, also after
    /// `released` bytes of idle pooled buffers were given back.
    DeviceMemory {
        /// Bytes of the buffer that was asked of the driver.
        buffer: u64,
        /// Bytes of idle pooled buffers released before the retry.
        released: u64,
    },
    /// The memory limit set with `set_memory_limit` would be passed.
    Limit {
        /// The limit, in bytes.
        limit: u64,
        /// Bytes in use before the request.
        in_use: u64,
    },
}

impl std::fmt::Display for OomCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OomCause::BufferLimit {
                buffer: Some(b),
                max,
            } => write!(
                f,
                "it needs a buffer of {b} bytes and one buffer holds at most {max} bytes there \
                 (max_buffer_size); split the data into smaller arrays"
            ),
            OomCause::BufferLimit { buffer: None, max } => write!(
                f,
                "it needs a buffer of more than 2^64 - 256 bytes and one buffer holds at most \
                 {max} bytes there (max_buffer_size); split the data into smaller arrays"
            ),
            OomCause::DeviceMemory { buffer, released } => write!(
                f,
                "the driver is out of memory for a buffer of {buffer} bytes, also after \
                 {released} bytes of idle pooled buffers were released; free arrays you no \
                 longer need or use smaller ones"
            ),
            OomCause::Limit { limit, in_use } => write!(
                f,
                "the memory limit of this device is {limit} bytes and {in_use} are in use \
                 (set_memory_limit): raise or remove the limit, or free arrays"
            ),
        }
    }
}

fn free_text(free: Option<u64>) -> String {
    match free {
        Some(f) => format!("{f} bytes free"),
        None => "free memory unknown (the driver does not report it)".into(),
    }
}

impl From<WgpuError> for gpuarrays_core::Error {
    fn from(e: WgpuError) -> Self {
        match e {
            WgpuError::OutOfMemory {
                adapter,
                requested,
                cause,
                free,
            } => gpuarrays_core::Error::OutOfMemory {
                device: format!("wgpu '{adapter}'"),
                requested: Some(usize::try_from(requested).unwrap_or(usize::MAX)),
                // `None` where the driver does not report it: core says "not known".
                free: free.map(|f| usize::try_from(f).unwrap_or(usize::MAX)),
                hint: Some(cause.to_string()),
            },
            other => gpuarrays_core::Error::backend("wgpu", other),
        }
    }
}

pub(crate) fn invalid(what: impl Into<String>) -> WgpuError {
    WgpuError::InvalidArgument(what.into())
}
