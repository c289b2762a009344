//! The test double's state behind its one lock: streams and their queued work, events, memory,
//! graphs, and the operation log that tests inspect.
//!
//! Work behaves like a GPU's: every stream-ordered operation is a piece of work that starts
//! when the work before it on its stream has completed (and, for an event wait, when the
//! event's work has completed) and then takes its time ([`Completion`]). Completion is
//! computed lazily from the clock whenever someone looks (a query, a synchronize), so the
//! double needs no worker threads.

use super::collective_records::Collectives;
use super::faults::Faults;
use super::pinned::PinnedMemory;
use super::race::{Clock, RaceDetector};
pub(super) use super::records::{
    Capture, FakeAlloc, FakeBlas, FakeEvent, FakeExec, FakeStream, Queued, Work,
};
pub use super::records::{Completion, FakeOp};
use super::{FakeStats, api};
use crate::error::Result;
use crate::platform::codes;
use crate::platform::{DeviceId, StreamHandle};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
pub(super) struct State {
    pub next_handle: u64,
    pub next_uid: u64,
    pub next_work: u64,
    pub next_addr: u64,
    /// Handle values of destroyed streams, reused (last freed first) as drivers do.
    pub free_stream_handles: Vec<u64>,
    pub handles: HashMap<u64, u64>,
    pub streams: HashMap<u64, FakeStream>,
    pub work: HashMap<u64, Work>,
    pub events: HashMap<u64, FakeEvent>,
    pub allocs: BTreeMap<u64, FakeAlloc>,
    /// Device memory in use per device (allocations, BLAS workspaces, FFT plans) and the
    /// capacity of each device.
    pub used: HashMap<DeviceId, usize>,
    pub memory_per_device: usize,
    pub modules: HashMap<u64, String>,
    pub functions: HashMap<u64, String>,
    pub graphs: HashMap<u64, Vec<FakeOp>>,
    pub execs: HashMap<u64, FakeExec>,
    pub log: Vec<FakeOp>,
    pub keep_log: bool,
    pub bound: HashMap<std::thread::ThreadId, DeviceId>,
    pub races: RaceDetector,
    pub blas: HashMap<u64, FakeBlas>,
    pub blas_created: usize,
    pub blas_destroyed: usize,
    /// Device memory each new BLAS handle holds (0 unless a test sets it).
    pub blas_workspace_bytes: usize,
    /// Page-locked host memory and the copies using it that have not completed.
    pub pinned: PinnedMemory,
    pub stats: FakeStats,
    pub faults: Faults,
    /// Ordered pairs (device, peer) where `device` enabled access to `peer`'s memory.
    pub peers_enabled: HashSet<(DeviceId, DeviceId)>,
    /// Communicators, their groups and collectives waiting for other ranks.
    pub collectives: Collectives,
}

impl State {
    pub fn handle(&mut self) -> u64 {
        self.next_handle += 1;
        0x1000 + self.next_handle * 0x10
    }

    /// Take `bytes` of `device`'s memory; false (nothing taken) if they do not fit.
    pub fn reserve(&mut self, device: DeviceId, bytes: usize) -> bool {
        let used = self.used.entry(device).or_default();
        match used.checked_add(bytes) {
            Some(u) if u <= self.memory_per_device => *used = u,
            _ => return false,
        }
        true
    }

    /// The `len` bytes at `off` in the allocation at `base` (as `FakePlatform::access` found).
    pub fn bytes_mut(&mut self, (base, off): (u64, usize), len: usize) -> &mut [u8] {
        let alloc = self.allocs.get_mut(&base).expect("a live allocation");
        &mut alloc.data[off..off + len]
    }

    /// Give back `bytes` of `device`'s memory.
    pub fn release(&mut self, device: DeviceId, bytes: usize) {
        let used = self.used.entry(device).or_default();
        *used = used.saturating_sub(bytes);
    }

