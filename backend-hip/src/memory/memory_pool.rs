//! `MemoryPool`: stream-ordered allocation through a caching pool, one per device.
//!
//! - Requests are rounded to size classes; freed blocks are cached per class.
//! - A block freed on stream S is reusable on S immediately (stream order), and on another
//!   stream only once the event recorded at the free says the free point was reached.
//! - On out-of-memory: release cached blocks, run the release hooks (idle FFT plans, idle
//!   streams, ...), synchronise the device, retry once; then fail with
//!   [`HipError::OutOfMemory`] stating bytes requested and bytes free.
//! - Graph capture: allocations on a capturing stream bypass the cache (they become graph
//!   nodes); a free is never recorded into a capture — it is deferred until the capture ends.

use super::release_hooks::ReleaseHooks;
use super::size_class::class_size;
use crate::error::{HipError, Result};
use crate::platform::{DeviceId, DevicePtr, EventHandle, Platform, StreamHandle, WorkStatus};
use crate::stream::{EventPool, LastUse, Origin, Stream, StreamPriority};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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

struct Block {
    ptr: DevicePtr,
    bytes: usize,
    stream: Stream,
    event: EventHandle,
}

#[derive(Default)]
struct Cache {
    buckets: BTreeMap<usize, Vec<Block>>,
    bytes: usize,
    blocks: usize,
    /// Eviction order (oldest first): (class, ptr).
    order: std::collections::VecDeque<(usize, DevicePtr)>,
}

