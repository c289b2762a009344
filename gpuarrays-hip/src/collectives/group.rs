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

/// Run `f` inside a group of `backend`'s collective library (`ncclGroupStart` …
/// `ncclGroupEnd`): collectives of several communicators issued in `f` are launched together
/// when it returns. Groups nest. The group ends also when `f` fails; `f`'s error is returned
/// first.
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
    let out = f();
    let kept = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        g.0 -= 1;
        if g.0 == 0 {
            std::mem::take(&mut g.1)
        } else {
            Vec::new()
        }
    });
    let ended = platform.group_end().map_err(|e| backend.err(e));
    // The deferred work is enqueued now: frees of the kept operands are ordered after it.
    drop(kept);
    let out = out?;
    ended?;
    Ok(out)
}