    /// A new stream; its handle value is a destroyed stream's if one is free.
    pub fn add_stream(&mut self, device: DeviceId, priority: i32) -> u64 {
        let handle = match self.free_stream_handles.pop() {
            Some(h) => h,
            None => self.handle(),
        };
        self.next_uid += 1;
        let uid = self.next_uid;
        self.handles.insert(handle, uid);
        let stream = FakeStream {
            uid,
            handle,
            device,
            priority,
            error: None,
            pending: VecDeque::new(),
            last_done_at: Instant::now(),
            capture: None,
            seq: 0,
            clock: Clock::default(),
        };
        self.streams.insert(uid, stream);
        handle
    }

    /// The live stream behind a handle value.
    pub fn stream(&self, handle: StreamHandle) -> Option<&FakeStream> {
        self.streams.get(self.handles.get(&handle.0)?)
    }

    pub fn stream_mut(&mut self, handle: StreamHandle) -> Option<&mut FakeStream> {
        self.streams.get_mut(self.handles.get(&handle.0)?)
    }

    /// The stream stops existing for its handle (destroyed, or behind the pool's back): the
    /// value may be reused, queued work still completes, and the record is dropped once it has.
    pub fn retire_stream(&mut self, handle: StreamHandle) {
        if let Some(uid) = self.handles.remove(&handle.0) {
            self.free_stream_handles.push(handle.0);
            self.collect_retired(uid);
        }
    }

    fn collect_retired(&mut self, uid: u64) {
        if self
            .streams
            .get(&uid)
            .is_some_and(|s| s.pending.is_empty() && self.handles.get(&s.handle) != Some(&uid))
        {
            self.streams.remove(&uid);
        }
    }

    /// Check that `stream` can take work; returns its device.
    pub fn usable(&self, stream: StreamHandle) -> Result<DeviceId, i32> {
        let s = self.stream(stream).ok_or(codes::INVALID_HANDLE)?;
        s.error.map_or(Ok(s.device), Err)
    }

    /// Whether `stream` is capturing.
    pub fn capturing(&self, stream: StreamHandle) -> bool {
        self.stream(stream).is_some_and(|s| s.capture.is_some())
    }

    /// Fail (and invalidate the capture) if `stream` is capturing: `call` is not permitted
    /// during a capture.
    pub fn refuse_during_capture(
        &mut self,
        call: &'static str,
        stream: StreamHandle,
    ) -> Result<()> {
        if !self.capturing(stream) {
            return Ok(());
        }
        self.invalidate_capture(stream, call);
        Err(api(
            call,
            codes::STREAM_CAPTURE_UNSUPPORTED,
            "operation not permitted when stream is capturing",
        ))
    }

    /// Invalidate the capture on `stream` (an operation not permitted during it).
    pub fn invalidate_capture(&mut self, stream: StreamHandle, why: &'static str) {
        if let Some(c) = self.stream_mut(stream).and_then(|s| s.capture.as_mut()) {
            c.invalidated.get_or_insert(why);
            self.stats.invalidated_captures += 1;
        }
    }

    /// Record an operation taking `time`: into the capture if the stream captures (returns
    /// true), else into the log, as a piece of work (returns false). The caller has checked
    /// that the stream is usable.
    pub fn enqueue(&mut self, op: FakeOp, time: Duration) -> bool {
        self.enqueue_after(op, time, None) == Queued::Captured
    }

    /// Like [`State::enqueue`], waiting for a piece of work of another stream (stream uid,
    /// work id) first, and saying what became of the operation (copies of pinned memory act
    /// when their work completes).
    pub fn enqueue_after(&mut self, op: FakeOp, time: Duration, dep: Option<(u64, u64)>) -> Queued {
        let Some(&uid) = self.handles.get(&op.stream().0) else {
            return Queued::Completed;
        };
        if let Some(c) = self.streams.get_mut(&uid).and_then(|s| s.capture.as_mut()) {
            c.ops.push(op);
            return Queued::Captured;
        }
        if self.keep_log {
            self.log.push(op);
        }
        match self.push_work(uid, Completion::After(time), dep) {
            Some(id) => Queued::Pending(id),
            None => Queued::Completed,
        }
    }

