//! gpuarrays-core
