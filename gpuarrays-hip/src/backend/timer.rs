//! [`HipTimer`]: device-side timing of work enqueued by the calling thread, with timing
//! events on its stream, for benchmarks (`gpuarrays bench`) and profiling by hand.
//!
//! Device time is what the GPU spent between the two records: it excludes the host's enqueue
//! cost and the wake-up latency a host-side synchronize adds, which dominate microsecond
//! operations. The events are recorded on the thread's stream, so only work ordered on that
//! stream (everything the thread enqueues on this device) is between them.

use std::sync::Arc;

use super::HipBackend;
use crate::device::DeviceState;
use crate::error::Result;
use crate::platform::EventHandle;

/// Two timing events of one device. Create with [`HipBackend::timer`].
///
/// ```no_run
/// # fn main() -> gpuarrays_hip::Result<()> {
/// use gpuarrays_hip::HipBackend;
/// let hip = HipBackend::new(0)?;
/// let mut timer = hip.timer()?;
/// timer.start()?;
/// // ... enqueue work on this thread ...
/// let seconds = timer.stop()?; // waits for the work, returns the device time
/// # let _ = seconds; Ok(()) }
/// ```
pub struct HipTimer {
    state: Arc<DeviceState>,
    start: EventHandle,
    end: EventHandle,
    started: bool,
}

impl std::fmt::Debug for HipTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipTimer")
            .field("device", &self.state.id())
            .field("started", &self.started)
            .finish()
    }
}

impl HipTimer {
    pub(crate) fn new(state: Arc<DeviceState>) -> Result<HipTimer> {
        let platform = state.platform();
        let start = platform.create_timing_event(state.id())?;
        let end = match platform.create_timing_event(state.id()) {
            Ok(e) => e,
            Err(e) => {
                let _ = platform.destroy_event(start);
                return Err(e);
            }
        };
        Ok(HipTimer {
            state,
            start,
            end,
            started: false,
        })
    }

    /// Records the start at the current end of the calling thread's stream.
    pub fn start(&mut self) -> Result<()> {
        let stream = self.state.thread_stream()?;
        self.state
            .platform()
            .record_event(self.start, stream.handle())?;
        self.started = true;
        Ok(())
    }

    /// Records the end on the calling thread's stream, waits for it, and returns the device
    /// seconds since [`start`](Self::start).
    pub fn stop(&mut self) -> Result<f64> {
        if !self.started {
            return Err(crate::error::HipError::InvalidArgument(
                "HipTimer::stop without start: call start() first".into(),
            ));
        }
        let stream = self.state.thread_stream()?;
        let platform = self.state.platform();
        platform.record_event(self.end, stream.handle())?;
        platform.synchronize_event(self.end)?;
        self.started = false;
        Ok(platform.event_elapsed_ms(self.start, self.end)? as f64 * 1e-3)
    }
}

impl Drop for HipTimer {
    fn drop(&mut self) {
        for e in [self.start, self.end] {
            if let Err(err) = self.state.platform().destroy_event(e) {
                tracing::debug!(event = %e, error = %err, "destroying a timing event failed");
            }
        }
    }
}

impl HipBackend {
    /// A device-side timer on this device (see [`HipTimer`]).
    pub fn timer(&self) -> Result<HipTimer> {
        HipTimer::new(self.device_state().clone())
    }
}
