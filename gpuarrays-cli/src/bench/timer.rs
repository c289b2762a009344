//! [`DeviceTimer`]: how a benchmark row's time is taken on one backend.
//!
//! Each backend measures the way its platform allows, behind one trait, so that a backend
//! with a better clock can replace the fallback without touching the suite:
//! - HIP: timing events recorded on the calling thread's stream ([`EventTimer`], through
//!   the facade's `AnyBackend::event_timer`): device time, free of the host's wake-up
//!   latency;
//! - every other backend (the CPU reference; wgpu until it gains timestamp queries): the wall
//!   clock between a synchronize before and a synchronize after ([`WallClockTimer`]).
//!
//! A wgpu timer would implement the trait with a query set of two timestamps written at the
//! start and end of the measured passes, resolved and read back in `stop`.

use std::time::Instant;

use gpuarrays::{AnyBackend, Backend, Result};

/// Times the work a thread enqueues between `start` and `stop`.
pub trait DeviceTimer {
    /// What the timer measures, recorded with each row ("hip-events", "wall-clock").
    fn kind(&self) -> &'static str;
    /// Marks the start; work enqueued before it is not counted.
    fn start(&mut self) -> Result<()>;
    /// Marks the end, waits for the work in between, and returns its seconds.
    fn stop(&mut self) -> Result<f64>;
}

/// The wall clock between two synchronizations of the backend.
pub struct WallClockTimer {
    backend: AnyBackend,
    started: Option<Instant>,
}

impl WallClockTimer {
    pub fn new(backend: AnyBackend) -> Self {
        WallClockTimer {
            backend,
            started: None,
        }
    }
}

impl DeviceTimer for WallClockTimer {
    fn kind(&self) -> &'static str {
        "wall-clock"
    }
    fn start(&mut self) -> Result<()> {
        self.backend.synchronize()?;
        self.started = Some(Instant::now());
        Ok(())
    }
    fn stop(&mut self) -> Result<f64> {
        self.backend.synchronize()?;
        let t0 = self
            .started
            .take()
            .ok_or_else(|| gpuarrays::Error::InvalidArgument {
                op: "bench timer".into(),
                reason: "stopped before it was started".into(),
            })?;
        Ok(t0.elapsed().as_secs_f64())
    }
}

/// The device's own timer ([`AnyBackend::event_timer`]; HIP: events on the thread's stream).
pub struct EventTimer(Box<dyn gpuarrays::EventTimer>);

impl DeviceTimer for EventTimer {
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
    fn start(&mut self) -> Result<()> {
        self.0.start()
    }
    fn stop(&mut self) -> Result<f64> {
        self.0.stop()
    }
}

/// The best timer `backend` has. A device timer is tried once first: one that cannot time
/// here (HIP: `cuEventElapsedTime_v2` needs CUDA 12.8+) falls back to the wall clock, with
/// a warning on stderr.
pub fn timer_for(backend: &AnyBackend) -> Result<Box<dyn DeviceTimer>> {
    if let Some(made) = backend.event_timer() {
        let probed = made.and_then(|mut t| {
            t.start()?;
            t.stop()?;
            Ok(t)
        });
        match probed {
            Ok(t) => return Ok(Box::new(EventTimer(t))),
            Err(e) => eprintln!(
                "{}: device timing unavailable ({e}); using the wall clock",
                backend.name()
            ),
        }
    }
    Ok(Box::new(WallClockTimer::new(backend.clone())))
}
