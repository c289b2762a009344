//! What the facade can say about a device beyond the `Backend` trait, asked the same way
//! of every backend: lines for `gpuarrays info`, a device timer, a switch between a vendor
//! library and the backend's own matmul kernel.
//!
//! Why here: tools (the CLI's `info` and `bench`) used to reach into the HIP and wgpu
//! backends by type, so each new backend with such a feature meant edits in the tools.
//! Each query is a method of `BackendVariant` with a "nothing to say" default, answered in
//! `registry.rs` by the backends that have something to say.

use gpuarrays_core::Result;

use super::variant::BackendVariant;
use super::{AnyBackend, match_variant};

/// Times device work between `start` and `stop` (e.g. events on the calling thread's
/// stream): device time, free of the host's wake-up latency.
pub trait EventTimer: Send {
    /// What the timer measures, e.g. "hip-events".
    fn kind(&self) -> &'static str;
    /// Marks the start; work enqueued before it is not counted.
    fn start(&mut self) -> Result<()>;
    /// Marks the end, waits for the work in between, and returns its seconds.
    fn stop(&mut self) -> Result<f64>;
}

/// Timing events on the HIP thread stream.
#[cfg(feature = "hip")]
pub(crate) struct HipEvents(pub(crate) gpuarrays_hip::HipTimer);

#[cfg(feature = "hip")]
impl EventTimer for HipEvents {
    fn kind(&self) -> &'static str {
        "hip-events"
    }
    fn start(&mut self) -> Result<()> {
        Ok(self.0.start()?)
    }
    fn stop(&mut self) -> Result<f64> {
        Ok(self.0.stop()?)
    }
}

impl AnyBackend {
    /// Lines `gpuarrays info` prints about this device beyond its name and capabilities
    /// (HIP: the FFT plan cache; wgpu: how shaders are compiled); empty for most backends.
    pub fn info_lines(&self) -> Vec<String> {
        match_variant!(self, b => b.info_lines())
    }

    /// A timer of device time, if the backend has one (HIP: events); `None`: time with the
    /// wall clock around `synchronize`. `Some(Err)`: the backend has one but could not make
    /// it here.
    pub fn event_timer(&self) -> Option<Result<Box<dyn EventTimer>>> {
        match_variant!(self, b => b.event_timer())
    }

    /// Runs `f` with this device's matrix products on the backend's own kernel instead of a
    /// vendor library (HIP: instead of cuBLAS/rocBLAS), restoring the previous route after.
    /// `None`, with `f` not run, where the backend has no such choice.
    pub fn with_own_matmul_kernel<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        match_variant!(self, b => BackendVariant::with_own_matmul_kernel(b, f))
    }
}
