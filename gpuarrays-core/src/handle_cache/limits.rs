//! The three budgets a [`HandleCache`](super::HandleCache) enforces on its idle handles.

/// Budgets on the *idle* handles of a [`HandleCache`](super::HandleCache).
///
/// Checked-out handles are never counted against a budget: they are in use and the cache
/// could not reclaim them anyway. `usize::MAX` means "unlimited" for every field.
///
/// | field | bounds | eviction when exceeded |
/// |---|---|---|
/// | `max_entries` | idle handles of one key | that key's least recently cached |
/// | `max_idle` | idle handles over all keys | least recently cached over all keys |
/// | `max_idle_bytes` | reported bytes of idle handles over all keys | least recently cached over all keys |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Most idle handles kept for one key. `0` disables caching: every returned handle
    /// is destroyed.
    pub max_entries: usize,
    /// Most idle handles kept over all keys together. This is the budget that keeps a
    /// workload with thousands of distinct keys (FFT sizes) from keeping one handle per
    /// key forever.
    pub max_idle: usize,
    /// Most bytes (as reported by the caller when a handle is pushed) kept idle over all
    /// keys together. A handle larger than this budget is destroyed when it is returned.
    pub max_idle_bytes: usize,
}

impl Limits {
    /// No budget at all: every returned handle is kept. Useful for tests and for caches
    /// whose keys have few values (one handle per device), never for plan caches.
    pub const UNLIMITED: Limits = Limits {
        max_entries: usize::MAX,
        max_idle: usize::MAX,
        max_idle_bytes: usize::MAX,
    };

    /// Per-key and global count budgets, no byte budget.
    pub const fn new(max_entries: usize, max_idle: usize) -> Self {
        Limits {
            max_entries,
            max_idle,
            max_idle_bytes: usize::MAX,
        }
    }

    /// The same budgets with a byte budget on idle handles.
    pub const fn with_max_idle_bytes(self, max_idle_bytes: usize) -> Self {
        Limits {
            max_idle_bytes,
            ..self
        }
    }
}

impl Default for Limits {
    /// 32 idle handles per key, 64 over all keys, no byte budget.
    fn default() -> Self {
        Limits::new(32, 64)
    }
}
