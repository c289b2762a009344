//! The crate's one error type. Every variant says what went wrong and what to do about it;
//! [`WgpuError`] converts into core's [`gpuarrays_core::Error`] so backend methods can use `?`.

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

impl From<WgpuError> for gpuarrays_core::Error {
    fn from(e: WgpuError) -> Self {
        gpuarrays_core::Error::backend("wgpu", e)
    }
}

pub(crate) fn invalid(what: impl Into<String>) -> WgpuError {
    WgpuError::InvalidArgument(what.into())
}
