//! Tests of `HandleCache` against an independent model.
//!
//! Every handle carries a unique id; destructors append ids to a log, which the tests
//! compare with what the model says must have been destroyed, and in which order.
//! Seeds are printed in every assertion message; set `HANDLE_CACHE_SEED` to replay one
//! trial of the randomized tests.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak, mpsc};
use std::thread;
use std::time::Duration;

use gpuarrays_core::handle_cache::{Evicted, HandleCache, HandleCacheStats, Lease, Limits};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A test handle: its id, and the key it was created for.
#[derive(Debug)]
struct H {
    id: u64,
    key: u8,
}

type Log = Arc<Mutex<Vec<u64>>>;

fn logging_cache<K: Eq + std::hash::Hash + Clone>(limits: Limits) -> (HandleCache<K, H>, Log) {
    let log: Log = Arc::default();
    let sink = Arc::clone(&log);
    let cache = HandleCache::new(limits, move |h: H| sink.lock().unwrap().push(h.id));
    (cache, log)
}

fn drain(log: &Log) -> Vec<u64> {
    std::mem::take(&mut *log.lock().unwrap())
}

fn base_seed() -> Option<u64> {
    std::env::var("HANDLE_CACHE_SEED").ok().map(|s| {
        let s = s.trim_start_matches("0x");
        u64::from_str_radix(s, 16).expect("HANDLE_CACHE_SEED is hex")
    })
}

// ---------------------------------------------------------------------------------
// The model: idle handles in one list, oldest first; budgets applied literally.
// ---------------------------------------------------------------------------------

const KEYS: u8 = 5;

#[derive(Clone, Copy, Debug)]
struct IdleM {
    key: u8,
    id: u64,
    bytes: usize,
}

#[derive(Default)]
struct Model {
    limits: Limits,
    idle: Vec<IdleM>,
    out: HashMap<u64, u8>,
    destroyed: HashSet<u64>,
    next_id: u64,
    hits: u64,
    misses: u64,
    created: u64,
    destroyed_n: u64,
    evictions: u64,
}

impl Model {
    fn new(limits: Limits) -> Self {
        Model {
            limits,
            ..Model::default()
        }
    }

    fn idle_bytes(&self) -> usize {
        self.idle.iter().map(|e| e.bytes).sum()
    }

    fn count(&self, key: u8) -> usize {
        self.idle.iter().filter(|e| e.key == key).count()
    }

