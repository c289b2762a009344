//! `DataRef` releases its buffer exactly once, whoever races to release it.
//!
//! Two concurrent `free_all_shared` calls each took half of
//! (buffer, destructor), so neither ran the destructor and the device buffer leaked.
//! These tests start the racing releasers behind a `Barrier` so that they really meet,
//! repeat the race many times, and count destructor runs; every run must be exactly one.
//! (The exhaustive version of the same property is the loom model in
//! `tests/loom_data_ref.rs`; these run the real code on real threads.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use gpuarrays_core::{DataRef, Error};

/// Rounds of each race. The window of the old bug was a few instructions wide; 10⁴
/// rounds found it 4 to 12 times per test on a loaded 2-core machine. Under Miri (which
/// checks each access, about 10⁴ times slower) a few rounds show the same code paths.
const ROUNDS: usize = if cfg!(miri) { 20 } else { 10_000 };

/// How long a thread spins at the start line for the other one.
const SPINS: usize = if cfg!(miri) { 10 } else { 10_000 };

/// A buffer whose destructor counts its runs, and checks it received the live buffer.
fn counted(runs: &Arc<AtomicUsize>) -> DataRef<Vec<u32>> {
    let runs = Arc::clone(runs);
    DataRef::new(vec![7; 4], move |buffer: Vec<u32>| {
        assert_eq!(buffer, vec![7; 4], "the destructor got a different buffer");
        runs.fetch_add(1, Ordering::SeqCst);
    })
}

/// Two threads leave a `Barrier` microseconds apart; the old bug's window was a few
/// nanoseconds. So after the barrier each thread also announces itself and spins (boundedly:
/// on a loaded machine the other thread may not be running) until both have arrived.
struct StartLine {
    barrier: Barrier,
    arrived: AtomicUsize,
}

impl StartLine {
    fn new() -> Self {
        StartLine {
            barrier: Barrier::new(2),
            arrived: AtomicUsize::new(0),
        }
    }

    /// Waits for the other thread of `round`.
    fn wait(&self, round: usize) {
        self.barrier.wait();
        let target = 2 * (round + 1);
        self.arrived.fetch_add(1, Ordering::SeqCst);
        for _ in 0..SPINS {
            if self.arrived.load(Ordering::SeqCst) >= target {
                break;
            }
            std::hint::spin_loop();
        }
    }
}

/// Runs `left` and `right` on two threads that start together, `rounds` times, each time on
/// a fresh buffer, and returns the rounds whose destructor did not run exactly once.
fn race(
    rounds: usize,
    left: impl Fn(DataRef<Vec<u32>>) + Send + Sync,
    right: impl Fn(DataRef<Vec<u32>>) + Send + Sync,
) -> Vec<(usize, usize)> {
    let start = StartLine::new();
    let mut wrong = Vec::new();
    for round in 0..rounds {
        let runs = Arc::new(AtomicUsize::new(0));
        let a = counted(&runs);
        let b = a.clone();
        thread::scope(|s| {
            s.spawn(|| {
                start.wait(round);
                left(a);
            });
            s.spawn(|| {
                start.wait(round);
                right(b);
            });
        });
        let n = runs.load(Ordering::SeqCst);
        if n != 1 {
            wrong.push((round, n));
        }
    }
    wrong
}

#[test]
fn two_concurrent_free_all_shared_run_the_destructor_exactly_once() {
    let wrong = race(
        ROUNDS,
        |a| a.free_all_shared().unwrap(),
        |b| b.free_all_shared().unwrap(),
    );
    assert!(
        wrong.is_empty(),
        "{} of {ROUNDS} rounds ran the destructor a wrong number of times (round, runs): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[test]
fn free_all_shared_racing_the_last_drop_runs_the_destructor_exactly_once() {
    // One holder frees for everyone while the other drops its reference; whichever
    // thread finishes last drops the shared state.
    let wrong = race(ROUNDS, |a| a.free_all_shared().unwrap(), drop);
    assert!(
        wrong.is_empty(),
        "{} of {ROUNDS} rounds ran the destructor a wrong number of times (round, runs): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[test]
fn free_all_shared_then_drop_racing_a_free_all_shared_runs_it_exactly_once() {
    // Both release for everyone, one of them also drops its handle right away.
    let wrong = race(
        ROUNDS,
        |a| {
            a.free_all_shared().unwrap();
            drop(a);
        },
        |b| {
            b.free_all_shared().unwrap();
            b.free_all_shared().unwrap();
        },
    );
    assert!(
        wrong.is_empty(),
        "{} of {ROUNDS} rounds ran the destructor a wrong number of times (round, runs): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[test]
fn readers_racing_free_all_shared_see_the_buffer_or_freed_and_nothing_else() {
    // A reader either borrows the whole, live buffer (the release waits for it) or gets
    // `Error::Freed`; the destructor never runs while a borrow is alive.
    let wrong = race(
        ROUNDS / 4,
        |a| a.free_all_shared().unwrap(),
        |b| {
            for _ in 0..4 {
                match b.read() {
                    Ok(guard) => assert_eq!(*guard, vec![7; 4]),
                    Err(Error::Freed) => {}
                    Err(other) => panic!("expected the buffer or Error::Freed, got {other:?}"),
                }
            }
        },
    );
    assert!(wrong.is_empty(), "wrong destructor runs: {wrong:?}");
}

#[test]
fn after_free_all_shared_every_holder_gets_freed() {
    let runs = Arc::new(AtomicUsize::new(0));
    let holders: Vec<_> = {
        let first = counted(&runs);
        let mut all = vec![first.clone()];
        all.extend((0..6).map(|_| first.clone()));
        all.push(first);
        all
    };
    assert_eq!(holders[0].ref_count(), holders.len());
    // Every holder on its own thread; one of them releases for all, behind a barrier.
    let freed_by = 3;
    let barrier = Barrier::new(holders.len());
    thread::scope(|s| {
        for (i, holder) in holders.iter().enumerate() {
            let barrier = &barrier;
            s.spawn(move || {
                if i == freed_by {
                    holder.free_all_shared().unwrap();
                }
                barrier.wait();
                assert!(matches!(holder.read(), Err(Error::Freed)), "holder {i}");
                assert!(!holder.is_alive(), "holder {i}");
                // Releasing again from any holder does nothing.
                holder.free_all_shared().unwrap();
            });
        }
    });
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    drop(holders);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "dropping freed holders ran it again"
    );
}

#[test]
fn the_last_of_many_concurrent_drops_runs_the_destructor_once() {
    for _ in 0..ROUNDS / 10 {
        let runs = Arc::new(AtomicUsize::new(0));
        let first = counted(&runs);
        let holders: Vec<_> = (0..4).map(|_| first.clone()).collect();
        drop(first);
        let barrier = Barrier::new(holders.len());
        thread::scope(|s| {
            for holder in holders {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    drop(holder);
                });
            }
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }
}
