//! gpuarrays-conformance
