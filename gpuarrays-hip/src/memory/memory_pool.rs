//! `MemoryPool`: stream-ordered allocation through a caching pool, one per device.
//!
//! - Requests are rounded to size classes; freed blocks are cached per class
//!   ([`super::block_cache`]). A request no class holds, or larger than the device's whole
//!   memory, is [`HipError::OutOfMemory`] at once: releasing memory cannot help it.
//! - Memory operations name a stream: the calling thread's own, or an explicit stream. A
//!   pooled stream another thread holds (or idle in its pool) is refused
//!   ([`HipError::StreamNotOwned`]): an allocation or free on it could land between that
//!   thread's work, or inside its graph capture.
//! - A free waits for every use of the buffer that may still run (the buffer's
//!   [`BufferUses`]): an event is recorded after each such use, on its stream, and the block
//!   is reused only after all of them (at once on one of those streams, with device-side
//!   waits for the others; elsewhere once every event has completed). A use whose stream
//!   changed hands is complete and needs no event. Nothing is enqueued on a stream another
//!   thread owns except through its foreign-enqueue lock, and never into a capture.
//! - A use whose event cannot be recorded (the platform refused the record) is waited for on
//!   the host instead (its stream synchronised). If that fails too while the stream may still
//!   run work, the block is never reused nor returned: it is left allocated, counted in
//!   [`MemoryStats::leaked_bytes`], and the free reports the error. Reusing memory a kernel
//!   may still touch is never the price of an error.
//! - On out-of-memory (`memory_pool/release.rs`): run the release hooks (idle FFT plans and
//!   work areas, BLAS handles, idle streams, ...), then return every cached block — including
//!   what the hooks freed through this pool — to the platform, synchronise the device, retry
//!   once; then fail with [`HipError::OutOfMemory`] stating bytes requested, bytes free and
//!   bytes released. While a graph capture runs (on the allocating stream, or begun through
//!   this crate anywhere in the process) the device is not synchronised: that would
//!   invalidate the capture.
//! - User graphs (`memory_pool/graph_pins.rs`): what a graph made by
//!   `HipBackend::capture_graph` uses is kept for it; the memory of a dropped buffer it
//!   uses is freed when the graph drops.
//! - Graph capture (`memory_pool/capture_frees.rs`): memory allocated while a stream captures
//!   belongs to that capture (a graph allocation: never cached, never reused outside the
//!   graph). Freed while the capture still runs, by the capturing stream, it is freed inside
//!   the graph. A free that would have to record into a capture is deferred until the
//!   capture ends, and done when it ends.

mod capture_frees;
mod graph_pins;
mod release;

use super::block_cache::{Block, BlockCache, BlockEvents};
use super::release_hooks::ReleaseHooks;
use super::size_class::class_size;
use crate::error::{HipError, Result};
use crate::platform::{DeviceId, DevicePtr, Platform};
use crate::stream::{BufferUses, EventPool, OwnerToken, Stream, Use};
use crate::sync::{AtomicUsize, Mutex};
use capture_frees::{CaptureOwner, Deferred};
use gpuarrays_core::MemoryTracker;
use graph_pins::GraphPins;
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
    /// The capture that allocated it (a graph allocation, never cached), if any.
    capture: Option<CaptureOwner>,
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
    /// Whether it was allocated while its stream captured a graph (it then belongs to that
    /// graph; see the module documentation).
    pub fn is_graph_allocation(&self) -> bool {
        self.capture.is_some()
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
    /// Bytes of blocks never reused nor returned because a use of them could be neither
    /// fenced by an event nor waited for (see [`MemoryPool::free`]).
    pub leaked_bytes: usize,
}

#[derive(Default)]
struct Counters {
    /// Block bytes handed out and not yet freed, their peak, and the user's limit.
    usage: MemoryTracker,
    hits: AtomicUsize,
    allocs: AtomicUsize,
    frees: AtomicUsize,
    oom_recovered: AtomicUsize,
    leaked: AtomicUsize,
}

