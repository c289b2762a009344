//! `BufferUses`: every stream that may still touch a buffer — the last write and the reads
//! since — and the rules built on it (PyTorch's `record_stream` idea, with generations).
//!
//! A [`Use`] is a stream object and its generation at the time of the use.
//! - **Generation rule.** A use whose stream changed hands since (its generation moved on) is
//!   complete: the pool hands a stream to another thread only after its queued work
//!   completed (or the stream was destroyed after synchronising). It is never waited on,
//!   and the stream's errors are never charged to it (they are the new owner's).
//! - **Reads** are ordered after the last write only; reads on many streams do not wait for
//!   one another. A read on the last writer's stream is not recorded (stream order covers it).
//! - **Writes** are ordered after the last write and every read since; the write becomes the
//!   last write and the reads are forgotten (they precede it).
//! - **Frees and reuse** of the memory wait for every use still live ([`BufferUses::live`]):
//!   the memory pool records an event after each and reuses the block only after all of them.
//! - Waiting is device-side: an event is recorded at the current end of the used stream (so
//!   it covers the use and perhaps later work: never too little) and the caller's stream
//!   waits for it. A stream someone else owns is enqueued on only through
//!   [`Stream::enqueue_foreign`], which checks the generation under the stream's lock and
//!   never enqueues into a capture.
//!
//! The records are changed only by the ordering protocol (`crate::device::enqueue`), under the
//! buffer's lock, in the same step as the work is enqueued: that is what makes "every stream
//! that may still touch the buffer is known" hold.

use super::Stream;
use super::events::EventPool;
use crate::error::{HipError, Result};
use crate::platform::EventHandle;
use smallvec::SmallVec;
use std::sync::Arc;

/// One use of a buffer: the stream, and its generation then.
#[derive(Debug, Clone)]
pub struct Use {
    stream: Stream,
    generation: u64,
}

/// Streams already waited for during one ordering step (object address, generation), so an
/// operation whose operands share a use waits once.
pub(crate) type Waited = SmallVec<[(usize, u64); 4]>;

impl Use {
    /// A use on `stream` now.
    pub fn new(stream: &Stream) -> Use {
        Use {
            stream: stream.clone(),
            generation: stream.generation(),
        }
    }

    /// The stream used.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }
    /// Its generation at the use.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// Whether the stream changed hands since (so the use is complete).
    pub fn is_recycled(&self) -> bool {
        self.stream.generation() != self.generation
    }
    /// Whether this is a use by `stream` in its current generation.
    pub fn is_by(&self, stream: &Stream) -> bool {
        self.stream.same_as(stream) && self.generation == stream.generation()
    }

    /// Make work enqueued on `caller` from now on wait (device-side) for this use.
    pub fn order_before(&self, caller: &Stream, events: &EventPool) -> Result<()> {
        let mut waited = Waited::new();
        self.order_before_once(caller, events, &mut waited)
    }

    #[inline]
    fn order_before_once(
        &self,
        caller: &Stream,
        events: &EventPool,
        waited: &mut Waited,
    ) -> Result<()> {
        if self.stream.same_as(caller) || self.is_recycled() {
            // Stream order covers it, or it is complete.
            return Ok(());
        }
        let key = (Arc::as_ptr(&self.stream.0) as usize, self.generation);
        if waited.contains(&key) {
            return Ok(());
        }
        let event = events.get()?;
        let recorded = self.stream.enqueue_foreign(
            Some(self.generation),
            "an event record (ordering work after a buffer's use)",
            |h| self.stream.0.platform.record_event(event, h),
        );
        let result = match recorded {
            // A user capture waits on the host: a device-side wait would put an event of
            // work outside the capture into the graph (relaxed capture mode allows the
            // host wait; the graph's launches are ordered by their own enqueue).
            Ok(Some(())) if caller.recording().is_some() => {
                caller.0.platform.synchronize_event(event)
            }
            Ok(Some(())) => caller.0.platform.stream_wait_event(caller.handle(), event),
            Ok(None) => self.check_errors(),
            Err(e) => Err(e),
        };
        events.put(event);
        if result.is_ok() {
            waited.push(key);
        }
        result
    }

    /// Record an event after this use, for a free to wait for: `None` when the use is
    /// complete (recycled, or its stream destroyed). On `caller`'s own stream the record is
    /// direct; on another's it goes through `Stream::enqueue_foreign`. A capturing stream
    /// gives [`HipError::StreamCapturing`] (the free must wait for the capture to end).
    pub fn record_completion(
        &self,
        caller: Option<&Stream>,
        events: &EventPool,
    ) -> Result<Option<(Stream, EventHandle)>> {
        if self.is_recycled() {
            return Ok(None);
        }
        let event = events.get()?;
        let what = "an event record (a buffer's free)";
        let record = |h| self.stream.0.platform.record_event(event, h);
        let recorded = if caller.is_some_and(|c| c.same_as(&self.stream)) {
            if self.stream.is_capturing()? {
                Err(HipError::StreamCapturing {
                    stream: self.stream.handle().0,
                    what,
                })
            } else {
                record(self.stream.handle()).map(Some)
            }
        } else {
            self.stream
                .enqueue_foreign(Some(self.generation), what, record)
        };
        match recorded {
            Ok(Some(())) => Ok(Some((self.stream.clone(), event))),
            Ok(None) => {
                events.put(event);
                self.check_errors().map(|()| None)
            }
            Err(e) => {
                events.put(event);
                Err(e)
            }
        }
    }

