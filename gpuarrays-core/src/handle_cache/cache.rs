//! [`HandleCache`]: the public face over the locked [`Inner`] state.
//!
//! Every method follows one pattern: lock, update the books and collect victims, unlock,
//! then destroy the victims. No destructor and no `create` closure runs under the lock.

use std::fmt;
use std::hash::Hash;

use crate::sync::Mutex;

use super::destroy::Destroyer;
use super::inner::{Arrival, Inner, Victim};
use super::lease::Lease;
use super::limits::Limits;
use super::stats::HandleCacheStats;

/// What [`HandleCache::evict_idle`] released.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Evicted {
    /// Idle handles destroyed.
    pub handles: usize,
    /// Their reported bytes.
    pub bytes: usize,
}

/// A thread-safe cache of idle, expensive-to-create handles keyed by `K`; see the
/// [module documentation](super) for the design.
///
/// `Send + Sync` when `K: Send` and `V: Send`. Keys are cloned, hashed and dropped
/// under the lock, so they should be plain data; handles are only ever moved there.
pub struct HandleCache<K, V> {
    inner: Mutex<Inner<K, V>>,
    destroyer: Destroyer<V>,
}

impl<K: Eq + Hash + Clone, V> HandleCache<K, V> {
    /// A cache that destroys a handle by calling `destroy(handle)`.
    ///
    /// `destroy` receives the handle by value and nothing else: `V` must carry what
    /// destroying it needs (the raw handle *and* the device/context it was created in).
    /// It runs on whichever thread triggered the eviction, never under the cache's
    /// lock, so it may call back into the cache. A panic in it is caught and counted in
    /// [`HandleCacheStats::destroy_panics`].
    pub fn new(limits: Limits, destroy: impl Fn(V) + Send + Sync + 'static) -> Self {
        HandleCache {
            inner: Mutex::new(Inner::new(limits)),
            destroyer: Destroyer::new(Some(Box::new(destroy))),
        }
    }

    /// A cache that destroys a handle by dropping it (for `V` whose `Drop` releases
    /// the underlying resource).
    pub fn with_drop(limits: Limits) -> Self {
        HandleCache {
            inner: Mutex::new(Inner::new(limits)),
            destroyer: Destroyer::new(None),
        }
    }

    /// The current budgets.
    pub fn limits(&self) -> Limits {
        self.inner.lock().limits()
    }

    /// Replaces all budgets; idle handles over the new budgets are destroyed now, least
    /// recently cached first.
    pub fn set_limits(&self, limits: Limits) {
        let mut victims = Vec::new();
        self.inner.lock().set_limits(limits, &mut victims);
        self.destroyer.destroy_victims(victims, "budget lowered");
    }

    /// Sets the per-key budget, evicting down to it.
    pub fn set_max_entries(&self, max_entries: usize) {
        self.update_limits(|limits| limits.max_entries = max_entries);
    }

    /// Sets the global idle-count budget, evicting down to it.
    pub fn set_max_idle(&self, max_idle: usize) {
        self.update_limits(|limits| limits.max_idle = max_idle);
    }

    /// Sets the idle byte budget (`usize::MAX`: none), evicting down to it.
    pub fn set_max_idle_bytes(&self, max_idle_bytes: usize) {
        self.update_limits(|limits| limits.max_idle_bytes = max_idle_bytes);
    }

    fn update_limits(&self, change: impl FnOnce(&mut Limits)) {
        let mut victims = Vec::new();
        {
            let mut inner = self.inner.lock();
            let mut limits = inner.limits();
            change(&mut limits);
            inner.set_limits(limits, &mut victims);
        }
        self.destroyer.destroy_victims(victims, "budget lowered");
    }

    /// A consistent snapshot of the counters.
    pub fn stats(&self) -> HandleCacheStats {
        self.inner.lock().snapshot(self.destroyer.panics())
    }

    /// Idle handles currently cached for `key`.
    pub fn idle_len(&self, key: &K) -> usize {
        self.inner.lock().idle_len(key)
    }

    /// Checks out the most recently cached idle handle for `key` with its reported
    /// size (a hit), or returns `None` (a miss). Give the handle back with
    /// [`push`](Self::push), or destroy it with [`discard`](Self::discard).
    pub fn pop(&self, key: &K) -> Option<(V, usize)> {
        self.inner.lock().take(key)
    }

