//! `MemoryPool`: stream-ordered allocation through a caching pool, one per device.
//!
//! - Requests are rounded to size classes; freed blocks are cached per class
//!   ([`super::block_cache`]).
//! - A free waits for every use of the buffer that may still run (the buffer's
//!   [`BufferUses`]): an event is recorded after each such use, on its stream, and the block
//!   is reused only after all of them (at once on one of those streams, with device-side
//!   waits for the others; elsewhere once every event has completed). A use whose stream
//!   changed hands is complete and needs no event. Nothing is enqueued on a stream another
//!   thread owns except through its foreign-enqueue lock, and never into a capture.
//! - On out-of-memory: release cached blocks, run the release hooks (idle FFT plans, idle
//!   streams, ...), synchronise the device, retry once; then fail with
//!   [`HipError::OutOfMemory`] stating bytes requested and bytes free. While a graph capture
//!   runs (on the allocating stream, or begun through this crate anywhere in the process)
//!   the device is not synchronised: that would invalidate the capture.
//! - Graph capture: allocations on a capturing stream bypass the cache (they become graph
//!   nodes); a free that would have to record into a capture is deferred until it ends.

use super::block_cache::{Block, BlockCache, BlockEvents};
use super::release_hooks::ReleaseHooks;
use super::size_class::class_size;
use crate::error::{HipError, Result};
use crate::platform::{DeviceId, DevicePtr, Platform, StreamHandle};
use crate::stream::{BufferUses, EventPool, Origin, Stream, StreamPriority, captures_active};
use crate::sync::{AtomicUsize, Mutex};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// One allocation handed out by the pool. Give it back with [`MemoryPool::free`] (or hold it
/// in a [`crate::DeviceBuffer`], which does so when dropped).
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceAllocation {
    ptr: DevicePtr,
    bytes: usize,
    block_bytes: usize,
    device: DeviceId,
    cached: bool,
}

impl DeviceAllocation {
    /// Device address.
    pub fn ptr(&self) -> DevicePtr {
        self.ptr
    }
    /// Bytes requested.
    pub fn len(&self) -> usize {
        self.bytes
    }
    /// Whether zero bytes were requested.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
    /// Bytes of the underlying block.
    pub fn block_bytes(&self) -> usize {
        self.block_bytes
    }
    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device
    }
}

/// Counters of one device's pool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes of blocks handed out and not yet freed.
    pub in_use_bytes: usize,
    /// Bytes of cached (free, reusable) blocks.
    pub cached_bytes: usize,
    /// Cached blocks.
    pub cached_blocks: usize,
    /// Allocations served from the cache.
    pub cache_hits: usize,
    /// Allocations that went to the platform.
    pub platform_allocs: usize,
    /// Blocks returned to the platform.
    pub platform_frees: usize,
    /// Out-of-memory errors recovered by releasing and retrying.
    pub oom_recovered: usize,
    /// Frees waiting for a capture to end.
    pub deferred_frees: usize,
}

struct Deferred {
    alloc: DeviceAllocation,
    uses: BufferUses,
}

#[derive(Default)]
struct Counters {
    in_use: AtomicUsize,
    hits: AtomicUsize,
    allocs: AtomicUsize,
    frees: AtomicUsize,
    oom_recovered: AtomicUsize,
}

/// The caching pool of one device. See the module documentation.
pub struct MemoryPool {
    device: DeviceId,
    runtime_id: u64,
    platform: Arc<dyn Platform>,
    events: Arc<EventPool>,
    hooks: ReleaseHooks,
    cache: Mutex<BlockCache>,
    deferred: Mutex<Vec<Deferred>>,
    max_cached: AtomicUsize,
    maintenance: Mutex<Option<Stream>>,
    counters: Counters,
}

