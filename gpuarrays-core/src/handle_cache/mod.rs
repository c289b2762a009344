//! A cache of expensive library handles: FFT plans, BLAS handles, compiled pipelines.
//!
//! Creating such a handle costs milliseconds (a cuFFT plan for an awkward length: tens
//! of ms) and often device memory (a cuFFT/rocFFT plan holds ~11 MB of work area), so a
//! backend keeps handles it has finished with and hands them out again for the same key
//! (device, shape, element type, batch, layout, ...).
//!
//! # Usage
//!
//! ```
//! use gpuarrays_core::handle_cache::{HandleCache, Limits};
//!
//! // `V` owns everything its destructor needs (here: nothing but a name).
//! let cache: HandleCache<u32, String> =
//!     HandleCache::new(Limits::new(4, 64).with_max_idle_bytes(1 << 30), drop);
//! {
//!     let plan = cache.get_or_create(1024, || Ok::<_, ()>((String::from("plan"), 11 << 20)))?;
//!     assert_eq!(plan.as_str(), "plan");
//! } // the lease returns the plan to the cache here
//! assert_eq!(cache.stats().idle, 1);
//! // Plain API: pop / push.
//! let (plan, bytes) = cache.pop(&1024).expect("cached above");
//! cache.push(1024, plan, bytes);
//! // Out of device memory: release at least 100 MB of idle handles, then retry.
//! let freed = cache.evict_idle(100 << 20);
//! assert_eq!(freed.handles, 1);
//! # Ok::<(), ()>(())
//! ```
//!
//! # Why it is built this way
//!
//! **Budgets across keys, not only per key.** A cache that bounds only the idle handles
//! *per key* is unbounded in the number of keys. A program that plans FFTs for thousands
//! of distinct sizes keeps one idle plan per size forever, which looks exactly like a
//! device-memory leak (free device memory falling plan after plan).
//! So there are three budgets on idle handles ([`Limits`]): per key (`max_entries`), over
//! all keys (`max_idle`) and in bytes over all keys (`max_idle_bytes`; counts are a weak
//! proxy when plan sizes range from a few MB to hundreds). Checked-out handles are never
//! counted: they are in use and cannot be reclaimed.
//!
//! **Evict the least recently cached handle across all keys.** Which handle a global
//! budget evicts matters as much as the budget: draining keys in hash-map order keeps
//! hitting the same keys, and a handful of hot keys mixed with one-off keys can then miss
//! on every lookup. Every push gets a stamp from one counter; each key's idle handles
//! sit in a `VecDeque` in stamp order (pushed at the back, popped from the back, evicted
//! from the front), so the oldest idle handle of the whole cache is the front of some
//! queue, found by an O(number of keys) scan. The number of keys is at most the number
//! of idle handles, which the budgets bound. A hot key is pushed again after every use
//! and so always has a young stamp; one-off keys age out first.
//!
//! **One map.** Idle handles live in exactly one `HashMap<K, VecDeque<entry>>`, the
//! entry carrying handle, size and stamp together, so there are no parallel structures
//! to drift apart; a key is present iff it has at least one idle handle.
//!
//! **Destructors get everything by value and run outside the lock.** The cache is given
//! one destroy function, `Fn(V)`, which receives the handle by value; `V` must own what
//! destroying it needs (the raw handle *and* the device/context it was created in). A
//! destructor that instead looks the handle up lazily at destruction time (reads a field
//! of a shared plan object, asks for "the current context") destroys the wrong thing
//! once destruction is deferred to an eviction on some other thread, which is exactly
//! what a global budget does. Destroying may synchronise a device and may call back into
//! the cache (a destructor reading stats, an allocator trimming), so every operation
//! collects its victims under the lock and destroys them after releasing it, on the
//! calling thread, in eviction order. A panicking destructor is caught
//! (`catch_unwind`), counted in [`HandleCacheStats::destroy_panics`] and reported
//! with `tracing::warn!`; it never unwinds through the cache or a lease's drop. `create`
//! closures also run outside the lock.
//!
//! **Memory pressure.** [`HandleCache::evict_idle`] lets an allocator that ran out of
//! memory release idle handles (oldest first) until enough bytes are freed, then retry.
//!
//! # Sizes
//!
//! The caller reports each handle's size in bytes when handing it to the cache: `create`
//! closures return `(handle, bytes)`, [`HandleCache::push`]/[`HandleCache::insert`] take
//! `bytes`, and [`HandleCache::pop`] hands the size back with the handle. Use `0` for
//! handles without a meaningful size; the byte budget then never evicts them.
//!
//! # Counters
//!
//! [`HandleCache::stats`] returns a [`HandleCacheStats`] snapshot: hits, misses,
//! created, destroyed, evictions, live (= checked out + idle = created - destroyed),
//! checked out, idle, idle bytes, keys. Evictions are logged with `tracing::debug!`.

mod cache;
mod destroy;
mod inner;
mod lease;
mod limits;
mod stats;

pub use cache::{Evicted, HandleCache};
pub use lease::Lease;
pub use limits::Limits;
pub use stats::HandleCacheStats;
