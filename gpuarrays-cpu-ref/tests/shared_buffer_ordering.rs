//! Calls of several threads on one shared buffer are ordered as on a GPU: each call sees the
//! buffer either before or after another thread's call, never halfway through it.
//!
//! Each test has one or more writers that fill a shared array with one value at a time and
//! readers that check every read shows a single value (a whole write). Without the ordering
//! a reader copying or reducing the array while a parallel fill runs sees a mix of two
//! values. The same tests run under ThreadSanitizer in CI (`docs/safety.md`), which also
//! reports the unordered accesses themselves.
//!
//! A watchdog ends the process if a test does not finish: the ordering takes locks, and a
//! deadlock must fail the run rather than hang it. `GPUARRAYS_ORDERING_ROUNDS` sets the
//! number of writes per test (default 300); the ThreadSanitizer run uses a few, since every
//! access is instrumented there and one unordered pair is enough for it to report.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use gpuarrays_core::Array;
use gpuarrays_cpu_ref::CpuBackend;
use rayon::prelude::*;

/// Elements: many parallel tasks of the elementwise and reduction kernels (and a parallel
/// host copy), so a torn read is likely on two cores when nothing orders the calls.
const N: usize = 1 << 20;

/// Writes per test (see the module documentation).
fn rounds() -> i32 {
    std::env::var("GPUARRAYS_ORDERING_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Aborts the process if `f` runs longer than `limit` (a deadlock must not hang CI).
fn with_watchdog<R>(name: &str, limit: Duration, f: impl FnOnce() -> R) -> R {
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let name = name.to_string();
    std::thread::spawn(move || {
        let start = std::time::Instant::now();
        while !flag.load(Ordering::Acquire) {
            if start.elapsed() > limit {
                // Straight to stderr: the test harness captures `eprintln!` of test threads.
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "{name}: not finished after {limit:?}: deadlock; aborting"
                );
                std::process::abort();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let r = f();
    done.store(true, Ordering::Release);
    r
}

/// Fails unless every element of `v` is `v[0]` (one whole write).
fn assert_whole(what: &str, v: &[i32]) {
    if let Some(bad) = v.iter().position(|&x| x != v[0]) {
        panic!(
            "{what}: element 0 is {} but element {bad} is {}: the read saw two writes",
            v[0], v[bad]
        );
    }
}

#[test]
fn a_read_never_sees_half_of_another_threads_fill() {
    with_watchdog("fill vs read", Duration::from_secs(600), || {
        let cpu = CpuBackend::new();
        let a = Array::<i32, _>::zeros(&cpu, &[N]).unwrap();
        let mut writer = a.share();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 1..=rounds() {
                    writer.fill(i).unwrap();
                }
                stop.store(true, Ordering::Release);
            });
            let mut reads = 0;
            while !stop.load(Ordering::Acquire) || reads < 20 {
                assert_whole("to_vec", &a.to_vec().unwrap());
                reads += 1;
            }
        });
    });
}

#[test]
fn a_reduction_reads_one_whole_write() {
    with_watchdog("fill vs sum", Duration::from_secs(600), || {
        let cpu = CpuBackend::new();
        let a = Array::<i64, _>::zeros(&cpu, &[N]).unwrap();
        let mut writer = a.share();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 1..=rounds() as i64 {
                    writer.fill(i).unwrap();
                }
                stop.store(true, Ordering::Release);
            });
            let mut reads = 0;
            while !stop.load(Ordering::Acquire) || reads < 20 {
                let sum = a.sum().unwrap();
                assert!(
                    sum % N as i64 == 0,
                    "sum {sum} is not a multiple of {N}: the reduction saw two writes"
                );
                reads += 1;
            }
        });
    });
}

#[test]
fn an_expression_evaluated_into_a_shared_array_is_read_whole() {
    with_watchdog("eval_into vs copy", Duration::from_secs(600), || {
        let cpu = CpuBackend::new();
        let src = Array::<i32, _>::zeros(&cpu, &[N]).unwrap();
        let dst = Array::<i32, _>::zeros(&cpu, &[N]).unwrap();
        let (mut src_w, mut dst_w) = (src.share(), dst.share());
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 1..=rounds() {
                    src_w.fill(i).unwrap();
                    (src_w.ex() * 2).eval_into(&mut dst_w).unwrap();
                }
                stop.store(true, Ordering::Release);
            });
            let mut reads = 0;
            while !stop.load(Ordering::Acquire) || reads < 20 {
                // A device copy of the destination, then a host read of the copy.
                assert_whole("copy", &dst.copy().unwrap().to_vec().unwrap());
                reads += 1;
            }
        });
    });
}

/// Calls made from inside rayon tasks (a program that uses gpuarrays in `par_iter`): writers
/// and readers of the same arrays on the pool's own workers must neither deadlock nor see
/// torn writes.
#[test]
fn calls_from_rayon_workers_are_ordered_and_do_not_deadlock() {
    with_watchdog("calls from rayon tasks", Duration::from_secs(600), || {
        let cpu = CpuBackend::new();
        let arrays: Vec<Array<i32, _>> = (0..2)
            .map(|_| Array::<i32, _>::zeros(&cpu, &[N / 4]).unwrap())
            .collect();
        (0..64).into_par_iter().for_each(|t| {
            let mut mine = arrays[t % 2].share();
            let other = &arrays[(t + 1) % 2];
            mine.fill(t as i32).unwrap();
            assert_whole("from a worker", &other.to_vec().unwrap());
            let sum = other.cast::<i64>().unwrap().sum().unwrap();
            assert_eq!(
                sum % (N / 4) as i64,
                0,
                "a reduction from a worker saw two writes"
            );
        });
        // And the same from a pool of the backend's own.
        let own = CpuBackend::with_threads(2).unwrap();
        let b = Array::<i32, _>::zeros(&own, &[N / 4]).unwrap();
        (0..32).into_par_iter().for_each(|t| {
            let mut w = b.share();
            w.fill(t).unwrap();
            assert_whole("own pool from a worker", &b.to_vec().unwrap());
        });
    });
}
