//! The CPU backend's error type.

/// What can go wrong inside the CPU backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CpuError {
    #[error("host allocation of {bytes} bytes failed; free arrays or use smaller ones")]
    OutOfMemory { bytes: usize },
    #[error(
        "access of {bytes} bytes at byte {offset} is outside a {len}-byte buffer (a bug in the caller)"
    )]
    OutOfBounds {
        offset: usize,
        bytes: usize,
        len: usize,
    },
    #[error(
        "a foreign buffer at address {address:#x} is not aligned to {align} bytes for its element type"
    )]
    Misaligned { address: usize, align: usize },
    #[error("kernel received {what}, which core should have rejected (a bug in the caller)")]
    InvalidKernel { what: String },
    #[error("could not build a thread pool of {threads} threads: {reason}")]
    ThreadPool { threads: usize, reason: String },
}

impl From<CpuError> for gpuarrays_core::Error {
    fn from(e: CpuError) -> Self {
        match e {
            CpuError::OutOfMemory { bytes } => gpuarrays_core::Error::OutOfMemory {
                device: "cpu".into(),
                requested: Some(bytes),
                // The host allocator refuses without saying what it has.
                free: None,
                hint: Some("the host allocator refused; free arrays or use smaller ones".into()),
            },
            other => gpuarrays_core::Error::backend("cpu", other),
        }
    }
}

pub(crate) fn invalid(what: impl Into<String>) -> CpuError {
    CpuError::InvalidKernel { what: what.into() }
}

/// A kernel asked to run on an element type core's type rules exclude.
pub(crate) fn invalid_dtype<R>(kernel: &str, dtype: gpuarrays_core::DType) -> Result<R, CpuError> {
    Err(invalid(format!("{kernel} for {dtype}")))
}
