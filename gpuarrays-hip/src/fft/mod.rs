//! FFTs on the HIP backend: cuFFT (NVIDIA) or rocFFT (AMD) plans in a bounded, exclusively
//! leased cache per device ([`FftPlanCache`]), work areas per (device, stream) from the
//! stream-ordered memory pool ([`WorkAreas`]), and what puts them together: [`FftState::prepare`]
//! leases the plan and takes the stream's work area (and, on AMD, a buffer for a copy of the
//! input) — everything slow, before the ordering protocol locks any operand — and
//! [`FftLaunch::enqueue`], called inside the protocol's launch, only enqueues. The work area
//! and the copy are operands of the transform like the caller's buffers ([`FftLaunch::accesses`],
//! both written), so their reuse and their frees are ordered after it as any buffer's are.
//! The plan goes back to the cache when the [`FftLaunch`] is dropped, after the enqueue.
//!
//! The device's memory pool runs [`FftState`]'s release hook when an allocation runs out of
//! memory: idle plans are destroyed (the hook reports the memory they held) and cached work
//! areas dropped (freed through the pool, which returns and counts them after the hooks),
//! then the allocation is retried. Plan creation that runs out of memory releases the same
//! way (the whole pool's release, `MemoryPool::release_for_retry`) and retries once; a
//! second failure is [`crate::HipError::LibraryOutOfMemory`].

mod plan_cache;
mod work_area;

pub use plan_cache::{
    DEFAULT_LIMITS, FFT_PLAN_CACHE_ENV, FftPlan, FftPlanCache, FftPlanCacheKey, FftPlanLease,
    parse_limits,
};
pub use work_area::{MAX_STREAMS, WorkAreas};

use std::sync::Arc;

use gpuarrays_core::handle_cache::Limits;

use smallvec::SmallVec;

use crate::device::{Access, DeviceBuffer, DeviceState};
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
                // Freed through the pool, which counts them when it returns them.
                let work = weak_work.upgrade().map_or(0, |w| w.release());
                tracing::debug!(plans, work, "released idle FFT plans and work areas");
                plans
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

    /// Frees what an out-of-memory retry can use (the pool's hooks — idle plans, work areas,
    /// BLAS handles, ... — then its cache); returns the bytes released.
    fn release(&self) -> usize {
        self.device.memory().release_for_retry(false)
    }

    /// Everything the transform `desc` on `stream` needs before it can be enqueued: a leased
    /// plan (created now if none is idle), the stream's work area, and on AMD a buffer for a
    /// copy of the input. Call before the ordering protocol takes its locks; pass
    /// [`FftLaunch::accesses`] to it with the caller's operands.
    pub fn prepare(
        &self,
        stream: &Stream,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
    ) -> Result<FftLaunch<'_>> {
        let plan = self.plans.lease_counting(desc, || self.release())?;
        // The real side of a real transform must start at an address aligned to its complex
        // type: cuFFT answers CUFFT_INVALID_VALUE otherwise (measured on the H200 for views
        // at odd element offsets, e.g. `rfft` of `x[1..]` or along a middle axis). Such an
        // operand goes through an aligned copy of its span (same layout from offset 0).
        let align = 2 * if desc.double { 8 } else { 4 };
        let input_misaligned = desc.kind == FftKind::R2C && input.0 % align != 0;
        let output_misaligned = desc.kind == FftKind::C2R && output.0 % align != 0;
        // rocFFT may overwrite the input of any out-of-place transform (rocfft.h says so;
        // cuFFT only for C2R, whose input core already copies): give it a copy.
        let amd_copy = self.device.platform().kind() == PlatformKind::Amd
            && !desc.in_place
            && desc.kind != FftKind::C2R;
        let input_copy = if amd_copy || input_misaligned {
            Some(self.device.alloc_on(input_span(desc), stream)?)
        } else {
            None
        };
        let output_copy = if output_misaligned {
            Some(self.device.alloc_on(output_span(desc), stream)?)
        } else {
            None
        };
        let work = self.work.get(stream, plan.work_bytes())?;
        Ok(FftLaunch {
            state: self,
            plan,
            work,
            input_copy,
            output_copy,
        })
    }
}

/// A transform ready to be enqueued ([`FftState::prepare`]): its plan, leased until this is
/// dropped, its work area and the buffer of the input's copy.
pub struct FftLaunch<'s> {
    state: &'s FftState,
    plan: FftPlanLease<'s>,
    work: Option<Arc<DeviceBuffer>>,
    input_copy: Option<DeviceBuffer>,
    /// Where a C2R whose real output is misaligned writes, copied to the output after.
    output_copy: Option<DeviceBuffer>,
}

