//! `HipBuffer`: the backend's buffer type, a [`DeviceBuffer`] with its last use.
//!
//! The last use (stream, generation) lives in the `DeviceBuffer`: every operation calls
//! [`HipBuffer::use_on`] with the calling thread's stream before enqueueing work on it, which
//! orders that work after the recorded use (a device-side event wait, only while the recorded
//! stream has not changed hands) and records the caller's stream. Dropping or releasing frees
//! by the runtime's rules: on the recorded stream while unchanged, else on the caller's.

use crate::device::DeviceBuffer;
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::{LastUse, Stream};

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
    pub fn ptr(&self) -> DevicePtr {
        self.inner.ptr()
    }

    /// Device address of element `offset` of type size `size`.
    pub(crate) fn at(&self, offset: usize, size: usize) -> DevicePtr {
        self.inner.ptr().offset(offset * size)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The record of the buffer's last use.
    pub fn last_use(&self) -> Option<LastUse> {
        self.inner.last_use()
    }

    /// The runtime's buffer.
    pub fn device_buffer(&self) -> &DeviceBuffer {
        &self.inner
    }

    /// Orders work enqueued on `stream` from now on after the buffer's last use, and makes
    /// `stream` its last use.
    pub fn use_on(&self, stream: &Stream) -> Result<()> {
        self.inner.use_on(stream)
    }

    /// Frees the buffer now (by the last-use rules), reporting errors.
    pub fn free(self) -> Result<()> {
        self.inner.free()
    }
}
