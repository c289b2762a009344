//! [`OwnedBlasHandle`]: one vendor BLAS handle with everything its destruction needs, and the
//! record of its last use.

use std::sync::Arc;

use gpuarrays_core::handle_cache::HandleCache;

use crate::device::DeviceState;
use crate::error::Result;
use crate::platform::{BlasHandle, DeviceId, Platform};
use crate::stream::{EventPool, Stream, Use};

/// Idle BLAS handles of one device, keyed by the device (one key: the cache is per device).
pub type BlasHandleCache = HandleCache<DeviceId, OwnedBlasHandle>;

/// A BLAS handle owned by gpuarrays. It carries the device it was created on and the
/// platform by value, so whichever thread drops it (an eviction, a thread exiting, the cache
/// going away) destroys the right handle under the right device. Dropping it waits for its
/// last product, then destroys it; errors are logged, never raised.
pub struct OwnedBlasHandle {
    raw: BlasHandle,
    device: DeviceId,
    platform: Arc<dyn Platform>,
    events: Arc<EventPool>,
    /// The stream (and generation) of the last product run with the handle.
    last_use: Option<Use>,
    /// Device memory the handle took when it was created (its workspace; measured, as the
    /// libraries do not report it).
    bytes: usize,
}

impl std::fmt::Debug for OwnedBlasHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedBlasHandle")
            .field("raw", &self.raw)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl OwnedBlasHandle {
    /// A new handle on `state`'s device. The device memory it takes is measured as the drop
    /// of the device's free memory across its creation (another thread's allocation at that
    /// moment can inflate it).
    pub fn create(state: &DeviceState) -> Result<OwnedBlasHandle> {
        let platform = state.platform();
        let free = || platform.mem_info(state.id()).map(|m| m.free);
        let before = free();
        let raw = platform.blas_create(state.id())?;
        let bytes = match (before, free()) {
            (Ok(before), Ok(after)) => before.saturating_sub(after),
            _ => 0,
        };
        tracing::debug!(device = %state.id(), handle = %raw, bytes, "BLAS handle created");
        Ok(OwnedBlasHandle {
            raw,
            device: state.id(),
            platform: platform.clone(),
            events: state.events().clone(),
            last_use: None,
            bytes,
        })
    }

    /// Device memory the handle took when it was created (what the idle cache counts, and
    /// what evicting it on memory pressure gives back).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The library handle.
    pub fn raw(&self) -> BlasHandle {
        self.raw
    }

    /// The device it is bound to.
    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// Orders work enqueued on `stream` from now on after the handle's last product (a
    /// device-side wait, only when that product ran on another stream that has not changed
    /// hands since) and makes `stream` its last use. Call before each product: the handle's
    /// workspace is shared by every product run with it.
    pub fn use_on(&mut self, stream: &Stream) -> Result<()> {
        if let Some(l) = &self.last_use {
            l.order_before(stream, &self.events)?;
        }
        self.last_use = Some(Use::new(stream));
        Ok(())
    }
}

impl Drop for OwnedBlasHandle {
    fn drop(&mut self) {
        if let Some(l) = self.last_use.take()
            && let Err(e) = self
                .platform
                .bind_device(self.device)
                .and_then(|()| l.synchronize(&self.events))
        {
            tracing::debug!(device = %self.device, error = %e, "waiting for a BLAS handle's last product failed");
        }
        match self.platform.blas_destroy(self.device, self.raw) {
            Ok(()) => {
                tracing::debug!(device = %self.device, handle = %self.raw, "BLAS handle destroyed")
            }
            Err(e) => {
                tracing::warn!(device = %self.device, handle = %self.raw, error = %e, "destroying a BLAS handle failed; it leaks")
            }
        }
    }
}
