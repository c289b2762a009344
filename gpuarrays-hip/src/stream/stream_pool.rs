//! `StreamPool`: the streams of one device × priority.
//!
//! - Taking reuses an idle stream: first the one this same thread released (its own queued
//!   work is ordered anyway, so it need not have finished), else one whose queued work has
//!   completed (queried Ready). Only when none qualifies is a stream created, and creation
//!   runs outside the pool lock (a creation slot is reserved under it).
//! - Threads alive at the same time never share a stream: a taken stream leaves the idle list.
//! - At most `max_idle` idle streams are kept; the cap counts idle streams only, so threads
//!   that hold their streams for a long time never disable recycling. Surplus is retired.
//! - A stream whose query fails (error state, destroyed behind the pool's back) or that was
//!   destroyed through [`Stream::destroy`] is dropped from the pool, not handed out and not
//!   queried again. Dropping it moves its generation on (`Stream::retire_unusable`): the
//!   uses recorded on it are over, so buffers it touched can be written and freed again.
//! - Each hand-over to another thread bumps the stream's generation.
//! - A taken stream records its owner ([`OwnerToken`]); only that owner releases it (a
//!   release by anyone else, or a second release, is refused and logged), so no stream is
//!   ever idle in the pool while a thread still holds it. `take` and `release` are the
//!   crate's own: threads get their streams through [`super::thread_stream`].

use super::StreamPriority;
use super::owner::OwnerToken;
use super::registry::StreamRegistry;
use super::shared_stream::{Origin, Stream};
use crate::error::Result;
use crate::platform::{DeviceId, Platform, WorkStatus};
use crate::sync::{AtomicUsize, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Counters of one pool, for benchmarks and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamPoolStats {
    /// The pool's device.
    pub device: DeviceId,
    /// The pool's priority.
    pub priority: StreamPriority,
    /// Streams of this pool not yet destroyed (held by threads, idle, or retired but still
    /// referenced by records).
    pub alive: usize,
    /// Idle streams now.
    pub idle: usize,
    /// Streams created.
    pub created: usize,
    /// Takes served by an idle stream (same thread or finished owner).
    pub reused: usize,
    /// Streams dropped because they were in an error state or destroyed.
    pub dropped_bad: usize,
    /// Idle streams retired because the idle cap was exceeded (or on release requests).
    pub retired_surplus: usize,
}

struct Idle {
    stream: Stream,
    last_owner: OwnerToken,
}

#[derive(Default)]
struct PoolState {
    idle: VecDeque<Idle>,
    creating: usize,
}

#[derive(Default)]
struct Counters {
    created: AtomicUsize,
    reused: AtomicUsize,
    dropped_bad: AtomicUsize,
    retired_surplus: AtomicUsize,
}

/// The pool of one device × priority. See the module documentation.
pub struct StreamPool {
    runtime_id: u64,
    device: DeviceId,
    priority: StreamPriority,
    numeric_priority: i32,
    pooling: bool,
    max_idle: AtomicUsize,
    platform: Arc<dyn Platform>,
    registry: Arc<StreamRegistry>,
    state: Mutex<PoolState>,
    alive: Arc<AtomicUsize>,
    counters: Counters,
}

impl std::fmt::Debug for StreamPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamPool")
            .field("device", &self.device)
            .field("priority", &self.priority)
            .finish_non_exhaustive()
    }
}

