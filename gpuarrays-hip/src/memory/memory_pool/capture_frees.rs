//! Graph captures and the pool: memory allocated while a stream captures, and frees that
//! have to wait for a capture to end.
//!
//! **Memory allocated while a stream captures belongs to that capture.** On the platform it
//! is a graph allocation (CUDA's `cuMemAllocAsync` inside a capture makes an allocation node
//! of the graph): its address is only backed while the graph runs, from the allocation node
//! to its free. So such memory is
//! - never cached: no uncaptured work may get it from the pool;
//! - freed inside the graph when its free comes while the same capture still runs on the
//!   same stream, from that stream, with every use of it on that stream (the free becomes a
//!   free node; the graph then allocates and frees it at each launch, and can be launched
//!   again and again). This is the case of the runtime's own temporaries (FFT work areas
//!   and aligned copies, kernel scratch), which are freed right after the captured work
//!   that uses them;
//! - otherwise (it outlived the capture, or another thread freed it meanwhile) the graph
//!   owns it, as CUDA has it: it is live after the graph's launch until freed, and its free
//!   — after its last recorded use, in stream order, never cached — belongs after that
//!   launch: drop such buffers after launching the graph.
//!
//! Captures are told apart by the id `Stream::begin_capture` gives them; memory allocated
//! in a capture begun behind the stream's back (the raw platform) has no id and is never
//! freed into a graph (it could be another capture's).
//!
//! **Frees that wait for a capture.** A free must record an event after each use of the
//! buffer; recording into a capture would put the record (and the free's wait) into the
//! graph, where it does not belong. Such a free is deferred and done when a capture on the
//! device ends (the pool listens: [`CaptureEndListener`]), or at the next allocation or free.

use super::{BlockEvents, DeviceAllocation, MemoryPool};
use crate::error::Result;
use crate::stream::{BufferUses, CaptureEndListener, Stream};
use std::sync::atomic::Ordering;

/// The capture an allocation was made in: its stream and the capture's id (`None` for a
/// capture begun behind the stream's back).
#[derive(Debug, Clone)]
pub(crate) struct CaptureOwner {
    stream: Stream,
    capture: Option<u64>,
}

impl CaptureOwner {
    /// The capture `stream` runs now.
    pub(super) fn of(stream: &Stream) -> CaptureOwner {
        CaptureOwner {
            stream: stream.clone(),
            capture: stream.capture_id(),
        }
    }
}

impl PartialEq for CaptureOwner {
    fn eq(&self, other: &Self) -> bool {
        self.stream.same_as(&other.stream) && self.capture == other.capture
    }
}

impl Eq for CaptureOwner {}

/// A free waiting for a capture to end.
pub(super) struct Deferred {
    alloc: DeviceAllocation,
    uses: BufferUses,
}

impl MemoryPool {
    /// Free a graph allocation inside its graph, if its capture still runs on `caller` and
    /// every live use of it is on `caller` (see the module documentation). Returns whether
    /// it did.
    pub(super) fn free_into_capture(
        &self,
        alloc: &DeviceAllocation,
        uses: &BufferUses,
        caller: Option<&Stream>,
    ) -> Result<bool> {
        let (Some(owner), Some(caller)) = (&alloc.capture, caller) else {
            return Ok(false);
        };
        let same_capture = owner.capture.is_some()
            && caller.same_as(&owner.stream)
            && matches!(caller.is_capturing(), Ok(true))
            && caller.capture_id() == owner.capture;
        if !same_capture || !uses.live().iter().all(|u| u.is_by(caller)) {
            return Ok(false);
        }
        // Stream order inside the graph puts the free after every use on `caller`.
        self.platform.free_async(alloc.ptr, caller.handle())?;
        self.counters.usage.release(alloc.block_bytes);
        self.counters.frees.fetch_add(1, Ordering::Relaxed);
        tracing::trace!(ptr = %alloc.ptr, stream = %caller.handle(), "graph allocation freed inside its graph");
        Ok(true)
    }

    /// Keep a free until the capture it would record into has ended.
    pub(super) fn defer(&self, alloc: DeviceAllocation, uses: BufferUses) {
        tracing::debug!(ptr = %alloc.ptr, "free deferred until the capture ends");
        self.deferred.lock().push(Deferred { alloc, uses });
    }

    /// Retry frees that waited for a capture to end (those whose capture still runs wait on).
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

    /// `free_async` of a graph allocation outside its graph, after the events of its uses:
    /// on the caller's stream, or the maintenance stream when the caller has none or
    /// captures (a free recorded into another capture would be that graph's free of memory
    /// it does not own).
    pub(super) fn free_uncached(
        &self,
        alloc: DeviceAllocation,
        events: BlockEvents,
        caller: Option<&Stream>,
    ) -> Result<()> {
        let maint;
        let target = match caller {
            Some(c) if matches!(c.is_capturing(), Ok(false)) => c,
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
            self.counters.usage.release(alloc.block_bytes);
            self.counters.frees.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}

impl CaptureEndListener for MemoryPool {
    fn capture_ended(&self) {
        self.flush_deferred();
    }
}