    /// Queue a piece of work on stream `uid`; returns its id. Instant work with nothing
    /// before it completes at once and is not kept.
    pub fn push_work(
        &mut self,
        uid: u64,
        completion: Completion,
        dep: Option<(u64, u64)>,
    ) -> Option<u64> {
        let dep = dep.filter(|(_, id)| self.work.contains_key(id));
        let s = self.streams.get_mut(&uid)?;
        s.seq += 1;
        s.clock.set(uid, s.seq);
        s.clock.join(self.races.host_clock());
        if s.pending.is_empty() && dep.is_none() && completion == Completion::After(Duration::ZERO)
        {
            s.last_done_at = Instant::now();
            return None;
        }
        self.next_work += 1;
        let id = self.next_work;
        s.pending.push_back(id);
        let work = Work {
            stream: uid,
            completion,
            released: false,
            enqueued: Instant::now(),
            dep,
        };
        self.work.insert(id, work);
        Some(id)
    }

    /// Complete what can complete on stream `uid` by now (counting one query of it if
    /// asked), oldest first. Work on another stream it waits for is settled first.
    pub fn settle(&mut self, uid: u64, count_query: bool) {
        self.settle_depth(uid, count_query, 0);
    }

    fn settle_depth(&mut self, uid: u64, mut count_query: bool, depth: usize) {
        let now = Instant::now();
        loop {
            let Some(s) = self.streams.get(&uid) else {
                return;
            };
            let (Some(&id), last_done) = (s.pending.front(), s.last_done_at) else {
                break;
            };
            if let Some((dep_uid, dep)) = self.work.get(&id).and_then(|w| w.dep) {
                if self.work.contains_key(&dep) && dep_uid != uid && depth < 64 {
                    self.settle_depth(dep_uid, false, depth + 1);
                }
                if self.work.contains_key(&dep) {
                    break;
                }
            }
            let done_at = match self.work.get_mut(&id) {
                None => Some(last_done),
                Some(w) => match &mut w.completion {
                    Completion::After(d) => {
                        let end = w.enqueued.max(last_done) + *d;
                        (now >= end).then_some(end)
                    }
                    Completion::Manual => w.released.then_some(now),
                    Completion::AfterQueries(n) => {
                        if count_query {
                            count_query = false;
                            *n = n.saturating_sub(1);
                        }
                        (*n == 0 || w.released).then_some(now)
                    }
                },
            };
            let Some(done_at) = done_at else {
                break;
            };
            self.work.remove(&id);
            // A copy of pinned memory lands (or has its source checked) now.
            self.pinned.work_done(id);
            if let Some(s) = self.streams.get_mut(&uid) {
                s.pending.pop_front();
                s.last_done_at = done_at.max(s.last_done_at);
            }
        }
        self.collect_retired(uid);
    }

    /// Whether a piece of work has completed (settling its stream first).
    pub fn is_done(&mut self, work: (u64, u64)) -> bool {
        if self.work.contains_key(&work.1) {
            self.settle(work.0, false);
        }
        !self.work.contains_key(&work.1)
    }

    /// Complete queued work that finishes by itself when waited for (query-counted work).
    pub fn finish_query_counted(&mut self, ids: &[(u64, u64)]) {
        for &(uid, last) in ids {
            let Some(s) = self.streams.get(&uid) else {
                continue;
            };
            for id in s.pending.iter().take_while(|&&id| id <= last) {
                if let Some(w) = self.work.get_mut(id)
                    && matches!(w.completion, Completion::AfterQueries(_))
                {
                    w.released = true;
                }
            }
        }
    }

    /// The earliest time a timed piece of work at the front of a stream may complete (to
    /// know how long a synchronize may sleep).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.streams
            .values()
            .filter_map(|s| {
                let w = self.work.get(s.pending.front()?)?;
                match w.completion {
                    Completion::After(d) => Some(w.enqueued.max(s.last_done_at) + d),
                    _ => None,
                }
            })
            .min()
    }
}
