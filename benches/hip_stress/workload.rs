//! The stress workload and its host model (see `main.rs` for the model's argument).
//!
//! Threads `0..ARRAYS` are writers: writer `w` owns array `w` and, each round, overwrites it
//! (a fill, or every eighth round a host upload assigned device-to-device) and reads it back.
//! The other threads are readers: each round a view of one array, a derived array computed
//! from it (`2x + 1`, a kernel that reads the shared buffer), its maximum and its contents,
//! checked against the model; the view and derived arrays are then freed by a dropper
//! thread. Every sixteenth round a reader shares a small array with a new thread, which
//! uses it and releases it for every holder: the reader's handle must then see the release.

use super::hip_target::Target;
use gpuarrays::Array;
use gpuarrays::hip::HipBackend;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Barrier, Mutex};

/// Arrays shared by every thread, one writer each.
const ARRAYS: usize = 4;
/// Rounds stay below this so `2 * value + 1` is exact in f32.
const MAX_ROUNDS: usize = 200_000;
/// Mismatches kept for the report.
const KEPT: usize = 100;

/// The size of a run.
pub struct Params {
    pub threads: usize,
    pub rounds: usize,
    pub len: usize,
}

impl Params {
    pub fn check(&self) -> Result<(), String> {
        if self.threads < ARRAYS + 2 {
            return Err(format!(
                "--threads {}: at least {} ({ARRAYS} writers and two readers)",
                self.threads,
                ARRAYS + 2
            ));
        }
        if self.rounds == 0 || self.rounds >= MAX_ROUNDS {
            return Err(format!(
                "--rounds {}: between 1 and {}",
                self.rounds,
                MAX_ROUNDS - 1
            ));
        }
        if self.len < 8 || self.len % 4 != 0 {
            return Err(format!("--len {}: a multiple of 4, at least 8", self.len));
        }
        Ok(())
    }
}

/// What a run did.
#[derive(Default)]
pub struct Report {
    pub operations: usize,
    pub checked_reads: usize,
    pub writes: usize,
    pub cross_thread_frees: usize,
    pub released_for_all: usize,
    pub mismatches: Vec<String>,
}

/// The value array `i` holds after its writer's round `k` (round 0: the initial upload).
fn value(i: usize, k: usize) -> f32 {
    (i * MAX_ROUNDS + k) as f32
}

#[derive(Default)]
struct Counters {
    operations: AtomicUsize,
    checked_reads: AtomicUsize,
    writes: AtomicUsize,
    cross_thread_frees: AtomicUsize,
    released_for_all: AtomicUsize,
    mismatches: Mutex<Vec<String>>,
    mismatch_count: AtomicUsize,
}

impl Counters {
    fn ops(&self, n: usize) {
        self.operations.fetch_add(n, SeqCst);
    }
    fn mismatch(&self, what: String) {
        self.mismatch_count.fetch_add(1, SeqCst);
        let mut m = self.mismatches.lock().unwrap_or_else(|p| p.into_inner());
        if m.len() < KEPT {
            m.push(what);
        }
    }
}

/// The model's clocks of one array: the last round whose write was enqueued, and the last
/// round whose write was begun.
#[derive(Default)]
struct Clock {
    committed: AtomicUsize,
    started: AtomicUsize,
}

type Garbage = Box<dyn Send>;

pub fn run(target: &Target, p: &Params) -> Result<Report, String> {
    let b = &target.backend;
    let arrays: Vec<Array<f32, HipBackend>> = (0..ARRAYS)
        .map(|i| Array::from_vec(b, vec![value(i, 0); p.len]))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("upload: {e}"))?;
    let clocks: Vec<Clock> = (0..ARRAYS).map(|_| Clock::default()).collect();
    let counters = Counters::default();
    let barrier = Barrier::new(p.threads);
    let (drop_tx, drop_rx) = sync_channel::<Garbage>(1024);
    let computes = target.computes();
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        let counters = &counters;
        s.spawn(move || {
            for g in drop_rx {
                drop(g);
                counters.cross_thread_frees.fetch_add(1, SeqCst);
            }
        });
        for t in 0..p.threads {
            let mine: Vec<Array<f32, HipBackend>> = arrays.iter().map(|a| a.share()).collect();
            let (clocks, barrier, errors) = (&clocks, &barrier, &errors);
            let drop_tx = drop_tx.clone();
            s.spawn(move || {
                barrier.wait();
                let w = Worker {
                    t,
                    p,
                    clocks,
                    counters,
                    drop_tx,
                    computes,
                };
                let r = if t < ARRAYS {
                    w.write_loop(mine)
                } else {
                    w.read_loop(mine)
                };
                if let Err(e) = r {
                    errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                }
            });
        }
        drop(drop_tx);
    });
    let errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if !errors.is_empty() {
        return Err(format!("operations failed: {}", errors.join("; ")));
    }
    let mut mismatches = counters
        .mismatches
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    let total = counters.mismatch_count.load(SeqCst);
    if total > mismatches.len() {
        mismatches.push(format!("... {} in all", total));
    }
    Ok(Report {
        operations: counters.operations.load(SeqCst),
        checked_reads: counters.checked_reads.load(SeqCst),
        writes: counters.writes.load(SeqCst),
        cross_thread_frees: counters.cross_thread_frees.load(SeqCst),
        released_for_all: counters.released_for_all.load(SeqCst),
        mismatches,
    })
}

struct Worker<'a> {
    t: usize,
    p: &'a Params,
    clocks: &'a [Clock],
    counters: &'a Counters,
    drop_tx: SyncSender<Garbage>,
    computes: bool,
}