    /// [`pop`](Self::pop), or on a miss `create()` a handle and its size, outside the
    /// lock. The handle is checked out either way; an error from `create` is returned
    /// as is and books nothing but the miss.
    pub fn pop_or_create<E>(
        &self,
        key: &K,
        create: impl FnOnce() -> Result<(V, usize), E>,
    ) -> Result<(V, usize), E> {
        if let Some(found) = self.pop(key) {
            return Ok(found);
        }
        let created = create()?;
        self.inner.lock().note_created();
        Ok(created)
    }

    /// Returns a checked-out handle to the cache as the most recently cached idle
    /// handle of `key`, with its size in bytes (`0` if it has none or it is unknown).
    /// Handles over a budget are then destroyed, least recently cached first.
    ///
    /// Meant for handles obtained from this cache; one created elsewhere should come in
    /// through [`insert`](Self::insert) (if pushed anyway it is adopted, and counts as
    /// created from now on).
    pub fn push(&self, key: K, handle: V, bytes: usize) {
        self.put(key, handle, bytes, Arrival::Returned);
    }

    /// Hands a handle created outside the cache (after [`pop`](Self::pop) missed) to
    /// the cache as idle: like [`push`](Self::push), but books it as created.
    pub fn insert(&self, key: K, handle: V, bytes: usize) {
        self.put(key, handle, bytes, Arrival::New);
    }

    fn put(&self, key: K, handle: V, bytes: usize, arrival: Arrival) {
        let mut victims = Vec::new();
        self.inner
            .lock()
            .put(key, handle, bytes, arrival, &mut victims);
        self.destroyer.destroy_victims(victims, "over budget");
    }

    /// Destroys a checked-out handle instead of returning it (say, it is broken).
    pub fn discard(&self, handle: V) {
        self.inner.lock().note_discarded();
        self.destroyer.destroy(handle);
    }

    /// Checks out an idle handle for `key` as a [`Lease`] that returns it on drop, or
    /// `None` on a miss.
    pub fn get(&self, key: K) -> Option<Lease<'_, K, V>> {
        let (handle, bytes) = self.pop(&key)?;
        Some(Lease::new(self, key, handle, bytes))
    }

    /// Checks out an idle handle for `key`, or `create()`s one (outside the lock), as a
    /// [`Lease`] that returns it to the cache when dropped.
    pub fn get_or_create<E>(
        &self,
        key: K,
        create: impl FnOnce() -> Result<(V, usize), E>,
    ) -> Result<Lease<'_, K, V>, E> {
        let (handle, bytes) = self.pop_or_create(&key, create)?;
        Ok(Lease::new(self, key, handle, bytes))
    }

    /// Releases memory on request, e.g. from an allocator that ran out of device
    /// memory: destroys idle handles, least recently cached first, until their reported
    /// bytes add up to at least `bytes_needed` or none is left. Handles reporting no
    /// size are destroyed along the way (they may still hold memory).
    /// `evict_idle(usize::MAX)` releases everything idle. Counted as evictions.
    /// Checked-out handles are never touched. The destructors run on the calling
    /// thread before this returns, so the caller can retry its allocation right away.
    pub fn evict_idle(&self, bytes_needed: usize) -> Evicted {
        let mut victims = Vec::new();
        self.inner.lock().evict_bytes(bytes_needed, &mut victims);
        let evicted = summarize(&victims);
        self.destroyer.destroy_victims(victims, "evict_idle");
        evicted
    }

    /// Destroys every idle handle (checked-out handles are untouched) and returns how
    /// many. Not counted as evictions.
    pub fn clear(&self) -> usize {
        let mut victims = Vec::new();
        self.inner.lock().drain(&mut victims);
        let cleared = victims.len();
        self.destroyer.destroy_victims(victims, "clear");
        cleared
    }
}

fn summarize<V>(victims: &[Victim<V>]) -> Evicted {
    Evicted {
        handles: victims.len(),
        bytes: victims
            .iter()
            .fold(0usize, |sum, victim| sum.saturating_add(victim.bytes)),
    }
}

impl<K, V> Drop for HandleCache<K, V> {
    /// Destroys the idle handles. Handles still checked out through the plain API
    /// belong to their holders (a [`Lease`] borrows the cache, so none is alive here).
    fn drop(&mut self) {
        let mut victims = Vec::new();
        self.inner.get_mut().drain(&mut victims);
        self.destroyer.destroy_victims(victims, "cache dropped");
    }
}

impl<K, V> fmt::Debug for HandleCache<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (limits, stats) = {
            let inner = self.inner.lock();
            (inner.limits(), inner.snapshot(self.destroyer.panics()))
        };
        f.debug_struct("HandleCache")
            .field("limits", &limits)
            .field("stats", &stats)
            .finish_non_exhaustive()
    }
}
