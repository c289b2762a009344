//! Device memory: a caching, stream-ordered pool per device, and an owning buffer type.

mod buffer;
mod pool;
mod release_hooks;
mod size_class;

pub use buffer::DeviceBuffer;
pub use pool::{DeviceAllocation, MemoryPool, MemoryStats};
pub use release_hooks::{HookId, ReleaseHook, ReleaseHooks};
pub use size_class::{MIN_BLOCK, class_size};
