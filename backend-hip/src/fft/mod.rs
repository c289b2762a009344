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
use crate::platform::{DevicePtr, FftPlanDesc, PlatformKind};
use crate::stream::Stream;
use gpuarrays_core::kernel::FftKind;

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
        // rocFFT may overwrite the input of any out-of-place transform (rocfft.h says so;
        // cuFFT only for C2R, whose input core already copies): give it a copy.
        let scratch = if self.device.platform().kind() == PlatformKind::Amd
            && !desc.in_place
            && desc.kind != FftKind::C2R
        {
            let bytes = input_span(desc);
            let copy = self.device.alloc_on(bytes, stream)?;
            // SAFETY: both ranges lie in live allocations of this device (the input's is the
            // caller's contract); the copy is ordered on `stream` before the transform.
            unsafe {
                self.device.platform().copy_dtod_async(
                    copy.ptr(),
                    input,
                    bytes,
                    stream.handle(),
                )?;
            }
            Some(copy)
        } else {
            None
        };
        let input = scratch.as_ref().map_or(input, |s| s.ptr());
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

/// Bytes from the first input element of `desc` to one past the last.
fn input_span(desc: &FftPlanDesc) -> usize {
    let per: usize = desc.input_embed.iter().product();
    ((desc.batch - 1) * desc.input_dist + desc.input_stride * (per - 1) + 1)
        * desc.input_element_bytes()
}

impl Drop for FftState {
    fn drop(&mut self) {
        self.device.memory().release_hooks().unregister(self.hook);
    }
}