impl Worker<'_> {
    fn write_loop(&self, mut mine: Vec<Array<f32, HipBackend>>) -> Result<(), String> {
        let (w, len) = (self.t, self.p.len);
        let b = mine[w].backend().clone();
        for r in 1..=self.p.rounds {
            let v = value(w, r);
            self.clocks[w].started.store(r, SeqCst);
            if r % 8 == 0 {
                let upload = Array::from_vec(&b, vec![v; len]).map_err(|e| e.to_string())?;
                mine[w].assign(&upload).map_err(|e| e.to_string())?;
                self.counters.ops(2);
                self.send(Box::new(upload));
            } else {
                mine[w].fill(v).map_err(|e| e.to_string())?;
                self.counters.ops(1);
            }
            self.clocks[w].committed.store(r, SeqCst);
            self.counters.writes.fetch_add(1, SeqCst);
            if r % 4 == 0 {
                let got = mine[w].to_vec().map_err(|e| e.to_string())?;
                self.counters.ops(1);
                if self.computes {
                    self.counters.checked_reads.fetch_add(1, SeqCst);
                    if let Some(bad) = got.iter().position(|&x| x != v) {
                        self.counters.mismatch(format!(
                            "writer {w} round {r}: read back {} at {bad}, wrote {v}",
                            got[bad]
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn read_loop(&self, mine: Vec<Array<f32, HipBackend>>) -> Result<(), String> {
        let len = self.p.len;
        for r in 0..self.p.rounds {
            let i = (self.t + r) % ARRAYS;
            let lo = self.clocks[i].committed.load(SeqCst);
            let view = mine[i]
                .slice(len / 4..3 * len / 4)
                .map_err(|e| e.to_string())?;
            let derived: Array<f32, HipBackend> =
                (view.ex() * 2.0 + 1.0).eval().map_err(|e| e.to_string())?;
            let max = derived.max().map_err(|e| e.to_string())?;
            let got = derived.to_vec().map_err(|e| e.to_string())?;
            let hi = self.clocks[i].started.load(SeqCst);
            self.counters.ops(3);
            if self.computes {
                self.counters.checked_reads.fetch_add(1, SeqCst);
                self.check_read(i, r, lo, hi, &got, max);
            }
            let reshaped = derived.reshape(&[2, -1]).map_err(|e| e.to_string())?;
            self.send(Box::new((view, derived, reshaped)));
            if r % 16 == 0 {
                self.release_for_all(mine[i].backend(), r)?;
            }
        }
        Ok(())
    }

    /// `got` (the derived array, `2x + 1` of a view of array `i`) must be one whole
    /// `2 value(i, k) + 1` with `lo <= k <= hi`, and `max` its maximum.
    fn check_read(&self, i: usize, r: usize, lo: usize, hi: usize, got: &[f32], max: f32) {
        let first = got[0];
        if let Some(bad) = got.iter().position(|&x| x != first) {
            self.counters.mismatch(format!(
                "reader {} round {r}: array {i} torn: {first} at 0, {} at {bad}",
                self.t, got[bad]
            ));
            return;
        }
        let k = ((first - 1.0) / 2.0) as usize;
        let whole = first >= 1.0 && 2.0 * value(i, 0) + 1.0 <= first && first.fract() == 0.0;
        let seen = k.checked_sub(i * MAX_ROUNDS);
        match seen {
            Some(k) if whole && (lo..=hi).contains(&k) && 2.0 * value(i, k) + 1.0 == first => {}
            _ => self.counters.mismatch(format!(
                "reader {} round {r}: array {i} gave {first}, expected 2*value(round {lo}..={hi})+1",
                self.t
            )),
        }
        if max != first {
            self.counters.mismatch(format!(
                "reader {} round {r}: max {max} of a uniform array of {first}",
                self.t
            ));
        }
    }

    /// A small array shared with a new thread, which uses it and releases it for every
    /// holder: this thread's handle must see the release afterwards.
    fn release_for_all(&self, b: &HipBackend, r: usize) -> Result<(), String> {
        let v = (self.t * 1000 + r % 1000) as f32;
        let ours = Array::from_vec(b, vec![v; 256]).map_err(|e| e.to_string())?;
        let theirs = ours.share();
        let computes = self.computes;
        let inner = std::thread::spawn(move || -> Result<Option<f32>, String> {
            let y: Array<f32, HipBackend> =
                (theirs.ex() + 1.0).eval().map_err(|e| e.to_string())?;
            theirs.free_all_shared().map_err(|e| e.to_string())?;
            let got = y.to_vec().map_err(|e| e.to_string())?;
            Ok(computes.then(|| got[255]))
        })
        .join()
        .map_err(|_| "a releasing thread panicked".to_string())??;
        self.counters.ops(3);
        if let Some(got) = inner {
            if got != v + 1.0 {
                self.counters.mismatch(format!(
                    "reader {} round {r}: a shared array read {got} before its release, expected {}",
                    self.t,
                    v + 1.0
                ));
            }
        }
        if ours.to_vec().is_ok() {
            self.counters.mismatch(format!(
                "reader {} round {r}: an array released for every holder was still readable",
                self.t
            ));
        }
        self.counters.released_for_all.fetch_add(1, SeqCst);
        Ok(())
    }

    fn send(&self, g: Garbage) {
        // The dropper outlives every worker (it ends when the last sender is gone); if it
        // were gone, dropping here is still a free, only not a cross-thread one.
        let _ = self.drop_tx.send(g);
    }
}