/// The caching pool of one device. See the module documentation.
pub struct MemoryPool {
    device: DeviceId,
    runtime_id: u64,
    /// The device's whole memory: no request larger than this can succeed.
    total_bytes: usize,
    platform: Arc<dyn Platform>,
    events: Arc<EventPool>,
    hooks: ReleaseHooks,
    cache: Mutex<BlockCache>,
    deferred: Mutex<Vec<Deferred>>,
    max_cached: AtomicUsize,
    maintenance: Mutex<Option<Stream>>,
    /// Memory kept for user graphs (`memory_pool/graph_pins.rs`).
    pins: GraphPins,
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

/// The error for memory work on `stream` when it is a pooled stream the calling thread does
/// not hold.
fn check_owned(stream: &Stream, what: &'static str) -> Result<()> {
    if stream.usable_by(OwnerToken::current()) {
        return Ok(());
    }
    Err(HipError::StreamNotOwned {
        device: stream.device(),
        stream: stream.handle().0,
        what,
    })
}

/// What became of one use of a freed buffer.
enum Fence {
    /// An event after it, for the block's reuse to wait for.
    Event((Stream, crate::platform::EventHandle)),
    /// Nothing to wait for: complete (recycled stream, waited for on the host, or a stream
    /// whose work will not run).
    Complete,
    /// Recorded into a capture it would be: the free waits for the capture to end.
    Capturing,
    /// Neither an event nor a host wait: the use may still run.
    Unfenced(HipError),
}

impl MemoryPool {
    pub(crate) fn new(
        platform: Arc<dyn Platform>,
        events: Arc<EventPool>,
        device: DeviceId,
        runtime_id: u64,
        total_bytes: usize,
        max_cached: usize,
    ) -> MemoryPool {
        MemoryPool {
            device,
            runtime_id,
            total_bytes,
            platform,
            events,
            hooks: ReleaseHooks::default(),
            cache: Mutex::new(BlockCache::default()),
            deferred: Mutex::new(Vec::new()),
            max_cached: AtomicUsize::new(max_cached),
            maintenance: Mutex::new(None),
            pins: GraphPins::default(),
            counters: Counters::default(),
        }
    }

    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device
    }
    /// Release hooks run on out-of-memory (register FFT plan caches etc. here). A hook
    /// reports the bytes it returned to the platform itself; what it frees through this pool
    /// (device buffers it drops) is returned and counted by the pool after the hooks.
    pub fn release_hooks(&self) -> &ReleaseHooks {
        &self.hooks
    }
    /// Cap the bytes kept cached (older blocks are released beyond it).
    pub fn set_max_cached_bytes(&self, bytes: usize) {
        self.max_cached.store(bytes, Ordering::Relaxed);
        self.evict_over_budget();
    }

