//! gpuarrays
