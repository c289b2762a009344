//! `LastUse`: the (stream, generation) of an array's last use, and the rules built on it.
//!
//! - Another thread waits for that work only if the generation is unchanged. A changed
//!   generation means the stream went to another thread, which the pool allows only after the
//!   stream's queued work completed, so there is nothing left to wait for; errors are still
//!   checked.
//! - A free goes on the recorded stream only while its generation is unchanged; an array
//!   whose stream was recycled frees on the caller's stream, never on the recorded one (which
//!   may now be capturing a graph for its new owner).
//! - Ownership transfer always takes the caller's stream object and its current generation,
//!   even when the handles compare equal (the "skipped wait" finding).

use super::Stream;
use super::events::EventPool;
use crate::error::{HipError, Result};
use crate::platform::WorkStatus;

/// Where and when a buffer was last used.
#[derive(Debug, Clone)]
pub struct LastUse {
    stream: Stream,
    generation: u64,
}

impl LastUse {
    /// A record of use on `stream` now.
    pub fn new(stream: &Stream) -> LastUse {
        LastUse {
            stream: stream.clone(),
            generation: stream.generation(),
        }
    }

    /// The stream recorded.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }
    /// The generation recorded.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// Whether the recorded stream has changed hands since (so the recorded work is done).
    pub fn is_recycled(&self) -> bool {
        self.stream.generation() != self.generation
    }

    /// The stream a free of the buffer must go to when `caller` frees it.
    pub fn free_stream<'a>(&'a self, caller: &'a Stream) -> &'a Stream {
        if self.is_recycled() {
            caller
        } else {
            &self.stream
        }
    }

    /// Make work enqueued on `caller` from now on wait (device-side) for the recorded work.
    pub fn order_before(&self, caller: &Stream, events: &EventPool) -> Result<()> {
        if self.stream.same_as(caller) && !self.is_recycled() {
            return Ok(());
        }
        if self.is_recycled() {
            return self.check_errors();
        }
        let event = events.get()?;
        let recorded = self.stream.enqueue_foreign(
            Some(self.generation),
            "an event record (waiting for a buffer's last use)",
            |h| self.stream.0.platform.record_event(event, h),
        );
        let result = match recorded {
            Ok(Some(())) => caller.0.platform.stream_wait_event(caller.handle(), event),
            Ok(None) => self.check_errors(),
            Err(e) => Err(e),
        };
        events.put(event);
        result
    }

    /// Block the host until the recorded work has completed.
    pub fn synchronize(&self, events: &EventPool) -> Result<()> {
        if self.is_recycled() {
            return self.check_errors();
        }
        let event = events.get()?;
        let recorded = self.stream.enqueue_foreign(
            Some(self.generation),
            "an event record (waiting for a buffer's last use)",
            |h| self.stream.0.platform.record_event(event, h),
        );
        let result = match recorded {
            Ok(Some(())) => self.stream.0.platform.synchronize_event(event),
            Ok(None) => self.check_errors(),
            Err(e) => Err(e),
        };
        events.put(event);
        result
    }

    /// Ownership transfer to `caller`: order after the recorded work, then record `caller`
    /// (always the caller's stream object, with its generation now).
    pub fn transfer_to(&mut self, caller: &Stream, events: &EventPool) -> Result<()> {
        self.order_before(caller, events)?;
        *self = LastUse::new(caller);
        Ok(())
    }

    /// Report an error state of the recorded stream without waiting for its current work.
    pub fn check_errors(&self) -> Result<()> {
        if self.stream.is_destroyed() {
            // Destroyed through the API (after synchronising) or behind our back: nothing to
            // wait for and nothing left to ask.
            return Ok(());
        }
        self.stream.check_valid()?;
        match self.stream.query() {
            WorkStatus::Error(code) => Err(HipError::StreamUnusable {
                device: self.stream.device(),
                stream: self.stream.handle().0,
                reason: format!("the platform reports error {code}"),
            }),
            _ => Ok(()),
        }
    }
}
