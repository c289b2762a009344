//! The model: idle handles in one list, oldest first; budgets applied literally. `check`
//! compares the cache with it after every operation.

use super::*;

pub(crate) const KEYS: u8 = 5;

#[derive(Clone, Copy, Debug)]
pub(crate) struct IdleM {
    pub(crate) key: u8,
    pub(crate) id: u64,
    pub(crate) bytes: usize,
}

#[derive(Default)]
pub(crate) struct Model {
    pub(crate) limits: Limits,
    pub(crate) idle: Vec<IdleM>,
    pub(crate) out: HashMap<u64, u8>,
    pub(crate) destroyed: HashSet<u64>,
    pub(crate) next_id: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) created: u64,
    pub(crate) destroyed_n: u64,
    pub(crate) evictions: u64,
}

impl Model {
    pub(crate) fn new(limits: Limits) -> Self {
        Model {
            limits,
            ..Model::default()
        }
    }

    pub(crate) fn idle_bytes(&self) -> usize {
        self.idle.iter().map(|e| e.bytes).sum()
    }

    pub(crate) fn count(&self, key: u8) -> usize {
        self.idle.iter().filter(|e| e.key == key).count()
    }

    /// Most recently cached idle handle of `key`.
    pub(crate) fn take(&mut self, key: u8) -> Option<IdleM> {
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

    pub(crate) fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    pub(crate) fn create(&mut self, key: u8) -> u64 {
        let id = self.fresh_id();
        self.created += 1;
        self.out.insert(id, key);
        id
    }

    pub(crate) fn doom(&mut self, pos: usize, evicted: bool) -> u64 {
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

    pub(crate) fn put(&mut self, key: u8, id: u64, bytes: usize, returned: bool) -> Vec<u64> {
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

    pub(crate) fn enforce_global(&mut self, victims: &mut Vec<u64>) {
        while self.idle.len() > self.limits.max_idle
            || self.idle_bytes() > self.limits.max_idle_bytes
        {
            victims.push(self.doom(0, true));
        }
    }

    /// Victims of the per-key phase (any order), then of the global phase (in order).
    pub(crate) fn set_limits(&mut self, limits: Limits) -> (Vec<u64>, Vec<u64>) {
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

    pub(crate) fn evict_bytes(&mut self, needed: usize) -> (Vec<u64>, usize) {
        let mut freed = 0;
        let mut victims = Vec::new();
        while freed < needed && !self.idle.is_empty() {
            freed += self.idle[0].bytes;
            victims.push(self.doom(0, true));
        }
        (victims, freed)
    }

    pub(crate) fn clear(&mut self) -> Vec<u64> {
        (0..self.idle.len()).map(|_| self.doom(0, false)).collect()
    }

    pub(crate) fn discard(&mut self, id: u64) {
        assert!(
            self.out.remove(&id).is_some(),
            "test discarded {id} not out"
        );
        self.destroyed_n += 1;
        assert!(self.destroyed.insert(id));
    }

    pub(crate) fn stats(&self) -> HandleCacheStats {
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
pub(crate) enum Expect {
    /// Exactly these ids, in this order.
    Seq(Vec<u64>),
    /// Exactly these ids, in any order.
    Set(Vec<u64>),
    /// First a set, then a sequence.
    SetThenSeq(Vec<u64>, Vec<u64>),
}

pub(crate) fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// Checks the cache against the model after one operation.
pub(crate) fn check(
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

pub(crate) fn random_limits(rng: &mut StdRng) -> Limits {
    let bytes = if rng.random_bool(0.5) {
        usize::MAX
    } else {
        rng.random_range(0..=60)
    };
    Limits::new(rng.random_range(0..=5), rng.random_range(0..=12)).with_max_idle_bytes(bytes)
}
