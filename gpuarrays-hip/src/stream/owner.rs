//! `OwnerToken`: who holds a pooled stream. Each thread gets its own token at first use; a
//! pooled stream records the token of the thread it was handed to, and only that thread
//! may release it back to the pool or destroy it.
//!
//! Why not `std::thread::ThreadId`: a token is a plain number a stream can keep in an
//! atomic (0 = nobody), and tests and models can make distinct owners without threads.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// A holder of pooled streams: one per thread. Never 0 (0 means "no owner").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OwnerToken(pub(crate) u64);

static NEXT: AtomicU64 = AtomicU64::new(1);

#[cfg(not(loom))]
std::thread_local! {
    static MINE: Cell<u64> = const { Cell::new(0) };
}

// Under loom, every model thread runs on one OS thread: its own token needs loom's.
#[cfg(loom)]
loom::thread_local! {
    static MINE: Cell<u64> = Cell::new(0);
}

impl OwnerToken {
    /// A token no thread has (for a holder that is not a thread).
    pub(crate) fn fresh() -> OwnerToken {
        OwnerToken(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The calling thread's token (None while the thread is exiting and its thread-locals
    /// are gone).
    #[inline]
    pub fn current() -> Option<OwnerToken> {
        MINE.try_with(|m| {
            if m.get() == 0 {
                m.set(OwnerToken::fresh().0);
            }
            OwnerToken(m.get())
        })
        .ok()
    }

    /// The raw value (never 0).
    pub fn get(self) -> u64 {
        self.0
    }
}
