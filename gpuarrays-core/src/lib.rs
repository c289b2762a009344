//! gpuarrays-core: element types, storage, derived arrays, the `Backend` trait and the
//! backend-neutral array operations.

pub mod handle_cache;
