//! [`DeviceBlas`]: the vendor BLAS state of one device: the handle cache, the precision
//! policy, and the product itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use gpuarrays_core::handle_cache::Limits;

use super::handle::{BlasHandleCache, OwnedBlasHandle};
use super::row_major::RowMajorProduct;
use super::thread_leases;
use crate::device::DeviceState;
use crate::error::{HipError, Result};
use crate::memory::HookId;
use crate::platform::BlasMath;
use crate::stream::Stream;

/// Idle handles kept per device by default: handles of exited threads, for the next threads.
pub const DEFAULT_IDLE_HANDLES: usize = 8;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The vendor BLAS of one device. See the [module documentation](super).
pub struct DeviceBlas {
    id: u64,
    state: Arc<DeviceState>,
    cache: Arc<BlasHandleCache>,
    reduced_precision: AtomicBool,
    hook: HookId,
}

impl std::fmt::Debug for DeviceBlas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBlas")
            .field("device", &self.state.id())
            .field("cache", &self.cache)
            .field("math", &self.math())
            .finish()
    }
}

impl DeviceBlas {
    /// The BLAS state of `state`'s device with the given precision (the backend passes its
    /// runtime's [`crate::runtime::KernelPolicy::blas_math`]). Nothing is loaded until the
    /// first product.
    pub fn with_math(state: Arc<DeviceState>, math: BlasMath) -> DeviceBlas {
        let limits = Limits::new(DEFAULT_IDLE_HANDLES, DEFAULT_IDLE_HANDLES);
        let cache = Arc::new(BlasHandleCache::with_drop(limits));
        let weak = Arc::downgrade(&cache);
        let hook = state.memory().release_hooks().register(
            "idle BLAS handles",
            Arc::new(move |_device| {
                let freed = weak.upgrade().map(|c| c.evict_idle(usize::MAX));
                tracing::debug!(?freed, "released idle BLAS handles on memory pressure");
                // What the handles took when they were created (measured).
                freed.map_or(0, |f| f.bytes)
            }),
        );
        DeviceBlas {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            state,
            cache,
            reduced_precision: AtomicBool::new(math == BlasMath::ReducedF32),
            hook,
        }
    }

    /// The identity the calling thread's lease is kept under.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The idle-handle cache (its counters, and its budgets through `set_limits`).
    pub fn cache(&self) -> &BlasHandleCache {
        &self.cache
    }

    /// The precision single-precision products run at.
    pub fn math(&self) -> BlasMath {
        if self.reduced_precision.load(Ordering::Relaxed) {
            BlasMath::ReducedF32
        } else {
            BlasMath::Exact
        }
    }

    /// Lets f32 and complex f32 products use reduced-precision tensor-core math (TF32 on
    /// NVIDIA, xf32 on AMD: inputs rounded to a 10-bit mantissa, about three decimal digits)
    /// from the next product on, or turns it off again. Off unless asked.
    pub fn set_reduced_precision(&self, on: bool) {
        self.reduced_precision.store(on, Ordering::Relaxed);
    }

    /// The library's name and version, loading it if needed (the error says what to install).
    pub fn version(&self) -> Result<String> {
        self.state.platform().blas_version()
    }

    /// Runs `f` with the calling thread's handle of this device, ordered on `stream`.
    /// Makes sure the calling thread holds a handle for its next [`DeviceBlas::gemm`]
    /// (creating one takes milliseconds): the ordering protocol calls this before it locks
    /// the operands, so no thread waits for another's handle creation.
    pub fn prepare_thread_handle(&self) -> Result<()> {
        let handle = self.take_handle()?;
        self.keep_handle(handle);
        Ok(())
    }

    fn with_handle<R>(
        &self,
        stream: &Stream,
        f: impl FnOnce(&OwnedBlasHandle) -> Result<R>,
    ) -> Result<R> {
        let mut handle = self.take_handle()?;
        let result = handle.use_on(stream).and_then(|()| f(&handle));
        self.keep_handle(handle);
        result
    }

    /// The calling thread's handle, else an idle one, else a new one.
    fn take_handle(&self) -> Result<OwnedBlasHandle> {
        if let Some(h) = thread_leases::take(self.id) {
            return Ok(h);
        }
        let create = || {
            self.create_handle().map(|h| {
                let bytes = h.bytes();
                (h, bytes)
            })
        };
        Ok(self.cache.pop_or_create(&self.state.id(), create)?.0)
    }

    /// Keep `handle` as the calling thread's (or give it to the idle cache).
    fn keep_handle(&self, handle: OwnedBlasHandle) {
        if let Some(h) = thread_leases::keep(self.id, Arc::downgrade(&self.cache), handle) {
            let bytes = h.bytes();
            self.cache.push(self.state.id(), h, bytes);
        }
    }

    /// A new handle. Creation that runs out of device memory (a handle allocates its
    /// workspace) releases what the device's memory pool can — its release hooks, this
    /// cache's idle handles among them, then its cached blocks — and is retried once; a
    /// second failure is [`HipError::LibraryOutOfMemory`].
    fn create_handle(&self) -> Result<OwnedBlasHandle> {
        match OwnedBlasHandle::create(&self.state) {
            Err(e) if e.is_out_of_memory() => {
                tracing::debug!(device = %self.state.id(), error = %e, "BLAS handle creation ran out of memory; releasing idle resources and retrying");
                let released = self.state.memory().release_for_retry(false);
                OwnedBlasHandle::create(&self.state).map_err(|e| {
                    if !e.is_out_of_memory() {
                        return e;
                    }
                    let info = self
                        .state
                        .platform()
                        .mem_info(self.state.id())
                        .unwrap_or_default();
                    HipError::LibraryOutOfMemory {
                        device: self.state.id(),
                        what: "a BLAS handle",
                        free: info.free,
                        total: info.total,
                        released,
                    }
                })
            }
            other => other,
        }
    }

    /// Enqueues `product` on `stream` through the library. The caller has ordered `stream`
    /// after the operands' last uses and checked their extents; `product.k ≥ 1` and
    /// `batch·m·n ≥ 1`, and the sizes fit 32 bits.
    pub fn gemm(&self, stream: &Stream, product: &RowMajorProduct) -> Result<()> {
        let gemm = product.column_major(self.math())?;
        self.with_handle(stream, |h| {
            // SAFETY: the caller checked that every operand's extent lies in its live buffer
            // (buffers outlive the call: their frees are stream-ordered after it), the handle
            // belongs to this device and is used by this thread only (taken out of its lease),
            // and `with_handle` ran on a thread bound to the device (thread_stream binds it).
            unsafe {
                self.state
                    .platform()
                    .blas_gemm(h.raw(), stream.handle(), &gemm)
            }
        })
    }
}

impl Drop for DeviceBlas {
    fn drop(&mut self) {
        self.state.memory().release_hooks().unregister(self.hook);
        // The calling thread's own lease goes back now; other threads' leases find the cache
        // gone and destroy their handles themselves.
        thread_leases::release(self.id);
    }
}