impl std::fmt::Debug for MemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPool")
            .field("device", &self.device)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl MemoryPool {
    pub(crate) fn new(
        platform: Arc<dyn Platform>,
        events: Arc<EventPool>,
        device: DeviceId,
        runtime_id: u64,
        max_cached: usize,
    ) -> MemoryPool {
        MemoryPool {
            device,
            runtime_id,
            platform,
            events,
            hooks: ReleaseHooks::default(),
            cache: Mutex::new(BlockCache::default()),
            deferred: Mutex::new(Vec::new()),
            max_cached: AtomicUsize::new(max_cached),
            maintenance: Mutex::new(None),
            counters: Counters::default(),
        }
    }

    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device
    }
    /// Release hooks run on out-of-memory (register FFT plan caches etc. here).
    pub fn release_hooks(&self) -> &ReleaseHooks {
        &self.hooks
    }
    /// Cap the bytes kept cached (older blocks are released beyond it).
    pub fn set_max_cached_bytes(&self, bytes: usize) {
        self.max_cached.store(bytes, Ordering::Relaxed);
        self.evict_over_budget();
    }

    /// Allocate `bytes` ordered on `stream`.
    pub fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DeviceAllocation> {
        self.platform.bind_device(self.device)?;
        stream.check_valid()?;
        self.flush_deferred();
        if stream.is_capturing()? {
            // Part of a graph: not cached, freed by stream order inside the graph.
            let ptr = self.alloc_platform(bytes.max(1), bytes, stream.handle(), true)?;
            return Ok(self.handed_out(ptr, bytes, bytes.max(1), false));
        }
        let class = class_size(bytes);
        if let Some(ptr) = self.take_cached(class, stream) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(self.handed_out(ptr, bytes, class, true));
        }
        let ptr = self.alloc_platform(class, bytes, stream.handle(), false)?;
        Ok(self.handed_out(ptr, bytes, class, true))
    }

    fn handed_out(
        &self,
        ptr: DevicePtr,
        bytes: usize,
        block: usize,
        cached: bool,
    ) -> DeviceAllocation {
        self.counters.in_use.fetch_add(block, Ordering::Relaxed);
        DeviceAllocation {
            ptr,
            bytes,
            block_bytes: block,
            device: self.device,
            cached,
        }
    }

    fn take_cached(&self, class: usize, stream: &Stream) -> Option<DevicePtr> {
        self.cache
            .lock()
            .take(class, stream, self.platform.as_ref(), &self.events)
    }

    fn alloc_platform(
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
                let released = self.release_cached() + self.hooks.run(self.device);
                if capturing || captures_active() {
                    // Synchronising the device would invalidate the capture: retry with what
                    // the release freed already.
                    tracing::debug!(device = %self.device, "out of memory during a graph capture: retrying without synchronising the device");
                } else if let Err(e) = self.platform.synchronize_device(self.device) {
                    tracing::warn!(device = %self.device, error = %e, "synchronise before retry failed");
                }
                match self.platform.alloc_async(block, stream) {
                    Ok(p) => {
                        self.counters.allocs.fetch_add(1, Ordering::Relaxed);
                        self.counters.oom_recovered.fetch_add(1, Ordering::Relaxed);
                        tracing::debug!(device = %self.device, released, "allocation succeeded after releasing cached memory");
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

    /// Free `alloc`, whose uses that may still run are `uses`, by a thread whose stream is
    /// `caller`. The memory is reused only after all of them (see the module documentation).
    pub fn free(&self, alloc: DeviceAllocation, uses: BufferUses, caller: &Stream) -> Result<()> {
        self.platform.bind_device(self.device)?;
        self.flush_deferred();
        self.free_inner(alloc, uses, Some(caller))
    }

    /// Free without a caller's stream (a thread-local destructor, where the thread's stream is
    /// gone): the pool's maintenance stream stands in for it.
    pub(crate) fn free_without_caller(
        &self,
        alloc: DeviceAllocation,
        uses: BufferUses,
    ) -> Result<()> {
        self.platform.bind_device(self.device)?;
        self.free_inner(alloc, uses, None)
    }

    fn free_inner(
        &self,
        alloc: DeviceAllocation,
        uses: BufferUses,
        caller: Option<&Stream>,
    ) -> Result<()> {
        // One event after each use that may still run.
        let mut events = BlockEvents::new();
        let mut deferred = false;
        for u in uses.live() {
            match u.record_completion(caller, &self.events) {
                Ok(Some(e)) => events.push(e),
                Ok(None) => {}
                Err(HipError::StreamCapturing { .. }) => {
                    deferred = true;
                    break;
                }
                Err(e) => {
                    tracing::debug!(stream = %u.stream().handle(), error = %e, "a use of a freed buffer reported an error; its work will not run");
                }
            }
        }
        if deferred {
            self.return_events(events);
            tracing::debug!(ptr = %alloc.ptr, "free deferred until the capture ends");
            self.deferred.lock().push(Deferred { alloc, uses });
            return Ok(());
        }
        if alloc.cached {
            self.counters
                .in_use
                .fetch_sub(alloc.block_bytes, Ordering::Relaxed);
            self.cache_block(Block {
                ptr: alloc.ptr,
                bytes: alloc.block_bytes,
                events,
            });
            return Ok(());
        }
        // A graph allocation: returned to the platform in stream order after every use.
        self.free_uncached(alloc, events, caller)
    }

    /// `free_async` of an allocation made during a capture, on the caller's stream (inside its
    /// capture when it is the capture that allocated it and no other stream used it) or the
    /// maintenance stream, after the events of the other uses.
    fn free_uncached(
        &self,
        alloc: DeviceAllocation,
        events: BlockEvents,
        caller: Option<&Stream>,
    ) -> Result<()> {
        let maint;
        let target = match caller {
            Some(c) if !c.is_capturing()? || events.iter().all(|(s, _)| s.same_as(c)) => c,
            _ => {
                maint = self.maintenance()?;
                &maint
            }
        };
        let mut result = Ok(());
        for (s, e) in &events {
            if !s.same_as(target) && result.is_ok() {
                result = self.platform.stream_wait_event(target.handle(), *e);
            }
        }
        let result = result.and_then(|()| self.platform.free_async(alloc.ptr, target.handle()));
        self.return_events(events);
        if result.is_ok() {
            self.counters
                .in_use
                .fetch_sub(alloc.block_bytes, Ordering::Relaxed);
            self.counters.frees.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    fn return_events(&self, events: BlockEvents) {
        for (_, e) in events {
            self.events.put(e);
        }
    }

    fn cache_block(&self, block: Block) {
        self.cache.lock().insert(block);
        self.evict_over_budget();
    }

    fn evict_over_budget(&self) {
        let max = self.max_cached.load(Ordering::Relaxed);
        let victims = self.cache.lock().evict_to(max);
        self.return_blocks(victims);
    }

    /// Return every cached block to the platform. Returns the bytes released.
    pub fn release_cached(&self) -> usize {
        let blocks = self.cache.lock().drain();
        let bytes = blocks.iter().map(|b| b.bytes).sum();
        self.return_blocks(blocks);
        bytes
    }

    /// Free blocks on the pool's own maintenance stream (never capturing), after all of their
    /// events.
    fn return_blocks(&self, blocks: Vec<Block>) {
        if blocks.is_empty() {
            return;
        }
        if let Err(e) = self.platform.bind_device(self.device) {
            tracing::warn!(device = %self.device, error = %e, "cannot bind the device to release cached blocks");
        }
        let maint = match self.maintenance() {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(device = %self.device, error = %e, "cannot release cached blocks; they leak");
                return;
            }
        };
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
                }
                Err(e) => {
                    tracing::warn!(ptr = %b.ptr, error = %e, "returning a cached block failed")
                }
            }
            self.return_events(b.events);
        }
    }

    fn maintenance(&self) -> Result<Stream> {
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

    /// Retry frees that waited for a capture to end.
    pub fn flush_deferred(&self) {
        let pending: Vec<Deferred> = {
            let mut d = self.deferred.lock();
            if d.is_empty() {
                return;
            }
            std::mem::take(&mut *d)
        };
        if let Err(e) = self.platform.bind_device(self.device) {
            tracing::warn!(device = %self.device, error = %e, "cannot bind the device for deferred frees");
        }
        for d in pending {
            if let Err(e) = self.free_inner(d.alloc, d.uses, None) {
                tracing::warn!(device = %self.device, error = %e, "deferred free failed");
            }
        }
    }

    /// Release cached blocks and retry deferred frees. Returns the bytes released.
    pub fn trim(&self) -> usize {
        self.flush_deferred();
        self.release_cached()
    }

    /// Counters.
    pub fn stats(&self) -> MemoryStats {
        let (cached_bytes, cached_blocks) = self.cache.lock().totals();
        MemoryStats {
            in_use_bytes: self.counters.in_use.load(Ordering::Relaxed),
            cached_bytes,
            cached_blocks,
            cache_hits: self.counters.hits.load(Ordering::Relaxed),
            platform_allocs: self.counters.allocs.load(Ordering::Relaxed),
            platform_frees: self.counters.frees.load(Ordering::Relaxed),
            oom_recovered: self.counters.oom_recovered.load(Ordering::Relaxed),
            deferred_frees: self.deferred.lock().len(),
        }
    }
}

impl Drop for MemoryPool {
    fn drop(&mut self) {
        self.release_cached();
    }
}
