//! `DeviceBuffer`: one allocation plus the record of its last use. Dropping it frees the
//! allocation by the `LastUse` rules, on the dropping thread's stream where they say so.
//!
//! It holds its device's whole state (the memory pool to free into, the thread's stream to
//! free on), which is why it lives here beside [`DeviceState`] and not in the pool layer.

use super::DeviceState;
use crate::error::{HipError, Result};
use crate::memory::DeviceAllocation;
use crate::platform::{DeviceId, DevicePtr};
use crate::stream::{LastUse, Stream};
use parking_lot::Mutex;
use std::sync::Arc;

/// An owned device allocation with its last use. See the module documentation.
pub struct DeviceBuffer {
    alloc: Option<DeviceAllocation>,
    device: Arc<DeviceState>,
    last_use: Mutex<Option<LastUse>>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("alloc", &self.alloc)
            .field("last_use", &*self.last_use.lock())
            .finish()
    }
}

impl DeviceBuffer {
    pub(crate) fn new(alloc: DeviceAllocation, device: Arc<DeviceState>, stream: &Stream) -> Self {
        DeviceBuffer {
            alloc: Some(alloc),
            device,
            last_use: Mutex::new(Some(LastUse::new(stream))),
        }
    }

    fn alloc(&self) -> &DeviceAllocation {
        // Invariant: `alloc` is Some from construction until `free`/`drop` consume it.
        self.alloc.as_ref().expect("DeviceBuffer used after free")
    }

    /// Device address.
    pub fn ptr(&self) -> DevicePtr {
        self.alloc().ptr()
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.alloc().len()
    }
    /// Whether the buffer has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device.id()
    }
    /// The record of the last use.
    pub fn last_use(&self) -> Option<LastUse> {
        self.last_use.lock().clone()
    }

    /// Ownership transfer to `caller`: work enqueued on `caller` from now on is ordered after
    /// the last use, and `caller` becomes the last use. Call before enqueueing work that
    /// touches the buffer.
    pub fn use_on(&self, caller: &Stream) -> Result<()> {
        if caller.device() != self.device() {
            return Err(HipError::InvalidArgument(format!(
                "buffer lives on device {}, stream belongs to device {}",
                self.device(),
                caller.device()
            )));
        }
        let mut lu = self.last_use.lock();
        match lu.as_mut() {
            Some(l) => l.transfer_to(caller, self.device.events())?,
            None => *lu = Some(LastUse::new(caller)),
        }
        Ok(())
    }

    /// Copy `src` into the buffer (ordered on `caller`, and finished when this returns).
    pub fn copy_from_host(&self, caller: &Stream, src: &[u8]) -> Result<()> {
        self.check_len(src.len())?;
        self.use_on(caller)?;
        self.device.platform().bind_device(self.device())?;
        // SAFETY: `src` is a live slice of `src.len()` bytes and we synchronise below before
        // the borrow ends; the destination is this buffer's allocation, at least that long.
        unsafe {
            self.device.platform().copy_htod_async(
                self.ptr(),
                src.as_ptr().cast(),
                src.len(),
                caller.handle(),
            )?;
        }
        caller.synchronize()
    }

    /// Copy the buffer's first `dst.len()` bytes into `dst` (finished when this returns).
    pub fn copy_to_host(&self, caller: &Stream, dst: &mut [u8]) -> Result<()> {
        self.check_len(dst.len())?;
        self.use_on(caller)?;
        self.device.platform().bind_device(self.device())?;
        // SAFETY: `dst` is a live, exclusively borrowed slice and we synchronise below before
        // the borrow ends; the source is this buffer's allocation, at least that long.
        unsafe {
            self.device.platform().copy_dtoh_async(
                dst.as_mut_ptr().cast(),
                self.ptr(),
                dst.len(),
                caller.handle(),
            )?;
        }
        caller.synchronize()
    }

    fn check_len(&self, n: usize) -> Result<()> {
        if n > self.len() {
            return Err(HipError::InvalidArgument(format!(
                "{n} bytes do not fit a buffer of {} bytes",
                self.len()
            )));
        }
        Ok(())
    }

    /// Free now, on `caller`'s stream where the rules say so, reporting errors.
    pub fn free_on(mut self, caller: &Stream) -> Result<()> {
        let alloc = self.alloc.take();
        let lu = self.last_use.lock().take();
        match alloc {
            Some(a) => self.device.memory().free(a, lu.as_ref(), caller),
            None => Ok(()),
        }
    }

    /// Free now, with the calling thread's stream as the caller's stream.
    pub fn free(self) -> Result<()> {
        let caller = self.device.thread_stream()?;
        self.free_on(&caller)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let Some(alloc) = self.alloc.take() else {
            return;
        };
        let lu = self.last_use.get_mut().take();
        let result = match self.device.thread_stream() {
            Ok(caller) => self.device.memory().free(alloc, lu.as_ref(), &caller),
            Err(_) => self.device.memory().free_without_caller(alloc, lu),
        };
        if let Err(e) = result {
            tracing::warn!(device = %self.device.id(), error = %e, "freeing a device buffer failed; its memory leaks");
        }
    }
}
