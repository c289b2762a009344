//! `AnyBuffer`: the buffer of [`AnyBackend`](super::AnyBackend), one variant per backend.

use gpuarrays_cpu_ref::CpuBuffer;
#[cfg(feature = "hip")]
use gpuarrays_hip::HipBuffer;
#[cfg(feature = "wgpu")]
use gpuarrays_wgpu::WgpuBuffer;

use super::kind::BackendKind;

/// A device buffer of one of the compiled-in backends. A buffer only ever meets the backend
/// variant that allocated it; a mix is `Error::DeviceMismatch`.
#[non_exhaustive]
pub enum AnyBuffer {
    Cpu(CpuBuffer),
    #[cfg(feature = "hip")]
    Hip(HipBuffer),
    #[cfg(feature = "wgpu")]
    Wgpu(WgpuBuffer),
}

impl AnyBuffer {
    /// The backend that allocated this buffer.
    pub fn kind(&self) -> BackendKind {
        match self {
            AnyBuffer::Cpu(_) => BackendKind::Cpu,
            #[cfg(feature = "hip")]
            AnyBuffer::Hip(_) => BackendKind::Hip,
            #[cfg(feature = "wgpu")]
            AnyBuffer::Wgpu(_) => BackendKind::Wgpu,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match self {
            AnyBuffer::Cpu(b) => b.len(),
            #[cfg(feature = "hip")]
            AnyBuffer::Hip(b) => b.len(),
            #[cfg(feature = "wgpu")]
            AnyBuffer::Wgpu(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for AnyBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AnyBuffer::{}({} bytes)", self.kind(), self.len())
    }
}