struct Deferred {
    alloc: DeviceAllocation,
    last_use: LastUse,
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
    cache: Mutex<Cache>,
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

/// How many cached blocks of a class are checked for a finished free per allocation.
const EVENT_PROBES: usize = 4;

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
            cache: Mutex::new(Cache::default()),
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
            let ptr = self.alloc_platform(bytes.max(1), bytes, stream.handle())?;
            return Ok(self.handed_out(ptr, bytes, bytes.max(1), false));
        }
        let class = class_size(bytes);
        if let Some(ptr) = self.take_cached(class, stream) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(self.handed_out(ptr, bytes, class, true));
        }
        let ptr = self.alloc_platform(class, bytes, stream.handle())?;
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
        let mut cache = self.cache.lock();
        let bucket = cache.buckets.get_mut(&class)?;
        let pos = bucket
            .iter()
            .rposition(|b| b.stream.handle() == stream.handle())
            .or_else(|| {
                bucket
                    .iter()
                    .take(EVENT_PROBES)
                    .position(|b| self.platform.query_event(b.event) == WorkStatus::Ready)
            })?;
        let block = bucket.swap_remove(pos);
        cache.bytes -= block.bytes;
        cache.blocks -= 1;
        cache.order.retain(|o| o.1 != block.ptr);
        drop(cache);
        self.events.put(block.event);
        Some(block.ptr)
    }

    fn alloc_platform(
        &self,
        block: usize,
        requested: usize,
        stream: StreamHandle,
    ) -> Result<DevicePtr> {
        match self.platform.alloc_async(block, stream) {
            Ok(p) => {
                self.counters.allocs.fetch_add(1, Ordering::Relaxed);
                Ok(p)
            }
            Err(e) if e.is_out_of_memory() => {
                let released = self.release_cached() + self.hooks.run(self.device);
                if let Err(e) = self.platform.synchronize_device(self.device) {
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

    /// Free `alloc`, last used as `last_use` (None: never used on the device), by a thread
    /// whose stream is `caller`. The free goes on the recorded stream while its generation is
    /// unchanged, else on the caller's stream; never into a graph capture (then it waits).
    pub fn free(
        &self,
        alloc: DeviceAllocation,
        last_use: Option<&LastUse>,
        caller: &Stream,
    ) -> Result<()> {
        self.platform.bind_device(self.device)?;
        self.flush_deferred();
        let last_use = last_use.cloned().unwrap_or_else(|| LastUse::new(caller));
        self.free_inner(alloc, last_use, Some(caller))
    }

    /// Free without a caller's stream (a thread-local destructor, where the thread's stream is
    /// gone): the recorded stream while not recycled, else the pool's maintenance stream.
    pub(crate) fn free_without_caller(
        &self,
        alloc: DeviceAllocation,
        last_use: Option<LastUse>,
    ) -> Result<()> {
        self.platform.bind_device(self.device)?;
        let last_use = match last_use {
            Some(l) => l,
            None => LastUse::new(&self.maintenance()?),
        };
        self.free_inner(alloc, last_use, None)
    }

    fn free_inner(
        &self,
        alloc: DeviceAllocation,
        last_use: LastUse,
        caller: Option<&Stream>,
    ) -> Result<()> {
        let maint;
        let caller = match caller {
            Some(c) => c,
            None => {
                maint = self.maintenance()?;
                &maint
            }
        };
        let target = last_use.free_stream(caller).clone();
        let foreign = !target.same_as(caller);
        let expected = foreign.then_some(last_use.generation());
        let what = "a buffer free";
        let enqueue = |h: StreamHandle| -> Result<Option<EventHandle>> {
            if !alloc.cached {
                self.platform.free_async(alloc.ptr, h)?;
                return Ok(None);
            }
            let event = self.events.get()?;
            match self.platform.record_event(event, h) {
                Ok(()) => Ok(Some(event)),
                Err(e) => {
                    self.events.put(event);
                    Err(e)
                }
            }
        };
        let outcome = if foreign {
            target.enqueue_foreign(expected, what, enqueue)
        } else if target.is_capturing()? && alloc.cached {
            Err(HipError::StreamCapturing {
                stream: target.handle().0,
                what,
            })
        } else {
            enqueue(target.handle()).map(Some)
        };
        match outcome {
            Ok(Some(event)) => {
                self.counters
                    .in_use
                    .fetch_sub(alloc.block_bytes, Ordering::Relaxed);
                match event {
                    Some(event) => self.cache_block(alloc, target, event),
                    None => {
                        self.counters.frees.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(())
            }
            // The recorded stream changed hands meanwhile: its work is done; use the caller's.
            Ok(None) => self.free_inner(alloc, LastUse::new(caller), Some(caller)),
            Err(HipError::StreamCapturing { .. }) => {
                tracing::debug!(ptr = %alloc.ptr, stream = %target.handle(), "free deferred until the capture ends");
                self.deferred.lock().push(Deferred { alloc, last_use });
                Ok(())
            }
            Err(e) if foreign => {
                tracing::debug!(error = %e, "free on the recorded stream failed; using the caller's stream");
                self.free_inner(alloc, LastUse::new(caller), Some(caller))
            }
            Err(e) => Err(e),
        }
    }

    fn cache_block(&self, alloc: DeviceAllocation, stream: Stream, event: EventHandle) {
        {
            let mut cache = self.cache.lock();
            cache.bytes += alloc.block_bytes;
            cache.blocks += 1;
            cache.order.push_back((alloc.block_bytes, alloc.ptr));
            cache
                .buckets
                .entry(alloc.block_bytes)
                .or_default()
                .push(Block {
                    ptr: alloc.ptr,
                    bytes: alloc.block_bytes,
                    stream,
                    event,
                });
        }
        self.evict_over_budget();
    }

    fn evict_over_budget(&self) {
        let max = self.max_cached.load(Ordering::Relaxed);
        let mut victims = Vec::new();
        {
            let mut cache = self.cache.lock();
            while cache.bytes > max {
                let Some((class, ptr)) = cache.order.pop_front() else {
                    break;
                };
                let Some(bucket) = cache.buckets.get_mut(&class) else {
                    continue;
                };
                if let Some(i) = bucket.iter().position(|b| b.ptr == ptr) {
                    let b = bucket.swap_remove(i);
                    cache.bytes -= b.bytes;
                    cache.blocks -= 1;
                    victims.push(b);
                }
            }
        }
        self.return_blocks(victims);
    }

    /// Return every cached block to the platform. Returns the bytes released.
    pub fn release_cached(&self) -> usize {
        let blocks: Vec<Block> = {
            let mut cache = self.cache.lock();
            cache.bytes = 0;
            cache.blocks = 0;
            cache.order.clear();
            std::mem::take(&mut cache.buckets)
                .into_values()
                .flatten()
                .collect()
        };
        let bytes = blocks.iter().map(|b| b.bytes).sum();
        self.return_blocks(blocks);
        bytes
    }

    /// Free blocks on the pool's own maintenance stream (never capturing), after their events.
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
            let r = self
                .platform
                .stream_wait_event(maint.handle(), b.event)
                .and_then(|()| self.platform.free_async(b.ptr, maint.handle()));
            match r {
                Ok(()) => {
                    self.counters.frees.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => {
                    tracing::warn!(ptr = %b.ptr, error = %e, "returning a cached block failed")
                }
            }
            self.events.put(b.event);
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
            // Not recycled: free on the recorded stream; recycled: the work is done, use ours.
            if let Err(e) = self.free_inner(d.alloc, d.last_use, None) {
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
        let (cached_bytes, cached_blocks) = {
            let c = self.cache.lock();
            (c.bytes, c.blocks)
        };
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