impl StreamPool {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        platform: Arc<dyn Platform>,
        registry: Arc<StreamRegistry>,
        runtime_id: u64,
        device: DeviceId,
        priority: StreamPriority,
        numeric_priority: i32,
        max_idle: usize,
        pooling: bool,
    ) -> StreamPool {
        StreamPool {
            runtime_id,
            device,
            priority,
            numeric_priority,
            pooling,
            max_idle: AtomicUsize::new(max_idle),
            platform,
            registry,
            state: Mutex::new(PoolState::default()),
            alive: Arc::new(AtomicUsize::new(0)),
            counters: Counters::default(),
        }
    }

    /// The pool's device.
    pub fn device(&self) -> DeviceId {
        self.device
    }
    /// The pool's priority.
    pub fn priority(&self) -> StreamPriority {
        self.priority
    }

    /// Take a stream for `owner` (see the module documentation). The caller must have bound
    /// the pool's device on this thread.
    pub(crate) fn take(&self, owner: OwnerToken) -> Result<Stream> {
        if self.pooling {
            let mut busy = Vec::new();
            let found = self.take_idle(owner, &mut busy);
            let mut st = self.state.lock();
            // Streams still busy go back for others (and for a later, finished check).
            for b in busy.into_iter().rev() {
                st.idle.push_front(b);
            }
            if let Some(stream) = found {
                stream.set_owner(Some(owner));
                return Ok(stream);
            }
            st.creating += 1;
        } else {
            self.state.lock().creating += 1;
        }
        // The slot is reserved; create outside the lock.
        let created = self
            .platform
            .create_stream(self.device, self.numeric_priority);
        self.state.lock().creating -= 1;
        let handle = created?;
        self.counters.created.fetch_add(1, Ordering::Relaxed);
        self.alive.fetch_add(1, Ordering::Relaxed);
        let stream = Stream::new(
            self.platform.clone(),
            handle,
            self.device,
            Some(self.priority),
            Origin::Pooled,
            self.runtime_id,
            Some(self.alive.clone()),
        );
        self.registry.insert(&stream);
        stream.set_owner(Some(owner));
        tracing::trace!(stream = %handle, device = %self.device, priority = ?self.priority, "created pooled stream");
        Ok(stream)
    }

    /// Look for an idle stream; queries run outside the lock, on candidates removed from the
    /// idle list so no other thread can take them meanwhile. Busy candidates go to `busy`.
    fn take_idle(&self, owner: OwnerToken, busy: &mut Vec<Idle>) -> Option<Stream> {
        // This thread's own released stream first.
        let own = {
            let mut st = self.state.lock();
            st.idle
                .iter()
                .position(|e| e.last_owner == owner)
                .and_then(|i| st.idle.remove(i))
        };
        if let Some(e) = own {
            match e.stream.query() {
                WorkStatus::Ready | WorkStatus::Busy => {
                    self.counters.reused.fetch_add(1, Ordering::Relaxed);
                    return Some(e.stream);
                }
                WorkStatus::Error(code) => self.drop_bad(e.stream, code),
            }
        }
        loop {
            let candidate = self.state.lock().idle.pop_front()?;
            if !candidate.stream.is_valid() {
                self.drop_bad(candidate.stream, crate::platform::codes::INVALID_HANDLE);
                continue;
            }
            match candidate.stream.query() {
                WorkStatus::Ready => {
                    if candidate.last_owner != owner {
                        candidate.stream.bump_generation();
                    }
                    self.counters.reused.fetch_add(1, Ordering::Relaxed);
                    return Some(candidate.stream);
                }
                WorkStatus::Busy => busy.push(candidate),
                WorkStatus::Error(code) => self.drop_bad(candidate.stream, code),
            }
        }
    }

    fn drop_bad(&self, stream: Stream, code: i32) {
        self.counters.dropped_bad.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(stream = %stream.handle(), code, "dropping unusable stream from the pool");
        stream.retire_unusable();
        drop(stream);
    }

    /// Return a stream taken by `owner` (a thread ending, or a priority scope returning). A
    /// stream `owner` does not hold (another's, or one already released) is refused.
    pub(crate) fn release(&self, stream: Stream, owner: OwnerToken) {
        if stream.owner() != Some(owner) {
            tracing::error!(stream = %stream.handle(), ?owner, holder = ?stream.owner(), "refused to release a pooled stream its releaser does not hold");
            return;
        }
        stream.set_owner(None);
        if !stream.is_valid() {
            self.drop_bad(stream, crate::platform::codes::INVALID_HANDLE);
            return;
        }
        if !self.pooling {
            drop(stream);
            return;
        }
        let surplus: Vec<Idle> = {
            let mut st = self.state.lock();
            st.idle.push_back(Idle {
                stream,
                last_owner: owner,
            });
            let max = self.max_idle.load(Ordering::Relaxed);
            let excess = st.idle.len().saturating_sub(max);
            st.idle.drain(..excess).collect()
        };
        self.retire(surplus);
    }

    fn retire(&self, streams: Vec<Idle>) {
        if !streams.is_empty() {
            self.counters
                .retired_surplus
                .fetch_add(streams.len(), Ordering::Relaxed);
        }
        // Dropped outside the lock; the handle is destroyed with the last reference.
        drop(streams);
    }

    /// Change the idle cap; surplus idle streams are retired now.
    pub fn set_max_idle(&self, max: usize) {
        self.max_idle.store(max, Ordering::Relaxed);
        let surplus: Vec<Idle> = {
            let mut st = self.state.lock();
            let excess = st.idle.len().saturating_sub(max);
            st.idle.drain(..excess).collect()
        };
        self.retire(surplus);
    }

    /// Retire every idle stream (a release hook on memory pressure). Returns how many.
    pub fn release_idle(&self) -> usize {
        let all: Vec<Idle> = self.state.lock().idle.drain(..).collect();
        let n = all.len();
        self.retire(all);
        n
    }

    /// The idle streams, oldest first (for the loom models of the pool).
    #[cfg(loom)]
    pub(crate) fn idle_streams(&self) -> Vec<Stream> {
        self.state
            .lock()
            .idle
            .iter()
            .map(|i| i.stream.clone())
            .collect()
    }

    /// Counters.
    pub fn stats(&self) -> StreamPoolStats {
        let idle = self.state.lock().idle.len();
        StreamPoolStats {
            device: self.device,
            priority: self.priority,
            alive: self.alive.load(Ordering::Relaxed),
            idle,
            created: self.counters.created.load(Ordering::Relaxed),
            reused: self.counters.reused.load(Ordering::Relaxed),
            dropped_bad: self.counters.dropped_bad.load(Ordering::Relaxed),
            retired_surplus: self.counters.retired_surplus.load(Ordering::Relaxed),
        }
    }
}
