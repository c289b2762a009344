//! The byte budget.

use super::*;

#[test]
fn byte_budget_evicts_least_recently_cached_across_keys() {
    let (cache, log) = logging_cache::<u8>(Limits::new(8, 100).with_max_idle_bytes(100));
    cache.insert(1, H { id: 0, key: 1 }, 40);
    cache.insert(2, H { id: 1, key: 2 }, 40);
    cache.insert(1, H { id: 2, key: 1 }, 40); // 120 > 100: the oldest (key 1) goes
    assert_eq!(drain(&log), [0]);
    assert_eq!((cache.idle_len(&1), cache.idle_len(&2)), (1, 1));
    // Using key 2 makes key 1's handle the oldest.
    let l = cache.get(2).unwrap();
    drop(l);
    cache.insert(3, H { id: 3, key: 3 }, 30);
    assert_eq!(drain(&log), [2]);
    // A handle larger than the whole budget is destroyed on arrival.
    cache.insert(4, H { id: 4, key: 4 }, 101);
    assert_eq!(drain(&log), [4]);
    assert_eq!(cache.idle_len(&4), 0);
    let s = cache.stats();
    assert_eq!(
        (s.idle, s.idle_bytes, s.keys, s.evictions),
        (2, 70, 2, 3),
        "{s:?}"
    );
    // Shrinking the budget evicts down to it, oldest first.
    cache.set_max_idle_bytes(35);
    assert_eq!(drain(&log), [1]);
    assert_eq!(cache.stats().idle_bytes, 30);
    // An out-of-memory handler asks for bytes back.
    cache.insert(5, H { id: 5, key: 5 }, 5);
    assert_eq!(
        cache.evict_idle(1),
        Evicted {
            handles: 1,
            bytes: 30
        }
    );
    assert_eq!(
        cache.evict_idle(usize::MAX),
        Evicted {
            handles: 1,
            bytes: 5
        }
    );
    assert_eq!(drain(&log), [3, 5]);
    assert_eq!(cache.stats().keys, 0);
}

#[test]
fn byte_budget_holds_under_random_sizes() {
    let seed = base_seed().unwrap_or(0x5EED_0002_B17E);
    let mut rng = StdRng::seed_from_u64(seed);
    let budget = 1_000;
    let (cache, log) = logging_cache::<u16>(Limits::new(4, usize::MAX).with_max_idle_bytes(budget));
    let mut sizes = HashMap::new(); // idle id -> size, from the destroy log and pops
    let mut next_id = 0;
    let mut out = Vec::new();
    for i in 0..20_000 {
        let key = rng.random_range(0..64u16);
        if rng.random_bool(0.6) {
            let size = rng.random_range(0..=300);
            let (h, b) = cache
                .pop_or_create(&key, || {
                    next_id += 1;
                    Ok::<_, ()>((
                        H {
                            id: next_id,
                            key: 0,
                        },
                        size,
                    ))
                })
                .unwrap();
            sizes.remove(&h.id);
            out.push((key, h, b));
        } else if let Some((key, h, b)) =
            (!out.is_empty()).then(|| out.swap_remove(rng.random_range(0..out.len())))
        {
            sizes.insert(h.id, b);
            cache.push(key, h, b);
        }
        if i % 997 == 0 {
            cache.set_max_idle_bytes(rng.random_range(budget / 2..=budget));
        }
        for id in drain(&log) {
            assert!(sizes.remove(&id).is_some(), "seed {seed:#x}: {id} not idle");
        }
        let s = cache.stats();
        let max = cache.limits().max_idle_bytes;
        assert!(
            s.idle_bytes <= max,
            "seed {seed:#x}, op {i}: {s:?} over {max}"
        );
        assert_eq!(
            s.idle_bytes,
            sizes.values().sum::<usize>(),
            "seed {seed:#x}, op {i}"
        );
        assert_eq!(s.idle, sizes.len(), "seed {seed:#x}, op {i}");
    }
}
