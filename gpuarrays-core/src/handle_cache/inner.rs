//! The state behind the cache's lock, and every rule about it.
//!
//! Nothing here locks, allocates handles or runs a destructor: operations that remove
//! idle handles append them to a `victims` list that the caller destroys after
//! releasing the lock.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use super::limits::Limits;
use super::stats::{Counters, HandleCacheStats};

/// One idle handle. `stamp` orders pushes over all keys; each key's queue is in
/// ascending stamp order (pushed at the back, evicted from the front), so the least
/// recently cached idle handle of the whole cache is the front of some queue.
struct Entry<V> {
    handle: V,
    bytes: usize,
    stamp: u64,
}

/// A handle the cache has taken out of its books, to be destroyed outside the lock.
pub(crate) struct Victim<V> {
    pub(crate) handle: V,
    pub(crate) bytes: usize,
}

/// How a handle arrives in `put`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Arrival {
    /// Returned after a checkout from this cache.
    Returned,
    /// Created outside the cache and handed over.
    New,
}

pub(crate) struct Inner<K, V> {
    /// Exactly one map from key to idle handles; a key is present iff its queue is
    /// non-empty.
    idle: HashMap<K, VecDeque<Entry<V>>>,
    next_stamp: u64,
    limits: Limits,
    counters: Counters,
}

/// Takes `entry` out of the books as a victim.
fn doom<V>(counters: &mut Counters, entry: Entry<V>, evicted: bool, victims: &mut Vec<Victim<V>>) {
    counters.idle -= 1;
    counters.idle_bytes = counters.idle_bytes.saturating_sub(entry.bytes);
    counters.destroyed += 1;
    if evicted {
        counters.evictions += 1;
    }
    victims.push(Victim {
        handle: entry.handle,
        bytes: entry.bytes,
    });
}

impl<K, V> Inner<K, V> {
    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    pub(crate) fn snapshot(&self, destroy_panics: u64) -> HandleCacheStats {
        let c = &self.counters;
        HandleCacheStats {
            hits: c.hits,
            misses: c.misses,
            created: c.created,
            destroyed: c.destroyed,
            evictions: c.evictions,
            destroy_panics,
            live: c.checked_out + c.idle,
            checked_out: c.checked_out,
            idle: c.idle,
            idle_bytes: c.idle_bytes,
            keys: self.idle.len(),
        }
    }

    /// Takes every idle handle out of the books (not counted as evictions).
    pub(crate) fn drain(&mut self, victims: &mut Vec<Victim<V>>) {
        for (_, queue) in self.idle.drain() {
            for entry in queue {
                doom(&mut self.counters, entry, false, victims);
            }
        }
    }

    /// Books a brand-new handle as checked out.
    pub(crate) fn note_created(&mut self) {
        self.counters.created += 1;
        self.counters.checked_out += 1;
    }

    /// Takes a checked-out handle out of the books, to be destroyed by the caller.
    pub(crate) fn note_discarded(&mut self) {
        self.check_in(Arrival::Returned);
        self.counters.destroyed += 1;
    }

    /// Ends a checkout. A handle "returned" that the books do not show as checked out
    /// is adopted as new, so that `live == checked_out + idle` keeps holding.
    fn check_in(&mut self, arrival: Arrival) {
        if arrival == Arrival::Returned && self.counters.checked_out > 0 {
            self.counters.checked_out -= 1;
        } else {
            self.counters.created += 1;
        }
    }

    fn over_global_budget(&self) -> bool {
        self.counters.idle > self.limits.max_idle
            || self.counters.idle_bytes > self.limits.max_idle_bytes
    }
}

impl<K: Eq + Hash + Clone, V> Inner<K, V> {
    pub(crate) fn new(limits: Limits) -> Self {
        Inner {
            idle: HashMap::new(),
            next_stamp: 0,
            limits,
            counters: Counters::default(),
        }
    }

