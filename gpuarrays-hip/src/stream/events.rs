//! `EventPool`: recycled events of one device (creating an event per wait would cost a
//! platform call each time).

use crate::error::Result;
use crate::platform::{DeviceId, EventHandle, Platform};
use crate::sync::Mutex;
use std::sync::Arc;

/// Idle events of one device.
pub struct EventPool {
    device: DeviceId,
    platform: Arc<dyn Platform>,
    idle: Mutex<Vec<EventHandle>>,
}

impl std::fmt::Debug for EventPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventPool")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

/// Idle events kept at most; more are destroyed when returned.
const MAX_IDLE_EVENTS: usize = 256;

impl EventPool {
    pub(crate) fn new(platform: Arc<dyn Platform>, device: DeviceId) -> EventPool {
        EventPool {
            device,
            platform,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// An event of this device (recycled or new).
    pub fn get(&self) -> Result<EventHandle> {
        if let Some(e) = self.idle.lock().pop() {
            return Ok(e);
        }
        self.platform.create_event(self.device)
    }

    /// Return an event. A wait that was enqueued on it stays valid: a stream wait refers to
    /// the record that preceded it, not to later records.
    pub fn put(&self, event: EventHandle) {
        let mut idle = self.idle.lock();
        if idle.len() < MAX_IDLE_EVENTS {
            idle.push(event);
            return;
        }
        drop(idle);
        if let Err(e) = self.platform.destroy_event(event) {
            tracing::debug!(%event, error = %e, "destroying event failed");
        }
    }
}

impl Drop for EventPool {
    fn drop(&mut self) {
        for e in self.idle.get_mut().drain(..) {
            if let Err(err) = self.platform.destroy_event(e) {
                tracing::debug!(event = %e, error = %err, "destroying event failed");
            }
        }
    }
}
