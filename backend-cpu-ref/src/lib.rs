//! gpuarrays-cpu-ref
