//! How buffers hold element types (core's [`Stored`], shared with the host kit) and a
//! check that two buffers differ.

use super::CpuBuffer;
use crate::error::CpuError;

pub(crate) use gpuarrays_core::host::semantics::Stored;

/// Fails unless `a` and `b` are different buffers (kernels that read one buffer while
/// writing another rely on it).
pub(crate) fn distinct(a: &CpuBuffer, b: &CpuBuffer) -> Result<(), CpuError> {
    if std::ptr::eq(a, b) {
        Err(crate::error::invalid("the same buffer as input and output"))
    } else {
        Ok(())
    }
}
