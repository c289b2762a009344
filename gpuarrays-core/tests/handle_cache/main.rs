//! Tests of `HandleCache` against an independent model.
//!
//! Every handle carries a unique id; destructors append ids to a log, which the tests
//! compare with what the model says must have been destroyed, and in which order.
//! Seeds are printed in every assertion message; set `HANDLE_CACHE_SEED` to replay one
//! trial of the randomized tests.
//!
//! | file | what it checks |
//! |---|---|
//! | `model.rs` | the model, and `check`, which compares the cache with it after each operation |
//! | `random_ops.rs` | random operations on both, every kind of operation reached |
//! | `churn.rs` | hot keys survive churn from one-off keys |
//! | `concurrent.rs` | concurrent use keeps the books balanced |
//! | `destructors.rs` | destructors run outside the lock (re-entrant, panicking) |
//! | `byte_budget.rs` | the byte budget evicts least recently cached, across keys |

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak, mpsc};
use std::thread;
use std::time::Duration;

use gpuarrays_core::handle_cache::{Evicted, HandleCache, HandleCacheStats, Lease, Limits};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod byte_budget;
mod churn;
mod concurrent;
mod destructors;
mod model;
mod random_ops;

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
