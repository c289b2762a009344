//! FFTs on the HIP backend: cuFFT (NVIDIA) or rocFFT (AMD) plans in a bounded, exclusively
//! leased cache per device ([`FftPlanCache`]), work areas per (device, stream) from the
//! stream-ordered memory pool ([`WorkAreas`]), and the execution that puts them together
//! ([`FftState::execute`]): lease the plan, take the stream's work area, set both at the call,
//! return the plan.
//!
//! The device's memory pool runs [`FftState`]'s release hook when an allocation runs out of
//! memory: idle plans are destroyed and cached work areas dropped, then the allocation is
//! retried. Plan creation that runs out of memory does the same and retries once.

mod plan_cache;
mod work_area;

pub use plan_cache::{
    DEFAULT_LIMITS, FFT_PLAN_CACHE_ENV, FftPlan, FftPlanCache, FftPlanKey, FftPlanLease,
    limits_from_env, parse_limits,
};
pub use work_area::{MAX_STREAMS, WorkAreas};

use std::sync::Arc;

use gpuarrays_core::handle_cache::Limits;

use crate::device::DeviceState;
use crate::error::Result;
use crate::memory::HookId;
use crate::platform::{DevicePtr, FftPlanDesc};
use crate::stream::Stream;

/// One device's FFT state: its plan cache and work areas, registered as a release hook of
/// the device's memory pool while it lives.
pub struct FftState {
    device: Arc<DeviceState>,
    plans: Arc<FftPlanCache>,
    work: Arc<WorkAreas>,
    hook: HookId,
}

impl std::fmt::Debug for FftState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftState")
            .field("plans", &self.plans)
            .field("work", &self.work)
            .finish()
    }
}

impl FftState {
    /// The FFT state of `device` with plan budgets `limits`.
    pub fn new(device: Arc<DeviceState>, limits: Limits) -> FftState {
        let plans = Arc::new(FftPlanCache::new(
            device.platform().clone(),
            device.id(),
            limits,
        ));
        let work = Arc::new(WorkAreas::new(device.clone()));
        let (weak_plans, weak_work) = (Arc::downgrade(&plans), Arc::downgrade(&work));
        let hook = device.memory().release_hooks().register(
            "idle FFT plans and work areas",
            Arc::new(move |_device| {
                let plans = weak_plans
                    .upgrade()
                    .map_or(0, |p| p.evict_idle(usize::MAX).bytes);
                let work = weak_work.upgrade().map_or(0, |w| w.release());
                plans + work
            }),
        );
        FftState {
            device,
            plans,
            work,
            hook,
        }
    }

    /// The plan cache (stats, budgets, clear).
    pub fn plan_cache(&self) -> &FftPlanCache {
        &self.plans
    }

    /// The work areas.
    pub fn work_areas(&self) -> &WorkAreas {
        &self.work
    }

    /// Frees what an out-of-memory retry can use: idle plans, work areas, cached blocks.
    fn release(&self) {
        self.plans.evict_idle(usize::MAX);
        self.work.release();
        self.device.memory().trim();
    }

    /// Enqueues the transform `desc` from `input` to `output` on `stream`.
    ///
    /// # Safety
    /// `input` and `output` must point into live allocations of the stream's device laid
    /// out as `desc` says (the same pointer iff `desc.in_place`), ordered on `stream`, and
    /// stay alive until the transform has run (stream-ordered frees do).
    pub unsafe fn execute(
        &self,
        stream: &Stream,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
    ) -> Result<()> {
        let plan = self.plans.lease(desc, || self.release())?;
        let area = self.work.get(stream, plan.work_bytes())?;
        let (work, work_bytes) = match &area {
            Some(a) => (a.ptr(), a.len()),
            None => (DevicePtr(0), 0),
        };
        // SAFETY: the plan is leased to this thread alone; the work area holds at least the
        // plan's size and is ordered on `stream` (and freed only after this enqueue); the
        // operands are the caller's contract.
        unsafe {
            self.device.platform().fft_execute(
                plan.handle(),
                desc,
                input,
                output,
                work,
                work_bytes,
                stream.handle(),
            )
        }
    }
}

impl Drop for FftState {
    fn drop(&mut self) {
        self.device.memory().release_hooks().unregister(self.hook);
    }
}
