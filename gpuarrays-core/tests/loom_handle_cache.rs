//! loom models of `HandleCache`: every interleaving of take (get / get_or_create), push (a
//! lease's drop), discard, evict_idle and budget changes on up to three threads.
//!
//! Run (see docs/safety.md):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test --release -p gpuarrays-core --target-dir target/loom \
//!     --test loom_data_ref --test loom_handle_cache
//! ```
//!
//! Properties checked in every interleaving:
//! - **leases are exclusive**: a handle is never held by two leases (or checked out twice)
//!   at once; each holder marks its handle in use while it holds it;
//! - **every destructor runs exactly once**: a handle is destroyed at most once while the
//!   cache lives, and after the cache is dropped every handle ever created has been
//!   destroyed exactly once;
//! - **budgets hold between operations**: after any operation returns, a snapshot of the
//!   counters shows `idle <= max_idle`, `idle_bytes <= max_idle_bytes` and no key with more
//!   than `max_entries` idle handles, and the books balance (`live == checked_out + idle`,
//!   `live == created - destroyed`);
//! - **destructors run outside the lock**: every destructor calls back into the cache
//!   (`stats()`); if it ran under the cache's lock, loom reports a deadlock.
//!
//! The cache's own lock and counter are loom's in this build (`crate::sync`); the test's
//! bookkeeping uses std types that loom does not schedule, touched only between loom
//! operations.
#![cfg(loom)]

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use gpuarrays_core::handle_cache::{HandleCache, Limits};
use loom::thread;

/// Explores `f` exhaustively up to `preemptions` preemptions per execution (loom's bound;
/// 2-3 finds most bugs in practice). `LOOM_MAX_PREEMPTIONS` overrides it, e.g. to go
/// deeper in a longer run.
fn model(preemptions: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = preemptions;
    }
    builder.check(f);
}

/// Two worker threads and the main thread: every interleaving (no bound) finishes in
/// seconds.
const UNBOUNDED: Option<usize> = None;

/// A handle: a unique id and the size it reports.
#[derive(Debug)]
struct H {
    id: usize,
    bytes: usize,
}

/// What the test knows about the handles of one execution.
#[derive(Default)]
struct Books {
    next_id: AtomicUsize,
    /// Handles held by a lease (or checked out) right now.
    in_use: Mutex<HashSet<usize>>,
    /// Every handle destroyed, in order.
    destroyed: Mutex<Vec<usize>>,
}

impl Books {
    fn create(&self, bytes: usize) -> H {
        H {
            id: self.next_id.fetch_add(1, Ordering::SeqCst),
            bytes,
        }
    }

    /// Marks `id` held; fails the model if someone else holds it.
    fn hold(&self, id: usize) {
        let fresh = self.in_use.lock().unwrap().insert(id);
        assert!(fresh, "handle {id} was leased to two holders at once");
    }

    fn unhold(&self, id: usize) {
        let held = self.in_use.lock().unwrap().remove(&id);
        assert!(
            held,
            "handle {id} was released by a holder that did not hold it"
        );
    }

    fn on_destroy(&self, h: &H) {
        assert!(
            !self.in_use.lock().unwrap().contains(&h.id),
            "handle {} was destroyed while leased",
            h.id
        );
        let mut destroyed = self.destroyed.lock().unwrap();
        assert!(
            !destroyed.contains(&h.id),
            "handle {} was destroyed twice",
            h.id
        );
        destroyed.push(h.id);
    }
}

type Cache = HandleCache<u8, H>;

/// A cache whose destructor records the handle and calls back into the cache.
fn cache(limits: Limits, books: &Arc<Books>) -> Arc<Cache> {
    let books = Arc::clone(books);
    Arc::new_cyclic(|me: &Weak<Cache>| {
        let me = me.clone();
        HandleCache::new(limits, move |h: H| {
            books.on_destroy(&h);
            // Under the cache's lock this would wait for itself: loom reports a deadlock.
            // (While the cache itself is being dropped there is nothing to call back.)
            if let Some(cache) = me.upgrade() {
                let _ = cache.stats();
            }
        })
    })
}

/// Checks every budget and the books' balance in one snapshot.
fn check_budgets(cache: &Cache, keys: &[u8]) {
    let limits = cache.limits();
    let s = cache.stats();
    assert!(
        s.idle <= limits.max_idle,
        "idle {} > max_idle: {s:?}",
        s.idle
    );
    assert!(
        s.idle_bytes <= limits.max_idle_bytes,
        "idle bytes {} > max_idle_bytes: {s:?}",
        s.idle_bytes
    );
    assert_eq!(s.live, s.checked_out + s.idle, "{s:?}");
    assert_eq!(s.live as u64, s.created - s.destroyed, "{s:?}");
    for &k in keys {
        let n = cache.idle_len(&k);
        assert!(n <= limits.max_entries, "key {k}: {n} idle > max_entries");
    }
}

