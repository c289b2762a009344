//! Concurrent use keeps the books balanced.

use super::*;

#[test]
fn concurrent_use_keeps_the_books_balanced() {
    const THREADS: u64 = 16;
    const OPS: usize = 3_000;
    let seed = base_seed().unwrap_or(0x5EED_0002_C0C0);
    let limits = Limits::new(3, 12).with_max_idle_bytes(200);
    let (cache, log) = logging_cache::<u8>(limits);
    let ids = AtomicU64::new(0);
    let lookups = AtomicU64::new(0);

    thread::scope(|s| {
        for t in 0..THREADS {
            let (cache, ids, lookups) = (&cache, &ids, &lookups);
            s.spawn(move || {
                let mut rng = StdRng::seed_from_u64(seed ^ t);
                let mut held: Vec<Lease<'_, u8, H>> = Vec::new();
                let mut plain: Vec<(u8, H, usize)> = Vec::new();
                for _ in 0..OPS {
                    let key = rng.random_range(0..6u8);
                    let size = rng.random_range(0..=40);
                    match rng.random_range(0..100) {
                        0..45 => {
                            lookups.fetch_add(1, Ordering::Relaxed);
                            let l = cache
                                .get_or_create(key, || {
                                    let id = ids.fetch_add(1, Ordering::Relaxed);
                                    Ok::<_, ()>((H { id, key }, size))
                                })
                                .unwrap();
                            assert_eq!(l.key, key, "seed {seed:#x}: handle of another key");
                            held.push(l);
                        }
                        45..60 => {
                            lookups.fetch_add(1, Ordering::Relaxed);
                            if let Some((h, b)) = cache.pop(&key) {
                                assert_eq!(h.key, key, "seed {seed:#x}: handle of another key");
                                plain.push((key, h, b));
                            }
                        }
                        60..88 => drop(held.pop()),
                        88..95 => {
                            if let Some((k, h, b)) = plain.pop() {
                                cache.push(k, h, b);
                            }
                        }
                        95 => {
                            if let Some(l) = held.pop() {
                                l.discard();
                            }
                        }
                        96 => drop(cache.evict_idle(rng.random_range(0..100))),
                        97 => cache.set_max_idle(rng.random_range(0..16)),
                        98 => cache.set_max_entries(rng.random_range(0..4)),
                        _ => drop(cache.clear()),
                    }
                    if held.len() > 3 {
                        held.remove(0);
                    }
                }
                drop(held);
                for (k, h, b) in plain {
                    cache.push(k, h, b);
                }
            });
        }
    });

    let s = cache.stats();
    let created = ids.load(Ordering::Relaxed);
    assert_eq!(s.checked_out, 0, "seed {seed:#x}: {s:?}");
    assert_eq!(s.live, s.idle, "seed {seed:#x}: {s:?}");
    assert_eq!(s.created, created, "seed {seed:#x}: {s:?}");
    assert_eq!(
        s.created - s.destroyed,
        s.live as u64,
        "seed {seed:#x}: {s:?}"
    );
    assert_eq!(
        s.hits + s.misses,
        lookups.load(Ordering::Relaxed),
        "seed {seed:#x}"
    );
    let limits = cache.limits();
    assert!(s.idle <= limits.max_idle && s.idle_bytes <= limits.max_idle_bytes);
    let destroyed = drain(&log);
    assert_eq!(destroyed.len() as u64, s.destroyed, "seed {seed:#x}");
    assert_eq!(cache.clear(), s.idle);
    let mut all = destroyed;
    all.extend(drain(&log));
    let unique: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(
        unique.len(),
        all.len(),
        "seed {seed:#x}: a handle destroyed twice"
    );
    assert_eq!(
        unique,
        (0..created).collect(),
        "seed {seed:#x}: a handle lost"
    );
}
