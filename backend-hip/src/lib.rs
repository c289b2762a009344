//! gpuarrays-hip
