//! Random operations on the cache and the model side by side (`HANDLE_CACHE_SEED` replays a
//! trial).

use super::model::*;
use super::*;

/// One trial of random operations; panics with `seed` in the message on a mismatch.
/// Returns how often each kind of operation ran, and the final counters.
fn random_trial(seed: u64, ops: usize) -> ([u64; 15], HandleCacheStats) {
    let mut rng = StdRng::seed_from_u64(seed);
    let limits = random_limits(&mut rng);
    let (cache, log) = logging_cache::<u8>(limits);
    let mut model = Model::new(limits);
    let mut seen = HashSet::new();
    let mut next_id = 0u64; // the test's own allocator, checked against the model's
    let mut leases: Vec<Lease<'_, u8, H>> = Vec::new();
    let mut plain: Vec<(u8, H, usize)> = Vec::new();
    let mut ran = [0u64; 15];

    for i in 0..ops {
        let key = rng.random_range(0..KEYS);
        let size = rng.random_range(0..=16);
        let op = rng.random_range(0..15);
        let ctx = format!("seed {seed:#x}, op #{i} (kind {op}, key {key})");
        let mut expect = Expect::Seq(Vec::new());
        match op {
            // Plain pop.
            0 => {
                let got = cache.pop(&key);
                let want = model.take(key);
                assert_eq!(
                    got.as_ref().map(|(h, b)| (h.id, *b)),
                    want.map(|e| (e.id, e.bytes)),
                    "{ctx}"
                );
                if let Some((h, bytes)) = got {
                    assert_eq!(h.key, key, "{ctx}: handle of another key");
                    plain.push((key, h, bytes));
                }
            }
            // pop_or_create, plain.
            1 => {
                let (h, bytes) = cache
                    .pop_or_create(&key, || {
                        next_id += 1;
                        Ok::<_, ()>((
                            H {
                                id: next_id - 1,
                                key,
                            },
                            size,
                        ))
                    })
                    .unwrap();
                match model.take(key) {
                    Some(e) => assert_eq!((h.id, bytes), (e.id, e.bytes), "{ctx}: hit"),
                    None => assert_eq!((h.id, bytes), (model.create(key), size), "{ctx}: miss"),
                }
                plain.push((key, h, bytes));
            }
            // get_or_create / get: leases.
            2 | 3 => {
                let lease = if op == 2 {
                    Some(
                        cache
                            .get_or_create(key, || {
                                next_id += 1;
                                Ok::<_, ()>((
                                    H {
                                        id: next_id - 1,
                                        key,
                                    },
                                    size,
                                ))
                            })
                            .unwrap(),
                    )
                } else {
                    cache.get(key)
                };
                match (lease, model.take(key)) {
                    (Some(l), Some(e)) => {
                        assert_eq!((l.id, l.bytes(), l.key), (e.id, e.bytes, key), "{ctx}: hit");
                        leases.push(l);
                    }
                    (Some(l), None) if op == 2 => {
                        assert_eq!((l.id, l.bytes()), (model.create(key), size), "{ctx}: miss");
                        leases.push(l);
                    }
                    (None, None) if op == 3 => {}
                    (l, e) => panic!("{ctx}: lease {l:?} vs model {e:?}"),
                }
            }
            // A create that fails books a miss and nothing else.
            4 => {
                let r = cache.get_or_create(key, || Err::<(H, usize), _>("no device"));
                match model.take(key) {
                    Some(e) => {
                        let l = r.expect("a hit never calls create");
                        assert_eq!(l.id, e.id, "{ctx}");
                        leases.push(l);
                    }
                    None => assert_eq!(r.err(), Some("no device"), "{ctx}"),
                }
            }
            // Return a plain handle (maybe with a new size).
            5 | 6 if !plain.is_empty() => {
                let (key, h, bytes) = plain.swap_remove(rng.random_range(0..plain.len()));
                let bytes = if op == 6 { size } else { bytes };
                let id = h.id;
                cache.push(key, h, bytes);
                expect = Expect::Seq(model.put(key, id, bytes, true));
            }
            // Drop a lease (maybe resized).
            7 | 8 if !leases.is_empty() => {
                let mut l = leases.swap_remove(rng.random_range(0..leases.len()));
                if op == 8 {
                    l.set_bytes(size);
                }
                let (key, id, bytes) = (*l.key(), l.id, l.bytes());
                drop(l);
                expect = Expect::Seq(model.put(key, id, bytes, true));
            }
            // Hand over a handle created outside the cache.
            9 => {
                let id = next_id;
                next_id += 1;
                assert_eq!(id, model.fresh_id(), "{ctx}");
                cache.insert(key, H { id, key }, size);
                expect = Expect::Seq(model.put(key, id, size, false));
            }
            // Discard a checked-out handle, plain or leased.
            10 if !plain.is_empty() || !leases.is_empty() => {
                let id = if leases.is_empty() || (!plain.is_empty() && rng.random_bool(0.5)) {
                    let (_, h, _) = plain.swap_remove(rng.random_range(0..plain.len()));
                    let id = h.id;
                    cache.discard(h);
                    id
                } else {
                    let l = leases.swap_remove(rng.random_range(0..leases.len()));
                    let id = l.id;
                    l.discard();
                    id
                };
                model.discard(id);
                expect = Expect::Seq(vec![id]);
            }
            // Change a budget at run time.
            11 => {
                let new = random_limits(&mut rng);
                let mut want = model.limits;
                match rng.random_range(0..4) {
                    0 => {
                        cache.set_max_entries(new.max_entries);
                        want.max_entries = new.max_entries;
                    }
                    1 => {
                        cache.set_max_idle(new.max_idle);
                        want.max_idle = new.max_idle;
                    }
                    2 => {
                        cache.set_max_idle_bytes(new.max_idle_bytes);
                        want.max_idle_bytes = new.max_idle_bytes;
                    }
                    _ => {
                        cache.set_limits(new);
                        want = new;
                    }
                }
                let (per_key, global) = model.set_limits(want);
                expect = Expect::SetThenSeq(per_key, global);
            }
            // Memory pressure.
            12 => {
                let needed = if rng.random_bool(0.1) {
                    usize::MAX
                } else {
                    rng.random_range(0..=40)
                };
                let evicted = cache.evict_idle(needed);
                let (ids, bytes) = model.evict_bytes(needed);
                let want = Evicted {
                    handles: ids.len(),
                    bytes,
                };
                assert_eq!(evicted, want, "{ctx}: evict_idle({needed})");
                expect = Expect::Seq(ids);
            }
            // Take a lease apart: the handle stays checked out.
            13 if !leases.is_empty() => {
                let l = leases.swap_remove(rng.random_range(0..leases.len()));
                let (key, h, bytes) = l.into_parts();
                plain.push((key, h, bytes));
            }
            14 if rng.random_bool(0.2) => {
                let n = cache.clear();
                let want = model.clear();
                assert_eq!(n, want.len(), "{ctx}: clear count");
                expect = Expect::Set(want);
            }
            _ => continue,
        }
        ran[op] += 1;
        check(&cache, &model, &log, &mut seen, expect, &ctx);
    }

    // Return everything, then clear: every handle ever created is destroyed exactly once.
    let ctx = format!("seed {seed:#x}, wind-down");
    for l in leases.drain(..) {
        let (key, id, bytes) = (*l.key(), l.id, l.bytes());
        drop(l);
        let want = model.put(key, id, bytes, true);
        check(&cache, &model, &log, &mut seen, Expect::Seq(want), &ctx);
    }
    for (key, h, bytes) in plain.drain(..) {
        let id = h.id;
        cache.push(key, h, bytes);
        let want = model.put(key, id, bytes, true);
        check(&cache, &model, &log, &mut seen, Expect::Seq(want), &ctx);
    }
    cache.clear();
    let want = model.clear();
    check(&cache, &model, &log, &mut seen, Expect::Set(want), &ctx);
    assert_eq!(
        seen,
        (0..next_id).collect(),
        "{ctx}: every handle destroyed once"
    );
    let stats = cache.stats();
    assert_eq!((stats.live, stats.idle, stats.keys), (0, 0, 0), "{ctx}");
    assert_eq!(stats.created, stats.destroyed, "{ctx}");
    (ran, stats)
}

#[test]
fn randomized_operations_match_the_model() {
    if let Some(seed) = base_seed() {
        random_trial(seed, 400);
        return;
    }
    let mut ran = [0u64; 15];
    let mut total = HandleCacheStats::default();
    for trial in 0..300u64 {
        let (r, s) = random_trial(0x5EED_0002_0000 + trial, 400);
        ran.iter_mut().zip(r).for_each(|(a, b)| *a += b);
        total.hits += s.hits;
        total.misses += s.misses;
        total.evictions += s.evictions;
    }
    // The trials must have exercised every operation and every outcome.
    for (op, n) in ran.iter().enumerate() {
        assert!(*n >= 100, "operation kind {op} ran only {n} times");
    }
    assert!(total.hits >= 1_000 && total.misses >= 1_000, "{total:?}");
    assert!(total.evictions >= 1_000, "{total:?}");
    eprintln!("ops per kind: {ran:?}; totals: {total:?}");
}
