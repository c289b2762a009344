//! Groups: several ranks' collectives issued from one thread, launched together.
//!
//! A thread that drives every rank of its process (one device each) must issue their
//! collectives inside one group: NCCL launches a collective only once every rank of the
//! group has issued its part, and a rank issued alone from the thread would wait for ranks
//! the thread has not issued yet. Inside a group the library defers the work to the group's
//! end, so operands dropped inside the group must stay alive until then: the collectives
//! of `array_ops.rs` hand their operands to [`keep_until_group_end`].

use crate::HipBackend;
use std::any::Any;
use std::cell::RefCell;

thread_local! {
    /// Nesting depth of this thread's groups and the operands they keep alive.
    static GROUP: RefCell<(usize, Vec<Box<dyn Any>>)> = RefCell::new((0, Vec::new()));
}

/// Keep `value` alive until this thread's outermost group ends (dropped at once outside a
/// group).
pub(crate) fn keep_until_group_end<T: 'static>(value: T) {
    GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.0 > 0 {
            g.1.push(Box::new(value));
        }
    });
}

/// One open group of this thread: ends it when dropped, so a panic in the group's closure
/// still ends the library's group (a group left open would defer every later collective of
/// the thread forever) and releases what it kept.
struct OpenGroup<'a> {
    backend: &'a HipBackend,
    ended: bool,
}

impl OpenGroup<'_> {
    /// Leave this thread's group (releasing the kept operands once the outermost group has
    /// ended, when its deferred work is enqueued and their frees are ordered after it).
    fn end(&mut self) -> crate::error::Result<()> {
        self.ended = true;
        let kept = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            g.0 = g.0.saturating_sub(1);
            if g.0 == 0 {
                std::mem::take(&mut g.1)
            } else {
                Vec::new()
            }
        });
        let ended = self.backend.device_state().platform().group_end();
        drop(kept);
        ended
    }
}

impl Drop for OpenGroup<'_> {
    fn drop(&mut self) {
        if !self.ended {
            if let Err(e) = self.end() {
                tracing::debug!(error = %e, "ending a collective group after a panic failed");
            }
        }
    }
}

/// Run `f` inside a group of `backend`'s collective library (`ncclGroupStart` …
/// `ncclGroupEnd`): collectives of several communicators issued in `f` are launched together
/// when it returns. Groups nest. The group ends also when `f` fails (or panics); `f`'s error
/// is returned first.
///
/// Inside a group, issue only collectives: other work on their arrays would be enqueued
/// before the group's collectives are (they are enqueued at the group's end), and other
/// threads must not write the group's inputs until it ends.
pub fn group<R>(
    backend: &HipBackend,
    f: impl FnOnce() -> gpuarrays_core::Result<R>,
) -> gpuarrays_core::Result<R> {
    let platform = backend.device_state().platform();
    platform.group_start().map_err(|e| backend.err(e))?;
    GROUP.with(|g| g.borrow_mut().0 += 1);
    let mut open = OpenGroup {
        backend,
        ended: false,
    };
    let out = f();
    let ended = open.end().map_err(|e| backend.err(e));
    let out = out?;
    ended?;
    Ok(out)
}