    /// Block the host until this use has completed, without an event (for when recording
    /// one failed): its stream is synchronised, through `Stream::enqueue_foreign` (its
    /// generation checked under its lock, never during a capture: that is
    /// [`HipError::StreamCapturing`]). Ok when the use has completed, or needs no wait (its
    /// stream changed hands, failed or is gone).
    pub(crate) fn wait_on_host(&self) -> Result<()> {
        if self.is_recycled() {
            return Ok(());
        }
        self.stream
            .enqueue_foreign(
                Some(self.generation),
                "a host wait for a use of a freed buffer",
                |h| self.stream.0.platform.synchronize_stream(h),
            )
            .map(|_| ())
    }

    /// Block the host until this use has completed.
    pub fn synchronize(&self, events: &EventPool) -> Result<()> {
        match self.record_completion(None, events)? {
            Some((stream, event)) => {
                let r = stream.0.platform.synchronize_event(event);
                events.put(event);
                r
            }
            None => Ok(()),
        }
    }

    /// Report an error state of the used stream, for this use's generation only: a recycled
    /// or destroyed stream's errors belong to whoever uses it now.
    pub fn check_errors(&self) -> Result<()> {
        if self.is_recycled() || self.stream.is_destroyed() {
            return Ok(());
        }
        self.stream.check_valid()
    }
}

/// The uses of one buffer that may not have completed: the last write, and the reads since.
#[derive(Debug, Clone, Default)]
pub struct BufferUses {
    last_write: Option<Use>,
    /// Reads on streams other than the last writer's (a read on the writer's stream is
    /// covered by stream order and not recorded). One inline: the common case of one other
    /// thread reading; more spill to the heap. Kept small because every `HipBuffer` (and
    /// the facade's `AnyBuffer`, returned in `Result`s) carries it.
    reads: SmallVec<[Use; 1]>,
}

impl BufferUses {
    /// A buffer just allocated on `stream` (the allocation counts as a write).
    pub fn written_by(stream: &Stream) -> BufferUses {
        BufferUses {
            last_write: Some(Use::new(stream)),
            reads: SmallVec::new(),
        }
    }

    /// The last write.
    pub fn last_write(&self) -> Option<&Use> {
        self.last_write.as_ref()
    }
    /// The reads since the last write.
    pub fn reads(&self) -> &[Use] {
        &self.reads
    }

    /// Every use that may still be running (not recycled), each stream object once.
    pub fn live(&self) -> SmallVec<[Use; 4]> {
        let mut out: SmallVec<[Use; 4]> = SmallVec::new();
        for u in self.last_write.iter().chain(self.reads.iter()) {
            if !u.is_recycled() && !out.iter().any(|o| o.stream.same_as(&u.stream)) {
                out.push(u.clone());
            }
        }
        out
    }

    /// Order work enqueued on `caller` after what a read must follow: the last write.
    #[inline]
    pub(crate) fn order_read(
        &self,
        caller: &Stream,
        events: &EventPool,
        waited: &mut Waited,
    ) -> Result<()> {
        match &self.last_write {
            Some(w) => w.order_before_once(caller, events, waited),
            None => Ok(()),
        }
    }

    /// Order work enqueued on `caller` after what a write must follow: the last write and
    /// every read since.
    #[inline]
    pub(crate) fn order_write(
        &self,
        caller: &Stream,
        events: &EventPool,
        waited: &mut Waited,
    ) -> Result<()> {
        self.order_read(caller, events, waited)?;
        for r in &self.reads {
            r.order_before_once(caller, events, waited)?;
        }
        Ok(())
    }

    /// Record a read by `caller` (after its work was enqueued).
    #[inline]
    pub(crate) fn record_read(&mut self, caller: &Stream) {
        self.reads.retain(|r| !r.is_recycled());
        if self.last_write.as_ref().is_some_and(|w| w.is_by(caller))
            || self.reads.iter().any(|r| r.is_by(caller))
        {
            return;
        }
        self.reads.push(Use::new(caller));
    }

    /// Record a write by `caller` (after its work was enqueued): it follows every use so far.
    #[inline]
    pub(crate) fn record_write(&mut self, caller: &Stream) {
        if !self.last_write.as_ref().is_some_and(|w| w.is_by(caller)) {
            self.last_write = Some(Use::new(caller));
        }
        self.reads.clear();
    }
}