    /// Most recently cached idle handle of `key`.
    fn take(&mut self, key: u8) -> Option<IdleM> {
        match self.idle.iter().rposition(|e| e.key == key) {
            Some(pos) => {
                self.hits += 1;
                let e = self.idle.remove(pos);
                self.out.insert(e.id, key);
                Some(e)
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    fn create(&mut self, key: u8) -> u64 {
        let id = self.fresh_id();
        self.created += 1;
        self.out.insert(id, key);
        id
    }

    fn doom(&mut self, pos: usize, evicted: bool) -> u64 {
        let e = self.idle.remove(pos);
        self.destroyed_n += 1;
        self.evictions += u64::from(evicted);
        assert!(
            self.destroyed.insert(e.id),
            "model destroyed {} twice",
            e.id
        );
        e.id
    }

    fn put(&mut self, key: u8, id: u64, bytes: usize, returned: bool) -> Vec<u64> {
        if returned {
            assert!(self.out.remove(&id).is_some(), "test pushed {id} not out");
        } else {
            self.created += 1;
        }
        if bytes > self.limits.max_idle_bytes {
            // Can never fit: destroyed on arrival, nothing else is evicted for it.
            self.destroyed_n += 1;
            self.evictions += 1;
            assert!(self.destroyed.insert(id));
            return vec![id];
        }
        self.idle.push(IdleM { key, id, bytes });
        let mut victims = Vec::new();
        while self.count(key) > self.limits.max_entries {
            let pos = self.idle.iter().position(|e| e.key == key).unwrap();
            victims.push(self.doom(pos, true));
        }
        self.enforce_global(&mut victims);
        victims
    }

    fn enforce_global(&mut self, victims: &mut Vec<u64>) {
        while self.idle.len() > self.limits.max_idle
            || self.idle_bytes() > self.limits.max_idle_bytes
        {
            victims.push(self.doom(0, true));
        }
    }

    /// Victims of the per-key phase (any order), then of the global phase (in order).
    fn set_limits(&mut self, limits: Limits) -> (Vec<u64>, Vec<u64>) {
        self.limits = limits;
        let mut per_key = Vec::new();
        for key in 0..KEYS {
            while self.count(key) > limits.max_entries {
                let pos = self.idle.iter().position(|e| e.key == key).unwrap();
                per_key.push(self.doom(pos, true));
            }
        }
        let mut global = Vec::new();
        self.enforce_global(&mut global);
        (per_key, global)
    }

    fn evict_bytes(&mut self, needed: usize) -> (Vec<u64>, usize) {
        let mut freed = 0;
        let mut victims = Vec::new();
        while freed < needed && !self.idle.is_empty() {
            freed += self.idle[0].bytes;
            victims.push(self.doom(0, true));
        }
        (victims, freed)
    }

    fn clear(&mut self) -> Vec<u64> {
        (0..self.idle.len()).map(|_| self.doom(0, false)).collect()
    }

    fn discard(&mut self, id: u64) {
        assert!(
            self.out.remove(&id).is_some(),
            "test discarded {id} not out"
        );
        self.destroyed_n += 1;
        assert!(self.destroyed.insert(id));
    }

    fn stats(&self) -> HandleCacheStats {
        let keys: HashSet<u8> = self.idle.iter().map(|e| e.key).collect();
        HandleCacheStats {
            hits: self.hits,
            misses: self.misses,
            created: self.created,
            destroyed: self.destroyed_n,
            evictions: self.evictions,
            destroy_panics: 0,
            live: self.out.len() + self.idle.len(),
            checked_out: self.out.len(),
            idle: self.idle.len(),
            idle_bytes: self.idle_bytes(),
            keys: keys.len(),
        }
    }
}

/// What the destroy log must show after one operation.
enum Expect {
    /// Exactly these ids, in this order.
    Seq(Vec<u64>),
    /// Exactly these ids, in any order.
    Set(Vec<u64>),
    /// First a set, then a sequence.
    SetThenSeq(Vec<u64>, Vec<u64>),
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// Checks the cache against the model after one operation.
fn check(
    cache: &HandleCache<u8, H>,
    model: &Model,
    log: &Log,
    seen: &mut HashSet<u64>,
    expect: Expect,
    ctx: &str,
) {
    let got = drain(log);
    for id in &got {
        assert!(seen.insert(*id), "{ctx}: handle {id} destroyed twice");
        assert!(
            !model.out.contains_key(id),
            "{ctx}: handle {id} destroyed while checked out"
        );
    }
    match expect {
        Expect::Seq(want) => assert_eq!(got, want, "{ctx}: destroyed (in order)"),
        Expect::Set(want) => assert_eq!(sorted(got), sorted(want), "{ctx}: destroyed"),
        Expect::SetThenSeq(set, seq) => {
            let (head, tail) = got.split_at(set.len().min(got.len()));
            assert_eq!(sorted(head.to_vec()), sorted(set), "{ctx}: per-key victims");
            assert_eq!(tail, seq.as_slice(), "{ctx}: global victims (in order)");
        }
    }
    let stats = cache.stats();
    assert_eq!(stats, model.stats(), "{ctx}: stats");
    let limits = cache.limits();
    assert_eq!(limits, model.limits, "{ctx}: limits");
    assert!(stats.idle <= limits.max_idle, "{ctx}: max_idle exceeded");
    assert!(
        stats.idle_bytes <= limits.max_idle_bytes,
        "{ctx}: bytes exceeded"
    );
    assert_eq!(
        stats.live as u64,
        stats.created - stats.destroyed,
        "{ctx}: live"
    );
    let mut nonempty = 0;
    for key in 0..KEYS {
        let n = cache.idle_len(&key);
        assert!(n <= limits.max_entries, "{ctx}: key {key} over max_entries");
        assert_eq!(n, model.count(key), "{ctx}: idle_len({key})");
        nonempty += usize::from(n > 0);
    }
    assert_eq!(
        stats.keys, nonempty,
        "{ctx}: empty per-key entries left behind"
    );
}

fn random_limits(rng: &mut StdRng) -> Limits {
    let bytes = if rng.random_bool(0.5) {
        usize::MAX
    } else {
        rng.random_range(0..=60)
    };
    Limits::new(rng.random_range(0..=5), rng.random_range(0..=12)).with_max_idle_bytes(bytes)
}

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

// ---------------------------------------------------------------------------------
// Hot keys survive churn from one-off keys.
// ---------------------------------------------------------------------------------

#[test]
fn hot_keys_survive_churn_of_one_off_keys() {
    const PLAN: usize = 11 << 20; // ~ one cuFFT plan
    const HOT: u64 = 4;
    const COLD_PER_ROUND: u64 = 8;
    const ROUNDS: u64 = 500;
    // A count budget, then a byte budget as the binding constraint.
    let budgets = [
        Limits::new(4, 64),
        Limits::new(4, usize::MAX).with_max_idle_bytes(20 * PLAN),
        Limits::new(1, 16).with_max_idle_bytes(14 * PLAN),
    ];
    for limits in budgets {
        let (cache, log) = logging_cache::<u64>(limits);
        let mut next_id = 0;
        let mut hot_creates = 0;
        let mut use_key = |key: u64, creates: &mut u64| {
            let lease = cache
                .get_or_create(key, || {
                    *creates += 1;
                    next_id += 1;
                    Ok::<_, ()>((
                        H {
                            id: next_id,
                            key: 0,
                        },
                        PLAN,
                    ))
                })
                .unwrap();
            drop(lease);
            let s = cache.stats();
            assert!(s.idle <= limits.max_idle, "{limits:?}: {s:?}");
            assert!(s.idle_bytes <= limits.max_idle_bytes, "{limits:?}: {s:?}");
            assert_eq!(s.checked_out, 0);
        };
        let mut cold_creates = 0;
        for round in 0..ROUNDS {
            for hot in 0..HOT {
                use_key(hot, &mut hot_creates);
            }
            for cold in 0..COLD_PER_ROUND {
                use_key(1_000 + round * COLD_PER_ROUND + cold, &mut cold_creates);
            }
        }
        // Every hot key was created once and hit on every later use.
        assert_eq!(hot_creates, HOT, "{limits:?}: hot plans rebuilt");
        assert_eq!(cold_creates, ROUNDS * COLD_PER_ROUND, "{limits:?}");
        let s = cache.stats();
        assert_eq!(s.hits, HOT * (ROUNDS - 1), "{limits:?}");
        assert!(s.hit_rate() > 0.33, "{limits:?}: {s:?}");
        assert!(
            s.evictions > 3_000,
            "{limits:?}: churn must have evicted: {s:?}"
        );
        assert_eq!(s.live as u64, s.created - s.destroyed);
        for hot in 0..HOT {
            assert_eq!(cache.idle_len(&hot), 1, "{limits:?}: hot key {hot} evicted");
        }
        let destroyed = drain(&log);
        assert_eq!(destroyed.len() as u64, s.destroyed, "{limits:?}");
        assert_eq!(
            destroyed.iter().collect::<HashSet<_>>().len(),
            destroyed.len()
        );
    }
}

// ---------------------------------------------------------------------------------
// Concurrent use.
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// Destructors run outside the lock.
// ---------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------
// Byte budget.
// ---------------------------------------------------------------------------------

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
