//! Counters of a [`HandleCache`](super::HandleCache).

/// A snapshot of a [`HandleCache`](super::HandleCache)'s counters, taken under its lock
/// so that the fields are consistent with each other.
///
/// Cumulative counters (`hits` .. `destroy_panics`) only grow; gauges (`live` ..
/// `keys`) describe the cache at the moment of the snapshot. Between two operations
/// these always hold:
///
/// - `live == checked_out + idle`
/// - `live == created - destroyed`
/// - `keys <= idle` (a key is present only while it holds an idle handle)
///
/// A handle is counted as destroyed when the cache takes it out of its books, which is
/// just before its destructor runs (outside the lock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HandleCacheStats {
    /// Lookups that found an idle handle for their key.
    pub hits: u64,
    /// Lookups that found none (whether or not a handle was then created).
    pub misses: u64,
    /// Handles that entered the cache's books: created by a `create` closure passed to
    /// the cache, handed over with `insert`, or pushed without having been checked out.
    pub created: u64,
    /// Handles taken out of the books to be destroyed, for any reason.
    pub destroyed: u64,
    /// Idle handles destroyed to meet a budget or on request of `evict_idle`
    /// (not counting `clear`, `discard` or the cache's drop).
    pub evictions: u64,
    /// Destructors that panicked; the panic was caught and the handle is lost.
    pub destroy_panics: u64,
    /// Handles created and not yet destroyed: `checked_out + idle`.
    pub live: usize,
    /// Handles handed out by the cache and not yet returned, discarded or detached.
    pub checked_out: usize,
    /// Idle handles over all keys.
    pub idle: usize,
    /// Reported bytes of the idle handles over all keys.
    pub idle_bytes: usize,
    /// Keys holding at least one idle handle.
    pub keys: usize,
}

impl HandleCacheStats {
    /// `hits / (hits + misses)`, or `0.0` before the first lookup.
    pub fn hit_rate(&self) -> f64 {
        let lookups = self.hits + self.misses;
        if lookups == 0 {
            0.0
        } else {
            self.hits as f64 / lookups as f64
        }
    }
}

/// The counters kept inside the lock; gauges other than `checked_out` are derived from
/// the idle map when a snapshot is taken.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) created: u64,
    pub(crate) destroyed: u64,
    pub(crate) evictions: u64,
    pub(crate) checked_out: usize,
    pub(crate) idle: usize,
    pub(crate) idle_bytes: usize,
}
