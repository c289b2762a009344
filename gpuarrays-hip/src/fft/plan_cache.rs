//! [`FftPlanCache`]: one device's cuFFT/rocFFT plans in core's `HandleCache`.
//!
//! - **Key**: the device and the whole [`FftPlanDesc`], core's backend-neutral
//!   `FftPlanKey` (kind, direction, precision, lengths, batch, strides and distances,
//!   placement); data pointers and offsets are not part of it, so one plan serves every
//!   buffer laid out alike.
//! - **Leased exclusively**: [`FftPlanCache::lease`] checks a plan out; until the lease is
//!   dropped no other thread can get it, so two threads asking for the same key at once get
//!   two plans (cuFFT's stream and work area are per plan: sharing one between threads races).
//! - **Budgets** on idle plans ([`Limits`]): per key, a count over all keys, and bytes over
//!   all keys; least recently returned evicted first, across keys (a plan used every
//!   iteration is always young). The bytes of a plan are the device memory it holds
//!   itself: its tables. Not its work area: with auto-allocation off a plan holds none (the
//!   areas come from the memory pool per stream, [`super::WorkAreas`]), so counting the work
//!   size the library reports evicted idle plans for memory they did not hold. Neither
//!   library reports its tables' size, so it is measured: the drop of the device's free
//!   memory across the plan's creation (the libraries allocate the tables then). Another
//!   thread's allocation at that moment can inflate it, which only makes the budget evict
//!   sooner.
//! - **Defaults** ([`DEFAULT_LIMITS`]): per device 64 idle plans, 4 per key, 1 GiB. Every
//!   device has its own cache and budget, so 8 devices of one host never evict each
//!   other's plans. the runtime's configuration ([`crate::RuntimeConfig::fft_plan_cache`],
//!   `GPUARRAYS_FFT_PLAN_CACHE=count[,bytes]` with an optional K, M or G suffix on the bytes)
//!   sets the count and byte budgets of every device's cache at creation, and
//!   [`FftPlanCache::set_limits`] changes one at run time; a count of 0 disables caching
//!   (every plan is destroyed after its transform).
//! - **Destruction**: an [`FftPlan`] owns what destroying it needs (platform, creating
//!   device, handle), so the cache's destructor runs on whichever thread evicts, outside the
//!   cache's lock, binds the creating device for the call (restoring the thread's own), and
//!   logs a failure instead of panicking.

use std::sync::Arc;

use gpuarrays_core::handle_cache::{Evicted, HandleCache, HandleCacheStats, Lease, Limits};

use crate::error::{HipError, Result};
use crate::platform::{DeviceId, FftPlanDesc, FftPlanHandle, FftPlanInfo, Platform};

pub use crate::runtime::{
    DEFAULT_FFT_PLAN_LIMITS as DEFAULT_LIMITS, FFT_PLAN_CACHE_ENV,
    parse_fft_plan_limits as parse_limits,
};

/// A plan with everything destroying it needs, captured by value.
pub struct FftPlan {
    platform: Arc<dyn Platform>,
    device: DeviceId,
    handle: FftPlanHandle,
    work_bytes: usize,
    /// Device memory the plan holds itself (measured at its creation).
    bytes: usize,
}

impl std::fmt::Debug for FftPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftPlan")
            .field("device", &self.device)
            .field("handle", &self.handle)
            .field("work_bytes", &self.work_bytes)
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl FftPlan {
    /// The library's handle.
    pub fn handle(&self) -> FftPlanHandle {
        self.handle
    }
    /// Work-area bytes each execution needs (taken from the stream's work area, not held).
    pub fn work_bytes(&self) -> usize {
        self.work_bytes
    }
    /// Device memory the plan holds itself (its tables), as measured at its creation: what
    /// the byte budget counts.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    /// The device the plan was created on.
    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// The cache's destructor: under the creating device, errors logged, never a panic.
    fn destroy(self) {
        if let Err(e) = self.platform.fft_plan_destroy(self.device, self.handle) {
            tracing::warn!(device = %self.device, plan = ?self.handle, error = %e, "destroying an FFT plan failed; its memory may leak");
        }
    }
}

