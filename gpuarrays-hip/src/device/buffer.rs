//! `DeviceBuffer`: one allocation plus the record of every stream that may still use it
//! ([`BufferUses`]). Work on it goes through [`DeviceState::enqueue`]; dropping it frees the
//! allocation into the memory pool, which reuses the memory only after every recorded use.
//!
//! It holds its device's whole state (the memory pool to free into, the thread's stream to
//! free on), which is why it lives here beside [`DeviceState`] and not in the pool layer.

use super::DeviceState;
use crate::error::{HipError, Result};
use crate::memory::DeviceAllocation;
use crate::platform::{DeviceId, DevicePtr};
use crate::stream::{BufferUses, Stream};
use crate::sync::{Mutex, MutexGuard};
use std::sync::Arc;

/// An owned device allocation with its uses. See the module documentation.
pub struct DeviceBuffer {
    alloc: Option<DeviceAllocation>,
    /// Copied from the allocation: `ptr()` and `len()` stay answerable (and never panic)
    /// after `free` took it.
    ptr: DevicePtr,
    len: usize,
    device: Arc<DeviceState>,
    /// Shared with the recordings of graphs that use the buffer, so their launches are
    /// recorded where the buffer's later work and its free look (`stream/recording.rs`).
    uses: Arc<Mutex<BufferUses>>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("uses", &*self.uses.lock())
            .finish()
    }
}

impl DeviceBuffer {
    pub(crate) fn new(alloc: DeviceAllocation, device: Arc<DeviceState>, stream: &Stream) -> Self {
        DeviceBuffer {
            ptr: alloc.ptr(),
            len: alloc.len(),
            alloc: Some(alloc),
            device,
            uses: Arc::new(Mutex::new(BufferUses::written_by(stream))),
        }
    }

    /// A buffer over `len` bytes at `ptr` that another library allocated (a DLPack import):
    /// no allocation of its own, so dropping or freeing it gives nothing to the pool. No use
    /// is recorded yet: the owner's work on it must already be ordered before this thread's
    /// stream (the DLPack consumer passes that stream to the producer).
    pub(crate) fn foreign(ptr: DevicePtr, len: usize, device: Arc<DeviceState>) -> Self {
        DeviceBuffer {
            alloc: None,
            ptr,
            len,
            device,
            uses: Arc::new(Mutex::new(BufferUses::default())),
        }
    }

    /// Blocks the host until every recorded use of the buffer has completed (before a
    /// foreign buffer goes back to its owner, who may free or reuse it at once).
    pub fn wait_uses_on_host(&self) -> Result<()> {
        let live = self.uses.lock().live();
        let events = self.device.events();
        let mut first_error = None;
        for u in live {
            if let Err(e) = u.synchronize(events) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Device address.
    #[inline]
    pub fn ptr(&self) -> DevicePtr {
        self.ptr
    }
    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device.
    #[inline]
    pub fn device(&self) -> DeviceId {
        self.device.id()
    }
    /// The device's state.
    #[inline]
    pub fn device_state(&self) -> &Arc<DeviceState> {
        &self.device
    }
    /// A snapshot of the uses that may not have completed (for tests and diagnostics; the
    /// records change with every operation on the buffer).
    pub fn uses(&self) -> BufferUses {
        self.uses.lock().clone()
    }

    #[inline]
    pub(crate) fn uses_lock(&self) -> MutexGuard<'_, BufferUses> {
        self.uses.lock()
    }

    /// The shared use record (the ordering protocol's lock-order key is its address).
    #[inline]
    pub(crate) fn uses_record(&self) -> &Arc<Mutex<BufferUses>> {
        &self.uses
    }

    /// Copy `src` into the buffer (ordered on `caller` after every use, and finished when
    /// this returns). Large copies are staged through pinned memory (`staged_copy.rs`).
    pub fn copy_from_host(&self, caller: &Stream, src: &[u8]) -> Result<()> {
        self.copy_from_host_at(caller, 0, src)
    }

    /// Copy the buffer's first `dst.len()` bytes into `dst` (finished when this returns).
    pub fn copy_to_host(&self, caller: &Stream, dst: &mut [u8]) -> Result<()> {
        self.copy_to_host_at(caller, 0, dst)
    }

    /// Free now, `caller` being the freeing thread's stream, reporting errors. The memory is
    /// reused only after every recorded use.
    pub fn free_on(mut self, caller: &Stream) -> Result<()> {
        match self.alloc.take() {
            Some(a) => self.device.memory().release(a, &self.uses, Some(caller)),
            None => Ok(()),
        }
    }

    /// Free now, with the calling thread's stream as the caller's stream.
    pub fn free(self) -> Result<()> {
        let caller = self.device.thread_stream()?;
        self.free_on(&caller)
    }
}

/// A host copy enqueued into a graph capture would run when the graph is launched, after the
/// host slice is gone: refused with a typed error (and no platform call that would
/// invalidate the capture).
pub(crate) fn refuse_capture(stream: &Stream, what: &'static str) -> Result<()> {
    if stream.is_capturing()? {
        return Err(HipError::StreamCapturing {
            stream: stream.handle().0,
            what,
        });
    }
    Ok(())
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let Some(alloc) = self.alloc.take() else {
            return;
        };
        let caller = self.device.thread_stream().ok();
        let result = self
            .device
            .memory()
            .release(alloc, &self.uses, caller.as_ref());
        if let Err(e) = result {
            tracing::warn!(device = %self.device.id(), error = %e, "freeing a device buffer failed; its memory leaks");
        }
    }
}
