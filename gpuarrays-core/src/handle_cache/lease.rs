//! [`Lease`]: a checked-out handle that goes back to its cache when dropped.

use std::fmt;
use std::hash::Hash;
use std::ops::{Deref, DerefMut};

use super::cache::HandleCache;

/// A handle checked out of a [`HandleCache`] by [`HandleCache::get`] or
/// [`HandleCache::get_or_create`]. Dereferences to the handle; dropping the lease
/// [`push`](HandleCache::push)es the handle back under its key (which may destroy idle
/// handles over a budget, outside the lock, on the dropping thread).
pub struct Lease<'c, K: Eq + Hash + Clone, V> {
    cache: &'c HandleCache<K, V>,
    /// `Some` from creation until the lease is dropped or consumed.
    slot: Option<Slot<K, V>>,
}

struct Slot<K, V> {
    key: K,
    handle: V,
    bytes: usize,
}

/// The message for the one invariant of [`Lease`]: only `Drop`, `discard` and
/// `into_parts` empty the slot, and all three consume the lease.
const LEASE_HOLDS_HANDLE: &str = "a Lease holds its handle until dropped or consumed";

impl<'c, K: Eq + Hash + Clone, V> Lease<'c, K, V> {
    pub(crate) fn new(cache: &'c HandleCache<K, V>, key: K, handle: V, bytes: usize) -> Self {
        Lease {
            cache,
            slot: Some(Slot { key, handle, bytes }),
        }
    }

    fn slot(&self) -> &Slot<K, V> {
        self.slot.as_ref().expect(LEASE_HOLDS_HANDLE)
    }

    fn slot_mut(&mut self) -> &mut Slot<K, V> {
        self.slot.as_mut().expect(LEASE_HOLDS_HANDLE)
    }

    /// The key the handle will be returned under.
    pub fn key(&self) -> &K {
        &self.slot().key
    }

    /// The size in bytes the handle will be returned with.
    pub fn bytes(&self) -> usize {
        self.slot().bytes
    }

    /// Changes the size the handle will be returned with (e.g. its workspace grew).
    pub fn set_bytes(&mut self, bytes: usize) {
        self.slot_mut().bytes = bytes;
    }

    /// Destroys the handle now instead of returning it (say, it is broken).
    pub fn discard(mut self) {
        if let Some(slot) = self.slot.take() {
            self.cache.discard(slot.handle);
        }
    }

    /// Ends the lease without returning the handle: `(key, handle, bytes)`. The handle
    /// stays checked out in the cache's books; give it back with
    /// [`HandleCache::push`] or destroy it with [`HandleCache::discard`].
    pub fn into_parts(mut self) -> (K, V, usize) {
        let slot = self.slot.take().expect(LEASE_HOLDS_HANDLE);
        (slot.key, slot.handle, slot.bytes)
    }
}

impl<K: Eq + Hash + Clone, V> Deref for Lease<'_, K, V> {
    type Target = V;

    fn deref(&self) -> &V {
        &self.slot().handle
    }
}

impl<K: Eq + Hash + Clone, V> DerefMut for Lease<'_, K, V> {
    fn deref_mut(&mut self) -> &mut V {
        &mut self.slot_mut().handle
    }
}

impl<K: Eq + Hash + Clone, V> Drop for Lease<'_, K, V> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.cache.push(slot.key, slot.handle, slot.bytes);
        }
    }
}

impl<K: Eq + Hash + Clone + fmt::Debug, V: fmt::Debug> fmt::Debug for Lease<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Lease");
        if let Some(slot) = &self.slot {
            out.field("key", &slot.key)
                .field("handle", &slot.handle)
                .field("bytes", &slot.bytes);
        }
        out.finish()
    }
}
