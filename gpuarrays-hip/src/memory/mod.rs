//! Device memory as a pure pool layer: stream-ordered allocation through a caching pool per
//! device, the release hooks run on out-of-memory, and the size classes. It knows streams and
//! the platform, never the device state above it: the owning buffer type that frees into the
//! pool on drop, [`crate::DeviceBuffer`], lives beside the device in [`crate::device`].
//!
//! Host memory too, where it serves device copies: the pinned chunks large copies between a
//! device and pageable host memory are staged through ([`PinnedStaging`]), and the threads
//! that copy between those chunks and the user's memory ([`CopyWorkers`]).

mod block_cache;
mod copy_workers;
mod memory_pool;
mod pinned_staging;
mod release_hooks;
mod size_class;

pub use copy_workers::CopyWorkers;
pub use memory_pool::{DeviceAllocation, MemoryPool, MemoryStats};
pub use pinned_staging::{HOST_STAGING_ENV, PinnedStaging, StagingConfig, StagingSet, Streaming};
pub use release_hooks::{HookId, ReleaseHook, ReleaseHooks};
pub use size_class::{MIN_BLOCK, class_size};
