//! `HipBuffer`: the backend's buffer type, a [`DeviceBuffer`] with the record of its uses.
//!
//! Every operation of the backend goes through the ordering protocol
//! ([`crate::DeviceState::enqueue`], via `HipBackend::enqueue`): the operands are ordered after
//! the uses the rules require, the work is enqueued and the uses recorded in one step.
//! Dropping or releasing frees into the memory pool, which reuses the memory only after every
//! recorded use.

use crate::device::DeviceBuffer;
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::BufferUses;

/// A device allocation of the HIP backend.
pub struct HipBuffer {
    inner: DeviceBuffer,
}

impl std::fmt::Debug for HipBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipBuffer")
            .field("ptr", &self.inner.ptr())
            .field("len", &self.inner.len())
            .finish()
    }
}

impl HipBuffer {
    pub(crate) fn new(inner: DeviceBuffer) -> HipBuffer {
        HipBuffer { inner }
    }

    /// Device address of byte 0.
    #[inline]
    pub fn ptr(&self) -> DevicePtr {
        self.inner.ptr()
    }

    /// Device address of element `offset` of type size `size`.
    pub(crate) fn at(&self, offset: usize, size: usize) -> DevicePtr {
        self.inner.ptr().offset(offset * size)
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// A snapshot of the uses that may not have completed (tests, diagnostics).
    pub fn uses(&self) -> BufferUses {
        self.inner.uses()
    }

    /// The runtime's buffer.
    #[inline]
    pub fn device_buffer(&self) -> &DeviceBuffer {
        &self.inner
    }

    /// Frees the buffer now (by the last-use rules), reporting errors.
    pub fn free(self) -> Result<()> {
        self.inner.free()
    }
}
