//! Destructors run outside the lock: they may call into the cache, and a panicking one is
//! contained.

use super::*;

/// A handle whose destructor calls back into the cache that destroys it.
struct Reentrant {
    id: u64,
    respawn: bool,
}

type Shared = HandleCache<u8, Reentrant>;

/// Runs `f` on a thread and fails (rather than hangs) if it never finishes: a
/// destructor run under the lock would deadlock on its first call into the cache.
/// This is a liveness guard with a generous limit, not a timing assertion.
fn without_deadlock(what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let worker = thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(worker.join().unwrap_err())
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: deadlocked"),
    }
}

#[test]
fn destructors_may_call_into_the_cache() {
    without_deadlock("reentrant destructor", || {
        let slot: Arc<OnceLock<Weak<Shared>>> = Arc::default();
        let log: Log = Arc::default();
        let (slot2, log2) = (Arc::clone(&slot), Arc::clone(&log));
        let cache = Arc::new(HandleCache::new(Limits::new(2, 3), move |r: Reentrant| {
            log2.lock().unwrap().push(r.id);
            let Some(cache) = slot2.get().and_then(Weak::upgrade) else {
                return;
            };
            // Read, resize and insert from inside a destructor.
            let s = cache.stats();
            assert_eq!(s.live as u64, s.created - s.destroyed);
            let _ = cache.limits();
            let _ = cache.idle_len(&0);
            let _ = cache.evict_idle(0);
            if r.respawn {
                cache.insert(
                    9,
                    Reentrant {
                        id: r.id + 1_000,
                        respawn: false,
                    },
                    0,
                );
            }
        }));
        slot.set(Arc::downgrade(&cache)).ok().unwrap();

        for id in 0..10 {
            cache.insert(id as u8 % 4, Reentrant { id, respawn: true }, 0);
        }
        {
            let lease = cache
                .get_or_create(7, || {
                    Ok::<_, ()>((
                        Reentrant {
                            id: 50,
                            respawn: true,
                        },
                        0,
                    ))
                })
                .unwrap();
            cache.set_max_idle(1);
            drop(lease); // push -> eviction -> destructor -> insert -> eviction ...
        }
        cache.set_max_entries(0);
        cache.set_limits(Limits::new(2, 8));
        for id in 100..104 {
            cache.insert(3, Reentrant { id, respawn: true }, 0);
        }
        cache.clear(); // destructors insert respawned handles during the clear
        let s = cache.stats();
        assert_eq!(s.idle, cache.idle_len(&9), "{s:?}");
        assert_eq!(s.live as u64, s.created - s.destroyed, "{s:?}");
        drop(cache); // the last Arc: drop destroys the idle handles
        let all = log.lock().unwrap().clone();
        let unique: HashSet<u64> = all.iter().copied().collect();
        assert_eq!(unique.len(), all.len(), "destroyed twice: {all:?}");
        // Every respawnable handle was destroyed and its replacement too.
        for id in (0..10).chain([50]).chain(100..104) {
            assert!(
                unique.contains(&id) && unique.contains(&(id + 1_000)),
                "{id}"
            );
        }
    });
}

#[test]
fn a_panicking_destructor_is_contained() {
    let log: Log = Arc::default();
    let sink = Arc::clone(&log);
    let cache = HandleCache::new(Limits::new(8, 2), move |h: H| {
        sink.lock().unwrap().push(h.id);
        assert!(h.id % 2 == 1, "destructor of {} fails", h.id);
    });
    for id in 0..6 {
        cache.insert(0, H { id, key: 0 }, 0);
    }
    assert_eq!(
        drain(&log),
        [0, 1, 2, 3],
        "evicted oldest first, all of them"
    );
    let s = cache.stats();
    assert_eq!((s.destroy_panics, s.evictions, s.idle), (2, 4, 2), "{s:?}");
    {
        let lease = cache.get(0).unwrap();
        assert_eq!(lease.id, 5);
        lease.discard();
    }
    drop(cache);
    assert_eq!(drain(&log), [5, 4]);
}

#[test]
fn cache_and_lease_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<HandleCache<u64, H>>();
    send_sync::<Arc<HandleCache<(u32, Vec<usize>), H>>>();
    send::<Lease<'static, u64, H>>();
}

#[test]
fn a_pushed_handle_the_cache_never_handed_out_is_adopted() {
    let (cache, log) = logging_cache::<u8>(Limits::new(4, 4));
    cache.push(1, H { id: 7, key: 1 }, 3);
    let s = cache.stats();
    assert_eq!(
        (s.created, s.checked_out, s.idle, s.live, s.idle_bytes),
        (1, 0, 1, 1, 3)
    );
    cache.discard(H { id: 8, key: 1 });
    let s = cache.stats();
    assert_eq!((s.created, s.destroyed, s.live), (2, 1, 1));
    assert_eq!(drain(&log), [8]);
}