/// The cache key: the device and the plan's description.
pub type FftPlanCacheKey = (DeviceId, FftPlanDesc);

/// A leased plan; dropping it returns the plan to the cache.
pub type FftPlanLease<'c> = Lease<'c, FftPlanCacheKey, FftPlan>;

/// One device's FFT plans (see the module documentation).
pub struct FftPlanCache {
    platform: Arc<dyn Platform>,
    device: DeviceId,
    cache: HandleCache<FftPlanCacheKey, FftPlan>,
}

impl std::fmt::Debug for FftPlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FftPlanCache")
            .field("device", &self.device)
            .field("cache", &self.cache)
            .finish()
    }
}

impl FftPlanCache {
    /// An empty cache for `device` with `limits`.
    pub fn new(platform: Arc<dyn Platform>, device: DeviceId, limits: Limits) -> Self {
        FftPlanCache {
            platform,
            device,
            cache: HandleCache::new(limits, FftPlan::destroy),
        }
    }

    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// Checks out an idle plan for `desc`, or creates one (outside the cache's lock). When
    /// creation runs out of memory, `release` is called (it should free idle plans and
    /// cached memory) and creation is tried once more; a second failure is
    /// [`HipError::LibraryOutOfMemory`].
    pub fn lease(&self, desc: &FftPlanDesc, release: impl Fn()) -> Result<FftPlanLease<'_>> {
        self.lease_counting(desc, || {
            release();
            0
        })
    }

    /// [`FftPlanCache::lease`] with a `release` that returns the bytes it released, which a
    /// second out-of-memory failure reports.
    pub fn lease_counting(
        &self,
        desc: &FftPlanDesc,
        release: impl Fn() -> usize,
    ) -> Result<FftPlanLease<'_>> {
        let create = || -> Result<(FftPlan, usize)> {
            let (info, bytes) = match self.create_measured(desc) {
                Err(e) if e.is_out_of_memory() => {
                    tracing::debug!(device = %self.device, error = %e, "FFT plan creation ran out of memory; releasing idle resources and retrying");
                    let released = release();
                    self.create_measured(desc).map_err(|e| {
                        if !e.is_out_of_memory() {
                            return e;
                        }
                        let info = self.platform.mem_info(self.device).unwrap_or_default();
                        HipError::LibraryOutOfMemory {
                            device: self.device,
                            what: "an FFT plan",
                            free: info.free,
                            total: info.total,
                            released,
                        }
                    })?
                }
                other => other?,
            };
            let plan = FftPlan {
                platform: self.platform.clone(),
                device: self.device,
                handle: info.handle,
                work_bytes: info.work_bytes,
                bytes,
            };
            Ok((plan, bytes))
        };
        self.cache
            .get_or_create((self.device, desc.clone()), create)
    }

    /// Creates a plan, measuring the device memory it took (see the module documentation).
    fn create_measured(&self, desc: &FftPlanDesc) -> Result<(FftPlanInfo, usize)> {
        let free = || self.platform.mem_info(self.device).map(|m| m.free);
        let before = free();
        let info = self.platform.fft_plan_create(self.device, desc)?;
        let bytes = match (before, free()) {
            (Ok(before), Ok(after)) => before.saturating_sub(after),
            _ => 0,
        };
        Ok((info, bytes))
    }

    /// Counters: hits, misses, evictions, live, idle, idle bytes, ...
    pub fn stats(&self) -> HandleCacheStats {
        self.cache.stats()
    }

    /// The current budgets.
    pub fn limits(&self) -> Limits {
        self.cache.limits()
    }

    /// Replaces the budgets; idle plans over them are destroyed now.
    pub fn set_limits(&self, limits: Limits) {
        self.cache.set_limits(limits)
    }

    /// Destroys every idle plan; returns how many.
    pub fn clear(&self) -> usize {
        self.cache.clear()
    }

    /// Destroys idle plans, oldest first, until `bytes` reported bytes are freed (all of
    /// them for `usize::MAX`).
    pub fn evict_idle(&self, bytes: usize) -> Evicted {
        self.cache.evict_idle(bytes)
    }
}