    pub(crate) fn idle_len(&self, key: &K) -> usize {
        self.idle.get(key).map_or(0, VecDeque::len)
    }

    /// Checks out the most recently cached idle handle of `key`, if any.
    pub(crate) fn take(&mut self, key: &K) -> Option<(V, usize)> {
        let taken = self
            .idle
            .get_mut(key)
            .and_then(|queue| queue.pop_back().map(|entry| (entry, queue.is_empty())));
        match taken {
            Some((entry, now_empty)) => {
                if now_empty {
                    self.idle.remove(key);
                }
                let c = &mut self.counters;
                c.hits += 1;
                c.checked_out += 1;
                c.idle -= 1;
                c.idle_bytes = c.idle_bytes.saturating_sub(entry.bytes);
                Some((entry.handle, entry.bytes))
            }
            None => {
                self.counters.misses += 1;
                None
            }
        }
    }

    /// Makes `handle` idle under `key`, then enforces every budget.
    pub(crate) fn put(
        &mut self,
        key: K,
        handle: V,
        bytes: usize,
        arrival: Arrival,
        victims: &mut Vec<Victim<V>>,
    ) {
        self.check_in(arrival);
        let entry = Entry {
            handle,
            bytes,
            stamp: self.next_stamp,
        };
        self.next_stamp += 1;
        self.counters.idle += 1;
        self.counters.idle_bytes = self.counters.idle_bytes.saturating_add(bytes);
        let limits = self.limits;
        if limits.max_entries == 0 || limits.max_idle == 0 || bytes > limits.max_idle_bytes {
            // It can never be kept: destroy it without evicting anything else for it,
            // and never materialise a queue that would be left empty.
            doom(&mut self.counters, entry, true, victims);
            return;
        }
        let queue = self.idle.entry(key).or_default();
        queue.push_back(entry);
        while queue.len() > self.limits.max_entries {
            let Some(oldest) = queue.pop_front() else {
                break;
            };
            doom(&mut self.counters, oldest, true, victims);
        }
        self.enforce_global(victims);
    }

    pub(crate) fn set_limits(&mut self, limits: Limits, victims: &mut Vec<Victim<V>>) {
        self.limits = limits;
        let max_entries = limits.max_entries;
        let counters = &mut self.counters;
        self.idle.retain(|_, queue| {
            while queue.len() > max_entries {
                let Some(oldest) = queue.pop_front() else {
                    break;
                };
                doom(counters, oldest, true, victims);
            }
            !queue.is_empty()
        });
        self.enforce_global(victims);
    }

    /// Evicts least recently cached idle handles until their reported bytes add up to
    /// at least `bytes_needed` or none is left.
    pub(crate) fn evict_bytes(&mut self, bytes_needed: usize, victims: &mut Vec<Victim<V>>) {
        let mut freed = 0usize;
        while freed < bytes_needed {
            match self.evict_oldest(victims) {
                Some(bytes) => freed = freed.saturating_add(bytes),
                None => break,
            }
        }
    }

    fn enforce_global(&mut self, victims: &mut Vec<Victim<V>>) {
        while self.over_global_budget() {
            if self.evict_oldest(victims).is_none() {
                break;
            }
        }
    }

    /// Evicts the least recently cached idle handle over all keys: the smallest stamp
    /// among the queues' fronts, an O(number of keys) scan. Returns its bytes.
    fn evict_oldest(&mut self, victims: &mut Vec<Victim<V>>) -> Option<usize> {
        let key = self
            .idle
            .iter()
            .filter_map(|(key, queue)| queue.front().map(|entry| (entry.stamp, key)))
            .min_by_key(|&(stamp, _)| stamp)
            .map(|(_, key)| key.clone())?;
        let queue = self.idle.get_mut(&key)?;
        let oldest = queue.pop_front()?;
        if queue.is_empty() {
            self.idle.remove(&key);
        }
        let bytes = oldest.bytes;
        doom(&mut self.counters, oldest, true, victims);
        Some(bytes)
    }
}
