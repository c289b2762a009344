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
    /// A new handle on `state`'s device.
    pub fn create(state: &DeviceState) -> Result<OwnedBlasHandle> {
        let raw = state.platform().blas_create(state.id())?;
        tracing::debug!(device = %state.id(), handle = %raw, "BLAS handle created");
        Ok(OwnedBlasHandle {
            raw,
            device: state.id(),
            platform: state.platform().clone(),
            events: state.events().clone(),
            last_use: None,
        })
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
