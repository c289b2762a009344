//! Getting memory back: the out-of-memory retry, and returning cached blocks to the
//! platform.
//!
//! **The retry's order.** On out-of-memory the pool releases, in this order:
//! 1. the release hooks: idle FFT plans and BLAS handles (destroyed, their memory back with
//!    the platform), FFT work areas and other buffers they hold (dropped, which frees them
//!    *through this pool*, into its cache), idle streams;
//! 2. frees deferred by a capture that has ended since;
//! 3. every cached block, now including what 1 and 2 put there, back to the platform;
//! 4. a device synchronisation so those frees have completed — skipped while a capture runs
//!    anywhere in the process (it would invalidate the capture);
//!
//! then retries once. Draining the cache before the hooks left what they freed cached and
//! the retry failed although enough had been freed.
//!
//! **What "released" counts.** The bytes that went back to the platform: the cached blocks
//! returned (exact), plus what the hooks report they returned themselves (plans and handles:
//! the device memory measured when each was created). What a hook frees through this pool is
//! counted once, when the pool returns it. A request larger than the device's whole memory
//! (or than any size class: up to `usize::MAX`) fails at once, releasing nothing.

use super::{Block, MemoryPool};
use crate::error::{HipError, Result};
use crate::platform::{DevicePtr, StreamHandle};
use crate::stream::{Origin, Stream, StreamPriority, captures_active};
use std::sync::atomic::Ordering;

impl MemoryPool {
    /// Fail at once with out-of-memory when a block of `block` bytes (for a request of
    /// `requested`) cannot exist on this device (a total of 0 means the platform did not
    /// say).
    pub(super) fn check_satisfiable(&self, block: usize, requested: usize) -> Result<()> {
        if self.total_bytes == 0 || block <= self.total_bytes {
            return Ok(());
        }
        Err(self.unsatisfiable(requested))
    }

    /// The out-of-memory error of a request no device memory can hold.
    pub(super) fn unsatisfiable(&self, requested: usize) -> HipError {
        let free = self.platform.mem_info(self.device).map_or(0, |m| m.free);
        tracing::debug!(device = %self.device, requested, total = self.total_bytes, "a request larger than the device's memory");
        HipError::OutOfMemory {
            device: self.device,
            requested,
            free,
            total: self.total_bytes,
            released: 0,
        }
    }

    /// The platform's allocation, with one release-and-retry on out-of-memory.
    pub(super) fn alloc_platform(
        &self,
        block: usize,
        requested: usize,
        stream: StreamHandle,
        capturing: bool,
    ) -> Result<DevicePtr> {
        match self.platform.alloc_async(block, stream) {
            Ok(p) => {
                self.counters.allocs.fetch_add(1, Ordering::Relaxed);
                Ok(p)
            }
            Err(e) if e.is_out_of_memory() => {
                let released = self.release_for_retry(capturing);
                match self.platform.alloc_async(block, stream) {
                    Ok(p) => {
                        self.counters.allocs.fetch_add(1, Ordering::Relaxed);
                        self.counters.oom_recovered.fetch_add(1, Ordering::Relaxed);
                        tracing::debug!(device = %self.device, released, "allocation succeeded after releasing memory");
                        Ok(p)
                    }
                    Err(e) if e.is_out_of_memory() => {
                        let info = self.platform.mem_info(self.device).unwrap_or_default();
                        Err(HipError::OutOfMemory {
                            device: self.device,
                            requested,
                            free: info.free,
                            total: info.total,
                            released,
                        })
                    }
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Release everything a retry after out-of-memory can use, in the order of the module
    /// documentation; returns the bytes that went back to the platform. `capturing`: the
    /// caller's stream captures (the device is then not synchronised, as while any capture
    /// begun through this crate runs). For the library objects' retries too (FFT plans, BLAS
    /// handles).
    pub(crate) fn release_for_retry(&self, capturing: bool) -> usize {
        let from_hooks = self.hooks.run(self.device);
        self.flush_deferred();
        let from_cache = self.release_cached();
        if capturing || captures_active() {
            // Synchronising the device would invalidate the capture: retry with what the
            // release freed already.
            tracing::debug!(device = %self.device, "out of memory during a graph capture: retrying without synchronising the device");
        } else if let Err(e) = self.platform.synchronize_device(self.device) {
            tracing::warn!(device = %self.device, error = %e, "synchronise before retry failed");
        }
        from_hooks + from_cache
    }

    pub(super) fn cache_block(&self, block: Block) {
        self.cache.lock().insert(block);
        self.evict_over_budget();
    }

    pub(super) fn evict_over_budget(&self) {
        let max = self.max_cached.load(Ordering::Relaxed);
        let victims = self.cache.lock().evict_to(max);
        self.return_blocks(victims);
    }

    /// Return every cached block to the platform. Returns the bytes released.
    pub fn release_cached(&self) -> usize {
        let blocks = self.cache.lock().drain();
        self.return_blocks(blocks)
    }

    /// Free blocks on the pool's own maintenance stream (never capturing), after all of their
    /// events. Returns the bytes freed.
    fn return_blocks(&self, blocks: Vec<Block>) -> usize {
        if blocks.is_empty() {
            return 0;
        }
        if let Err(e) = self.platform.bind_device(self.device) {
            tracing::warn!(device = %self.device, error = %e, "cannot bind the device to release cached blocks");
        }
        let maint = match self.maintenance() {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(device = %self.device, error = %e, "cannot release cached blocks; they leak");
                return 0;
            }
        };
        let mut freed = 0;
        for b in blocks {
            let mut r = Ok(());
            for (_, e) in &b.events {
                if r.is_ok() {
                    r = self.platform.stream_wait_event(maint.handle(), *e);
                }
            }
            let r = r.and_then(|()| self.platform.free_async(b.ptr, maint.handle()));
            match r {
                Ok(()) => {
                    self.counters.frees.fetch_add(1, Ordering::Relaxed);
                    freed += b.bytes;
                }
                Err(e) => {
                    tracing::warn!(ptr = %b.ptr, error = %e, "returning a cached block failed")
                }
            }
            self.return_events(b.events);
        }
        freed
    }

    pub(super) fn maintenance(&self) -> Result<Stream> {
        let mut m = self.maintenance.lock();
        if let Some(s) = m.as_ref().filter(|s| s.is_valid()) {
            return Ok(s.clone());
        }
        let range = self.platform.stream_priority_range(self.device)?;
        let handle = self
            .platform
            .create_stream(self.device, StreamPriority::Normal.numeric(range))?;
        let s = Stream::new(
            self.platform.clone(),
            handle,
            self.device,
            Some(StreamPriority::Normal),
            Origin::Explicit,
            self.runtime_id,
            None,
        );
        *m = Some(s.clone());
        Ok(s)
    }

    /// Release cached blocks and retry deferred frees. Returns the bytes released.
    pub fn trim(&self) -> usize {
        self.flush_deferred();
        self.release_cached()
    }
}
