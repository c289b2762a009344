//! Whether this thread's kernel may split its work across the thread pool, or must run it
//! all on the calling thread ("serially").
//!
//! Why a thread must sometimes not split: a call holds the access locks of its buffers
//! while its kernel runs (`buffer::access`). A rayon worker that splits work waits for the
//! pieces with `join`, and while it waits it runs *other* queued jobs: possibly a job of
//! the program's own (a `par_iter` that calls gpuarrays) that needs a lock this very thread
//! holds further down its stack. That job can never get the lock, and the thread can never
//! return to release it. So a call made on a rayon worker takes its locks without blocking
//! (`buffer::access::Accesses::acquire_polling`) and then runs its kernel serially: no
//! `join`, so nothing else runs on the thread while it holds the locks.
//!
//! Kernels ask [`min_len`] for the `with_min_len` of each parallel iterator: 1 normally,
//! `usize::MAX` (never split: rayon runs the iterator on the calling thread, as one piece)
//! while [`serially`] runs. Results do not change: every kernel computes each output with
//! the same per-element functions in the same order whatever the split.

use std::cell::Cell;

thread_local! {
    static SERIAL: Cell<bool> = const { Cell::new(false) };
}

/// The `with_min_len` for a kernel's parallel iterators on this thread.
#[inline]
pub(crate) fn min_len() -> usize {
    if is_serial() { usize::MAX } else { 1 }
}

/// Whether kernels on this thread must run all their work here.
#[inline]
pub(crate) fn is_serial() -> bool {
    SERIAL.with(Cell::get)
}

/// Runs `f` with every kernel it calls on this thread running serially.
pub(crate) fn serially<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the previous mode, also when `f` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SERIAL.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SERIAL.with(|s| s.replace(true)));
    f()
}

/// Whether the calling thread is a worker of some rayon pool (where waiting in `join` runs
/// other jobs; see the module documentation).
#[inline]
pub(crate) fn on_rayon_worker() -> bool {
    rayon::current_thread_index().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serially_restores_the_mode_even_after_a_panic() {
        assert_eq!(min_len(), 1);
        serially(|| {
            assert_eq!(min_len(), usize::MAX);
            serially(|| assert!(is_serial()));
            assert!(is_serial());
        });
        assert!(!is_serial());
        let r = std::panic::catch_unwind(|| serially(|| panic!("expected by the test")));
        assert!(r.is_err());
        assert!(!is_serial());
    }
}
