//! The faults tests inject into the test double (slow or failing stream creation, streams
//! in an error state or destroyed behind the pool's back, out-of-memory, failing event
//! records, gated compilation) and the work they hold and release by hand.

use super::records::Completion;
use super::{FakePlatform, StreamHandle};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The injected faults (kept in the double's state).
#[derive(Debug, Default)]
pub(super) struct Faults {
    pub create_delay: Duration,
    pub fail_creations: u32,
    pub fail_allocs: u32,
    pub fail_pinned_allocs: u32,
    pub fail_event_records: u32,
}

/// Whether an injected failure counted by `left` is due; counts it.
pub(super) fn due(left: &mut u32) -> bool {
    let fail = *left > 0;
    *left = left.saturating_sub(1);
    fail
}

impl FakePlatform {
    /// Every stream creation sleeps this long first (outside any lock of the double).
    pub fn set_stream_creation_delay(&self, delay: Duration) {
        self.state.lock().faults.create_delay = delay;
    }
    /// The next `n` stream creations fail.
    pub fn fail_next_stream_creations(&self, n: u32) {
        self.state.lock().faults.fail_creations = n;
    }
    /// The next `n` allocations fail with out-of-memory.
    pub fn fail_next_allocs(&self, n: u32) {
        self.state.lock().faults.fail_allocs = n;
    }
    /// The next `n` pinned allocations ([`crate::Platform::host_alloc_pinned`]) fail with
    /// out-of-memory.
    pub fn fail_next_pinned_allocs(&self, n: u32) {
        self.state.lock().faults.fail_pinned_allocs = n;
    }
    /// The next `n` event records fail (an API error, nothing recorded), as a driver out of
    /// resources would.
    pub fn fail_next_event_records(&self, n: u32) {
        self.state.lock().faults.fail_event_records = n;
    }
    /// Compilations wait (outside any lock of the double) until [`FakePlatform::open_compiles`]
    /// (or the sync timeout, then they fail).
    pub fn hold_compiles(&self) {
        *self.compile_gate.0.lock() = true;
    }
    /// Let held compilations (and later ones) run.
    pub fn open_compiles(&self) {
        *self.compile_gate.0.lock() = false;
        self.compile_gate.1.notify_all();
    }
    /// Compilations running now (held at the gate, or past it).
    pub fn compiles_in_progress(&self) -> usize {
        self.compiling.load(Ordering::SeqCst)
    }
    /// Put a stream into an error state (as after a failed kernel).
    pub fn set_stream_error(&self, stream: StreamHandle, code: i32) {
        if let Some(s) = self.state.lock().stream_mut(stream) {
            s.error = Some(code);
        }
    }
    /// Destroy a stream behind the pool's back (as a user calling the driver on a raw
    /// handle would): it stops existing, queries report an invalid handle, its handle value
    /// may be reused by the next stream created, and its queued work still completes.
    pub fn destroy_behind_back(&self, stream: StreamHandle) {
        self.state.lock().retire_stream(stream);
    }
    /// Queue work on `stream` that completes as `completion` says. Returns its id.
    pub fn hold(&self, stream: StreamHandle, completion: Completion) -> u64 {
        let mut st = self.state.lock();
        let Some(&uid) = st.handles.get(&stream.0) else {
            return 0;
        };
        st.push_work(uid, completion, None).unwrap_or(0)
    }
    /// Complete held work.
    pub fn complete(&self, work: u64) {
        if let Some(w) = self.state.lock().work.get_mut(&work) {
            w.released = true;
        }
        self.changed.notify_all();
    }
    /// Complete all held work.
    pub fn complete_all(&self) {
        for w in self.state.lock().work.values_mut() {
            w.released = true;
        }
        self.changed.notify_all();
    }
    /// Whether held work has completed (work the double no longer knows has).
    pub fn is_done(&self, work: u64) -> bool {
        let mut st = self.state.lock();
        match st.work.get(&work).map(|w| w.stream) {
            Some(uid) => st.is_done((uid, work)),
            None => true,
        }
    }
}