    /// Allocate `bytes` ordered on `stream` (the calling thread's own stream or an explicit
    /// one; see the module documentation).
    pub fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DeviceAllocation> {
        check_owned(stream, "an allocation")?;
        self.platform.bind_device(self.device)?;
        stream.check_valid()?;
        self.flush_deferred();
        if let Some(recording) = stream.recording() {
            // A user capture: ordinary memory, kept for its graph (`graph_pins.rs`).
            return self.alloc_recorded(bytes, &recording);
        }
        if stream.is_capturing()? {
            // A graph allocation: it belongs to the capture (see `capture_frees.rs`).
            let block = bytes.max(1);
            self.check_satisfiable(block, bytes)?;
            self.reserve(block, bytes)?;
            let ptr = self
                .alloc_platform(block, bytes, stream.handle(), true)
                .inspect_err(|_| self.counters.usage.release(block))?;
            let owner = CaptureOwner::of(stream);
            return Ok(self.handed_out(ptr, bytes, block, Some(owner)));
        }
        // No size class above 2^63 bytes: no device holds such a request.
        let class = class_size(bytes).ok_or_else(|| self.unsatisfiable(bytes))?;
        self.check_satisfiable(class, bytes)?;
        self.reserve(class, bytes)?;
        if let Some(ptr) = self.take_cached(class, stream) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(self.handed_out(ptr, bytes, class, None));
        }
        let ptr = self
            .alloc_platform(class, bytes, stream.handle(), false)
            .inspect_err(|_| self.counters.usage.release(class))?;
        Ok(self.handed_out(ptr, bytes, class, None))
    }

    /// Counts a block of `block` bytes (for a request of `bytes`) in use, unless the limit
    /// set with [`MemoryTracker::set_limit`] refuses it.
    fn reserve(&self, block: usize, bytes: usize) -> Result<()> {
        self.counters
            .usage
            .reserve(block)
            .map_err(|e| HipError::MemoryLimit {
                device: self.device,
                requested: bytes,
                in_use: e.in_use,
                limit: e.limit,
            })
    }

    /// The counters of the bytes in use, their peak and the limit.
    pub fn tracker(&self) -> &MemoryTracker {
        &self.counters.usage
    }

    fn handed_out(
        &self,
        ptr: DevicePtr,
        bytes: usize,
        block: usize,
        capture: Option<CaptureOwner>,
    ) -> DeviceAllocation {
        DeviceAllocation {
            ptr,
            bytes,
            block_bytes: block,
            device: self.device,
            capture,
        }
    }

    fn take_cached(&self, class: usize, stream: &Stream) -> Option<DevicePtr> {
        self.cache
            .lock()
            .take(class, stream, self.platform.as_ref(), &self.events)
    }

    /// Free `alloc`, whose uses that may still run are `uses`, by a thread whose stream is
    /// `caller`. The memory is reused only after all of them (see the module documentation).
    ///
    /// `caller` must be the calling thread's own stream or an explicit stream: a pooled
    /// stream of another thread is refused with [`HipError::StreamNotOwned`], and the
    /// allocation is freed all the same, as by a thread without a stream (nothing leaks).
    /// A use that could be neither fenced nor waited for leaves the block allocated and is
    /// reported as the error.
    pub fn free(&self, alloc: DeviceAllocation, uses: BufferUses, caller: &Stream) -> Result<()> {
        if let Err(refused) = check_owned(caller, "a free") {
            if let Err(e) = self.free_without_caller(alloc, uses) {
                tracing::warn!(device = %self.device, error = %e, "freeing a buffer whose free named another thread's stream failed");
            }
            return Err(refused);
        }
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
        if self.free_into_capture(&alloc, &uses, caller)? {
            return Ok(());
        }
        // One event after each use that may still run.
        let mut events = BlockEvents::new();
        let mut unfenced = None;
        for u in uses.live() {
            match self.fence(&u, caller) {
                Fence::Event(e) => events.push(e),
                Fence::Complete => {}
                Fence::Capturing => {
                    self.return_events(events);
                    self.defer(alloc, uses);
                    return Ok(());
                }
                Fence::Unfenced(e) => {
                    unfenced.get_or_insert(e);
                }
            }
        }
        if let Some(e) = unfenced {
            // The memory may still be in use by work we can neither see end nor wait for:
            // never reuse it, never return it (a later allocation could get it).
            self.return_events(events);
            self.counters.usage.release(alloc.block_bytes);
            self.counters
                .leaked
                .fetch_add(alloc.block_bytes, Ordering::Relaxed);
            tracing::warn!(device = %self.device, ptr = %alloc.ptr, bytes = alloc.block_bytes, error = %e,
                "a use of a freed buffer could be neither fenced nor waited for; its memory is left allocated");
            return Err(e);
        }
        if alloc.capture.is_none() {
            self.counters.usage.release(alloc.block_bytes);
            self.cache_block(Block {
                ptr: alloc.ptr,
                bytes: alloc.block_bytes,
                events,
            });
            return Ok(());
        }
        // A graph allocation freed outside its capture: returned to the platform in stream
        // order after every use, never cached.
        self.free_uncached(alloc, events, caller)
    }

    /// Fence one use of a freed buffer: an event after it, or else a host wait for it.
    fn fence(&self, u: &Use, caller: Option<&Stream>) -> Fence {
        let record_error = match u.record_completion(caller, &self.events) {
            Ok(Some(e)) => return Fence::Event(e),
            Ok(None) => return Fence::Complete,
            Err(HipError::StreamCapturing { .. }) => return Fence::Capturing,
            Err(e @ HipError::StreamUnusable { .. }) => {
                // The stream failed: it runs nothing more.
                tracing::debug!(stream = %u.stream().handle(), error = %e, "a use of a freed buffer reported an error; its work will not run");
                return Fence::Complete;
            }
            Err(e) => e,
        };
        tracing::debug!(stream = %u.stream().handle(), error = %record_error, "no event after a use of a freed buffer; waiting for it on the host");
        match u.wait_on_host() {
            Ok(()) => Fence::Complete,
            Err(HipError::StreamCapturing { .. }) => Fence::Capturing,
            Err(e) => {
                tracing::debug!(stream = %u.stream().handle(), error = %e, "the host wait failed too");
                Fence::Unfenced(record_error)
            }
        }
    }

    fn return_events(&self, events: BlockEvents) {
        for (_, e) in events {
            self.events.put(e);
        }
    }

    /// Counters.
    pub fn stats(&self) -> MemoryStats {
        let (cached_bytes, cached_blocks) = self.cache.lock().totals();
        MemoryStats {
            in_use_bytes: self.counters.usage.in_use(),
            cached_bytes,
            cached_blocks,
            cache_hits: self.counters.hits.load(Ordering::Relaxed),
            platform_allocs: self.counters.allocs.load(Ordering::Relaxed),
            platform_frees: self.counters.frees.load(Ordering::Relaxed),
            oom_recovered: self.counters.oom_recovered.load(Ordering::Relaxed),
            deferred_frees: self.deferred.lock().len(),
            leaked_bytes: self.counters.leaked.load(Ordering::Relaxed),
        }
    }
}

impl Drop for MemoryPool {
    fn drop(&mut self) {
        self.release_cached();
    }
}
