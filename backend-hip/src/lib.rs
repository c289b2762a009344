//! gpuarrays-hip: the HIP backend's runtime layer.
//!
//! - [`platform`]: the thin platform layer (AMD via libamdhip64 + hiprtc, NVIDIA via the CUDA
//!   driver API + NVRTC, and a test double), the only place with platform-specific code;
//! - [`stream`]: per-thread streams from a pool per device × priority, with generations and
//!   [`LastUse`] records (the stream-recycling design);
//! - [`memory`]: stream-ordered allocation through a caching pool per device, with release
//!   hooks and a retry on out-of-memory;
//! - [`HipRuntime`]: one platform plus per-device state (pools, memory).

pub mod backend;
pub mod device;
pub mod error;
pub mod ids;
pub mod kernels;
pub mod memory;
pub mod platform;
pub mod runtime;
pub mod stream;

pub use backend::{HipBackend, HipBuffer};
pub use device::{DeviceBuffer, DeviceState};
pub use error::{HipError, Result};
pub use ids::{DeviceId, PlatformKind};
pub use memory::{DeviceAllocation, MemoryPool, MemoryStats, ReleaseHook};
pub use platform::Platform;
pub use runtime::{HipRuntime, RuntimeConfig};
pub use stream::{
    LastUse, Stream, StreamPool, StreamPoolStats, StreamPriority, with_priority, with_stream,
};
