//! `CpuBuffer`: host memory shared between arrays (placeholder, being written).

/// Host memory of one array buffer.
pub struct CpuBuffer {
    _bytes: Vec<u8>,
}