/// Leases a handle for `key` (creating one of `bytes` on a miss), holds it, returns it.
fn use_once(cache: &Cache, books: &Books, key: u8, bytes: usize) {
    let lease = cache
        .get_or_create(key, || Ok::<_, ()>((books.create(bytes), bytes)))
        .unwrap_or_else(|()| unreachable!("create never fails here"));
    books.hold(lease.id);
    assert_eq!(lease.bytes, lease.bytes());
    books.unhold(lease.id);
    drop(lease);
}

/// After the model's threads: drop the cache; every handle ever created was destroyed
/// exactly once.
fn finish(cache: Arc<Cache>, books: &Books) {
    let created = books.next_id.load(Ordering::SeqCst);
    let stats = cache.stats();
    assert_eq!(stats.created as usize, created, "{stats:?}");
    assert_eq!(stats.checked_out, 0, "{stats:?}");
    drop(cache);
    let mut destroyed = books.destroyed.lock().unwrap().clone();
    destroyed.sort_unstable();
    assert_eq!(destroyed, (0..created).collect::<Vec<_>>());
}

#[test]
fn two_threads_leasing_one_key_never_share_a_handle() {
    model(UNBOUNDED, || {
        let books = Arc::new(Books::default());
        let cache = cache(Limits::new(1, 1), &books);
        // One idle handle to race for.
        cache.insert(0, books.create(4), 4);
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (cache, books) = (Arc::clone(&cache), Arc::clone(&books));
                thread::spawn(move || {
                    use_once(&cache, &books, 0, 4);
                    check_budgets(&cache, &[0]);
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        check_budgets(&cache, &[0]);
        let s = cache.stats();
        assert_eq!(s.hits + s.misses, 2, "{s:?}");
        assert!(
            s.hits >= 1,
            "the idle handle was there for the first taker: {s:?}"
        );
        finish(cache, &books);
    });
}

#[test]
fn returns_over_the_count_budget_evict_exactly_once_outside_the_lock() {
    model(UNBOUNDED, || {
        let books = Arc::new(Books::default());
        // One idle handle over all keys: two keys returned at once must evict one.
        let cache = cache(Limits::new(1, 1), &books);
        let t1 = {
            let (cache, books) = (Arc::clone(&cache), Arc::clone(&books));
            thread::spawn(move || {
                use_once(&cache, &books, 0, 4);
                check_budgets(&cache, &[0, 1]);
            })
        };
        let t2 = {
            let (cache, books) = (Arc::clone(&cache), Arc::clone(&books));
            thread::spawn(move || {
                use_once(&cache, &books, 1, 4);
                check_budgets(&cache, &[0, 1]);
            })
        };
        t1.join().unwrap();
        t2.join().unwrap();
        check_budgets(&cache, &[0, 1]);
        finish(cache, &books);
    });
}

#[test]
fn evict_idle_racing_a_return_and_a_take() {
    model(UNBOUNDED, || {
        let books = Arc::new(Books::default());
        let cache = cache(Limits::new(2, 2).with_max_idle_bytes(8), &books);
        cache.insert(0, books.create(4), 4);
        let taker = {
            let (cache, books) = (Arc::clone(&cache), Arc::clone(&books));
            thread::spawn(move || {
                use_once(&cache, &books, 0, 4);
                check_budgets(&cache, &[0]);
            })
        };
        let evictor = {
            let cache = Arc::clone(&cache);
            thread::spawn(move || {
                let evicted = cache.evict_idle(4);
                assert!(evicted.handles <= 1, "{evicted:?}");
                check_budgets(&cache, &[0]);
            })
        };
        taker.join().unwrap();
        evictor.join().unwrap();
        check_budgets(&cache, &[0]);
        finish(cache, &books);
    });
}

/// Three threads doing several operations each: exhaustive up to 4 preemptions (about
/// 36,000 executions, ~10 s on a 2-core machine; 5 preemptions: ~215,000, ~50 s).
#[test]
fn lowering_a_budget_while_a_lease_returns_and_another_is_discarded() {
    model(Some(4), || {
        let books = Arc::new(Books::default());
        let cache = cache(Limits::new(2, 2).with_max_idle_bytes(16), &books);
        cache.insert(0, books.create(8), 8);
        let returner = {
            let (cache, books) = (Arc::clone(&cache), Arc::clone(&books));
            thread::spawn(move || {
                use_once(&cache, &books, 1, 8);
                check_budgets(&cache, &[0, 1]);
            })
        };
        let lowerer = {
            let cache = Arc::clone(&cache);
            thread::spawn(move || {
                cache.set_max_idle_bytes(8);
                check_budgets(&cache, &[0, 1]);
            })
        };
        // The main thread takes the idle handle, if still there, and discards it.
        if let Some(lease) = cache.get(0) {
            books.hold(lease.id);
            books.unhold(lease.id);
            lease.discard();
        }
        check_budgets(&cache, &[0, 1]);
        returner.join().unwrap();
        lowerer.join().unwrap();
        check_budgets(&cache, &[0, 1]);
        finish(cache, &books);
    });
}
