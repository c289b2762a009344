//! gpuarrays-cpu-ref: the CPU reference backend (rayon). It is the oracle the GPU backends
//! are checked against, and is itself checked against a scalar oracle and NumPy.

mod backend;
mod buffer;

pub use backend::CpuBackend;
pub use buffer::CpuBuffer;