impl std::fmt::Debug for FftLaunch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftLaunch")
            .field("plan", &*self.plan)
            .field("work", &self.work)
            .field("input_copy", &self.input_copy)
            .field("output_copy", &self.output_copy)
            .finish()
    }
}

impl FftLaunch<'_> {
    /// The runtime's own operands of the transform (the work area and the input's copy, both
    /// written), for the ordering protocol beside the caller's.
    pub fn accesses(&self) -> SmallVec<[Access<'_>; 2]> {
        self.work
            .as_deref()
            .into_iter()
            .chain(self.input_copy.as_ref())
            .chain(self.output_copy.as_ref())
            .map(Access::write)
            .collect()
    }

    /// Enqueues the transform from `input` to `output` on `stream` (on AMD out of place,
    /// first the copy of the input the transform then reads). Only enqueues: call inside
    /// the ordering protocol's launch.
    ///
    /// # Safety
    /// `input` and `output` must point into live allocations of the stream's device laid
    /// out as the prepared description says (the same pointer iff it is in place), ordered
    /// on `stream` with [`FftLaunch::accesses`] (the ordering protocol's launch is), and stay
    /// alive until the transform has run (stream-ordered frees do).
    pub unsafe fn enqueue(
        &self,
        stream: &Stream,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
    ) -> Result<()> {
        let platform = self.state.device.platform();
        let input = match &self.input_copy {
            Some(copy) => {
                // SAFETY: the copy holds `input_span(desc)` bytes; the input's range is the
                // caller's contract; both are ordered on `stream`, the copy before the
                // transform that reads it.
                unsafe {
                    platform.copy_dtod_async(
                        copy.ptr(),
                        input,
                        input_span(desc),
                        stream.handle(),
                    )?;
                }
                copy.ptr()
            }
            None => input,
        };
        let final_output = output;
        let output = match &self.output_copy {
            Some(copy) => {
                // SAFETY: the copy holds `output_span(desc)` bytes; the output's range is the
                // caller's contract. The elements between the transform's outputs (other
                // lines of a strided view) travel to the copy and back unchanged.
                unsafe {
                    platform.copy_dtod_async(
                        copy.ptr(),
                        output,
                        output_span(desc),
                        stream.handle(),
                    )?;
                }
                copy.ptr()
            }
            None => output,
        };
        let (work, work_bytes) = match &self.work {
            Some(a) => (a.ptr(), a.len()),
            None => (DevicePtr(0), 0),
        };
        // SAFETY: the plan is leased to this thread alone; the work area holds at least the
        // plan's size and is ordered on `stream` (a declared operand, freed only after this
        // use); the operands are the caller's contract.
        unsafe {
            platform.fft_execute(
                self.plan.handle(),
                desc,
                input,
                output,
                work,
                work_bytes,
                stream.handle(),
            )?;
        }
        if let Some(copy) = &self.output_copy {
            // SAFETY: as above; ordered after the transform on `stream`.
            unsafe {
                platform.copy_dtod_async(
                    final_output,
                    copy.ptr(),
                    output_span(desc),
                    stream.handle(),
                )?;
            }
        }
        Ok(())
    }
}

/// Bytes from the first input element of `desc` to one past the last.
fn input_span(desc: &FftPlanDesc) -> usize {
    span(
        &desc.input_embed(),
        desc.batch,
        desc.input_dist,
        desc.input_stride,
        desc.input_element_bytes(),
    )
}

/// Bytes from the first output element of `desc` to one past the last.
fn output_span(desc: &FftPlanDesc) -> usize {
    span(
        &desc.output_embed(),
        desc.batch,
        desc.output_dist,
        desc.output_stride,
        desc.output_element_bytes(),
    )
}

/// Bytes spanned by `batch` transforms of `embed` elements each, `dist` apart, `stride`
/// apart within one, elements of `elem` bytes.
fn span(embed: &[usize], batch: usize, dist: usize, stride: usize, elem: usize) -> usize {
    let per: usize = embed.iter().product();
    ((batch - 1) * dist + stride * (per - 1) + 1) * elem
}

impl Drop for FftState {
    fn drop(&mut self) {
        self.device.memory().release_hooks().unregister(self.hook);
    }
}
