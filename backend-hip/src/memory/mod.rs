//! Device memory as a pure pool layer: stream-ordered allocation through a caching pool per
//! device, the release hooks run on out-of-memory, and the size classes. It knows streams and
//! the platform, never the device state above it: the owning buffer type that frees into the
//! pool on drop, [`crate::DeviceBuffer`], lives beside the device in [`crate::device`].

mod block_cache;
mod memory_pool;
mod release_hooks;
mod size_class;

pub use memory_pool::{DeviceAllocation, MemoryPool, MemoryStats};
pub use release_hooks::{HookId, ReleaseHook, ReleaseHooks};
pub use size_class::{MIN_BLOCK, class_size};
