//! Running destructors: outside the lock, one at a time, never unwinding into the cache.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;

use crate::sync::AtomicU64;

use super::inner::Victim;

/// The cache's destroy function (`None`: drop the handle) and the count of destructors
/// that panicked.
pub(crate) struct Destroyer<V> {
    destroy: Option<Box<dyn Fn(V) + Send + Sync>>,
    panics: AtomicU64,
}

impl<V> Destroyer<V> {
    pub(crate) fn new(destroy: Option<Box<dyn Fn(V) + Send + Sync>>) -> Self {
        Destroyer {
            destroy,
            panics: AtomicU64::new(0),
        }
    }

    pub(crate) fn panics(&self) -> u64 {
        self.panics.load(Ordering::Relaxed)
    }

    /// Destroys `handle`. Must be called without the cache's lock held: a destructor
    /// may take a while (it may synchronise a device) and may call back into the cache.
    ///
    /// A panicking destructor is caught and counted, so that one broken handle cannot
    /// unwind through a `Drop` impl (a lease's, the cache's) or leave the remaining
    /// victims of an eviction undestroyed. The panic hook has already reported it.
    pub(crate) fn destroy(&self, handle: V) {
        // AssertUnwindSafe: after a caught panic the cache touches nothing the
        // destructor could have left half-updated; the handle itself is gone.
        let run = AssertUnwindSafe(|| match &self.destroy {
            Some(destroy) => destroy(handle),
            None => drop(handle),
        });
        if catch_unwind(run).is_err() {
            self.panics.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("HandleCache: a handle destructor panicked; the handle was dropped");
        }
    }

    /// Destroys the victims of one operation, in the order they were evicted (least
    /// recently cached first where the order was chosen by age), and reports them.
    pub(crate) fn destroy_victims(&self, victims: Vec<Victim<V>>, reason: &'static str) {
        if victims.is_empty() {
            return;
        }
        let handles = victims.len();
        let bytes = victims
            .iter()
            .fold(0usize, |sum, victim| sum.saturating_add(victim.bytes));
        tracing::debug!(
            reason,
            handles,
            bytes,
            "HandleCache: destroying idle handles"
        );
        for victim in victims {
            self.destroy(victim.handle);
        }
    }
}
