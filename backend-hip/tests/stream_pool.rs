//! Stream pool tests: what stream recycling must guarantee (reuse of finished threads' streams,
//! distinct streams for live threads, the idle cap, priority switches, streams in an error
//! state or destroyed by the user, wrapped handles). Each runs on the test double and, where a
//! GPU is present, on the real platform.

mod common;

use common::*;
use gpuarrays_hip::platform::test_double::FakeConfig;
use gpuarrays_hip::platform::{StreamHandle, WorkStatus};
use gpuarrays_hip::stream::leased_stream_count;
use gpuarrays_hip::{RuntimeConfig, StreamPriority, with_priority, with_stream};
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn normal_stats(h: &Harness) -> gpuarrays_hip::StreamPoolStats {
    h.rt.device(D0)
        .unwrap()
        .pool(StreamPriority::Normal)
        .stats()
}

#[test]
fn finished_threads_streams_are_reused() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let (first, g1) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            (s.handle(), s.generation())
        });
        let rt = h.rt.clone();
        let (second, g2) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            (s.handle(), s.generation())
        });
        assert_eq!(
            first, second,
            "[{}] the finished thread's stream is reused",
            h.name
        );
        assert!(
            g2 > g1,
            "[{}] the generation is bumped when the stream changes hands",
            h.name
        );
        let st = normal_stats(&h);
        assert_eq!((st.created, st.reused), (1, 1), "[{}] {st:?}", h.name);
    }
}

#[test]
fn concurrent_threads_get_distinct_streams() {
    for h in default_harnesses() {
        let n = 8;
        let barrier = Arc::new(Barrier::new(n));
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let (rt, b) = (h.rt.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let s = rt.stream(D0).unwrap();
                    b.wait(); // all alive at once
                    s.handle()
                })
            })
            .collect();
        let mut got: Vec<StreamHandle> = handles.into_iter().map(|t| t.join().unwrap()).collect();
        got.sort();
        got.dedup();
        assert_eq!(
            got.len(),
            n,
            "[{}] threads alive together never share a stream",
            h.name
        );
    }
}

#[test]
fn idle_cap_counts_idle_streams_only() {
    for h in harnesses(RuntimeConfig {
        max_idle_streams: 4,
        ..RuntimeConfig::default()
    }) {
        let n = 10;
        let barrier = Arc::new(Barrier::new(n));
        let ts: Vec<_> = (0..n)
            .map(|_| {
                let (rt, b) = (h.rt.clone(), barrier.clone());
                std::thread::spawn(move || {
                    rt.stream(D0).unwrap();
                    b.wait();
                })
            })
            .collect();
        ts.into_iter().for_each(|t| t.join().unwrap());
        let st = normal_stats(&h);
        assert_eq!(st.idle, 4, "[{}] {st:?}", h.name);
        assert_eq!(st.retired_surplus, 6, "[{}] {st:?}", h.name);
        assert_eq!(
            st.alive, 4,
            "[{}] surplus streams were destroyed: {st:?}",
            h.name
        );
        if let Some(f) = &h.fake {
            assert_eq!(f.stats().streams_destroyed, 6);
        }
    }
}

#[test]
fn long_lived_threads_do_not_disable_recycling() {
    for h in harnesses(RuntimeConfig {
        max_idle_streams: 2,
        ..RuntimeConfig::default()
    }) {
        // Five long-lived workers hold streams (more than the idle cap).
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let hold_rx = Arc::new(std::sync::Mutex::new(hold_rx));
        let started = Arc::new(Barrier::new(6));
        let workers: Vec<_> = (0..5)
            .map(|_| {
                let (rt, rx, b) = (h.rt.clone(), hold_rx.clone(), started.clone());
                std::thread::spawn(move || {
                    rt.stream(D0).unwrap();
                    b.wait();
                    let _ = rx.lock().unwrap().recv();
                })
            })
            .collect();
        started.wait();
        let rt = h.rt.clone();
        let a = on_thread(move || rt.stream(D0).unwrap().handle());
        let rt = h.rt.clone();
        let b = on_thread(move || rt.stream(D0).unwrap().handle());
        assert_eq!(
            a, b,
            "[{}] a short thread reuses a finished one's stream",
            h.name
        );
        assert_eq!(normal_stats(&h).created, 6, "[{}]", h.name);
        drop(hold_tx);
        workers.into_iter().for_each(|w| w.join().unwrap());
    }
}

#[test]
fn priority_switches_do_not_exhaust_the_pool() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        on_thread(move || {
            let normal = rt.stream(D0).unwrap().handle();
            let mut high = Vec::new();
            for _ in 0..40 {
                with_priority(StreamPriority::High, || {
                    let s = rt.stream(D0).unwrap();
                    assert_eq!(s.priority(), Some(StreamPriority::High));
                    high.push(s.handle());
                });
                assert_eq!(
                    rt.stream(D0).unwrap().handle(),
                    normal,
                    "back to the default stream"
                );
            }
            high.dedup();
            assert_eq!(
                high.len(),
                1,
                "the thread gets its own high stream back each time"
            );
            assert_eq!(
                leased_stream_count(),
                1,
                "the high stream was released on return"
            );
            // 40 nested blocks, alternating priorities.
            fn nest(rt: &gpuarrays_hip::HipRuntime, depth: usize) {
                if depth == 0 {
                    return;
                }
                let p = if depth % 2 == 0 {
                    StreamPriority::High
                } else {
                    StreamPriority::Low
                };
                with_priority(p, || {
                    assert_eq!(rt.stream(D0).unwrap().priority(), Some(p));
                    nest(rt, depth - 1);
                });
            }
            nest(&rt, 40);
            assert_eq!(leased_stream_count(), 1);
        });
        let d = h.rt.device(D0).unwrap();
        assert_eq!(
            d.pool(StreamPriority::High).stats().created,
            1,
            "[{}]",
            h.name
        );
        assert!(
            d.pool(StreamPriority::Low).stats().created <= 1,
            "[{}]",
            h.name
        );
        // Another thread still finds the released high stream.
        let rt = h.rt.clone();
        on_thread(move || with_priority(StreamPriority::High, || rt.stream(D0).unwrap()));
        assert_eq!(
            d.pool(StreamPriority::High).stats().created,
            1,
            "[{}]",
            h.name
        );
    }
}

#[test]
fn streams_with_queued_work_are_skipped() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let busy = on_thread(move || rt.stream(D0).unwrap());
        let hold = h.hold(&busy);
        assert_eq!(
            busy.query(),
            WorkStatus::Busy,
            "[{}] the hold keeps the stream busy",
            h.name
        );
        let rt = h.rt.clone();
        let other = on_thread(move || rt.stream(D0).unwrap().handle());
        eprintln!(
            "[{}] busy {:?} -> other {:?}, busy now {:?}",
            h.name,
            busy.handle(),
            other,
            busy.query()
        );
        assert_ne!(
            other,
            busy.handle(),
            "[{}] a stream with queued work is not handed out",
            h.name
        );
        assert_eq!(busy.query(), WorkStatus::Busy, "[{}]", h.name);
        hold.release();
        busy.synchronize().unwrap();
        drop(busy);
        let st = normal_stats(&h);
        eprintln!("[{}] streams_with_queued_work stats {st:?}", h.name);
        assert_eq!(st.created, 2, "[{}] {st:?}", h.name);
    }
}

#[test]
fn unusable_streams_are_dropped_not_requeried() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let rt = h.rt.clone();
    let errored = on_thread(move || rt.stream(D0).unwrap().handle());
    f.set_stream_error(errored, 719);
    let rt = h.rt.clone();
    let next = on_thread(move || rt.stream(D0).unwrap().handle());
    assert_ne!(next, errored);
    assert_eq!(normal_stats(&h).dropped_bad, 1);
    let queries = f.stats().stream_queries;
    let rt = h.rt.clone();
    on_thread(move || rt.stream(D0).unwrap());
    assert!(
        f.stats().stream_queries - queries <= 1,
        "the errored stream is not queried again"
    );

    // Destroyed behind the pool's back: dropped, and never destroyed twice.
    let rt = h.rt.clone();
    let gone = on_thread(move || rt.stream(D0).unwrap().handle());
    f.destroy_behind_back(gone);
    let rt = h.rt.clone();
    assert_ne!(on_thread(move || rt.stream(D0).unwrap().handle()), gone);
    assert_eq!(normal_stats(&h).dropped_bad, 2);
    assert_eq!(
        f.stats().invalid_destroys,
        0,
        "the pool never destroys a stream twice"
    );
}

#[test]
fn user_destroyed_pooled_stream_is_not_handed_out() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let (old, gen_before) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            let r = (s.clone(), s.generation());
            s.clone().destroy().unwrap();
            assert!(s.is_destroyed());
            // The thread's next use takes a fresh stream (the platform may reuse the handle
            // value, so compare objects, not handles).
            let fresh = rt.stream(D0).unwrap();
            assert!(!fresh.same_as(&s) && fresh.is_valid());
            r
        });
        let rt = h.rt.clone();
        let next = on_thread(move || rt.stream(D0).unwrap());
        assert!(!next.same_as(&old) && next.is_valid(), "[{}]", h.name);
        assert!(
            old.generation() > gen_before,
            "[{}] destroy bumps the generation",
            h.name
        );
        assert_eq!(
            old.query(),
            WorkStatus::Error(400),
            "[{}] a destroyed stream is never queried",
            h.name
        );
        if let Some(f) = &h.fake {
            assert_eq!(f.stats().invalid_destroys, 0);
        }
    }
}

#[test]
fn wrapped_handles_return_the_pools_object() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let (pooled, g0) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            let w = rt.wrap_stream(D0, s.handle()).unwrap();
            assert!(
                w.same_as(&s),
                "wrapping a pooled handle gives the pool's object"
            );
            (w, s.generation())
        });
        let rt = h.rt.clone();
        let taken = on_thread(move || rt.stream(D0).unwrap().handle());
        assert_eq!(taken, pooled.handle());
        assert!(
            pooled.generation() > g0,
            "[{}] the wrapper sees the recycling",
            h.name
        );
        // A foreign raw handle is borrowed: never pooled, never destroyed by us.
        let p = h.rt.platform().clone();
        p.bind_device(D0).unwrap();
        let raw = p.create_stream(D0, 0).unwrap();
        let w = h.rt.wrap_stream(D0, raw).unwrap();
        assert!(!w.is_pooled());
        drop(w);
        assert_eq!(
            p.query_stream(raw),
            WorkStatus::Ready,
            "[{}] still alive",
            h.name
        );
        p.destroy_stream(raw).unwrap();
    }
}

#[test]
fn explicit_streams_are_never_pooled() {
    for h in default_harnesses() {
        let s = h.rt.create_stream(D0, StreamPriority::High).unwrap();
        assert!(!s.is_pooled());
        let raw = s.handle();
        with_stream(&s, || assert!(h.rt.stream(D0).unwrap().same_as(&s)));
        assert!(
            !h.rt.stream(D0).unwrap().same_as(&s),
            "the override ends with the scope"
        );
        drop(s);
        let st = normal_stats(&h);
        assert_eq!(st.idle, 0, "[{}] {st:?}", h.name);
        if let Some(f) = &h.fake {
            assert_eq!(f.stats().invalid_destroys, 0);
            assert!(
                f.stream_priority(raw).is_none(),
                "destroyed with its last clone"
            );
        }
    }
}

#[test]
fn concurrent_first_touches_create_outside_the_lock() {
    for h in default_harnesses() {
        if let Some(f) = &h.fake {
            f.set_stream_creation_delay(Duration::from_millis(20));
        }
        let n = 64;
        let barrier = Arc::new(Barrier::new(n));
        let ts: Vec<_> = (0..n)
            .map(|_| {
                let (rt, b) = (h.rt.clone(), barrier.clone());
                std::thread::spawn(move || {
                    b.wait();
                    let t = std::time::Instant::now();
                    let s = rt.stream(D0).unwrap();
                    let us = t.elapsed().as_micros();
                    b.wait();
                    (s.handle(), us)
                })
            })
            .collect();
        let res: Vec<_> = ts.into_iter().map(|t| t.join().unwrap()).collect();
        let mut waits: Vec<u128> = res.iter().map(|r| r.1).collect();
        waits.sort();
        eprintln!(
            "[{}] 64 concurrent first touches: median {} us, max {} us",
            h.name,
            waits[waits.len() / 2],
            waits[waits.len() - 1]
        );
        let mut got: Vec<_> = res.into_iter().map(|r| r.0).collect();
        got.sort();
        got.dedup();
        assert_eq!(got.len(), n, "[{}]", h.name);
        if let Some(f) = &h.fake {
            let max = f.stats().max_concurrent_creations;
            assert!(max > 1, "creations ran concurrently (max {max})");
        }
    }
}

#[test]
fn pooling_off_creates_and_destroys_per_thread() {
    for h in harnesses(RuntimeConfig {
        pooling: false,
        ..RuntimeConfig::default()
    }) {
        for _ in 0..3 {
            let rt = h.rt.clone();
            on_thread(move || rt.stream(D0).unwrap());
        }
        let st = normal_stats(&h);
        assert_eq!(
            (st.created, st.reused, st.idle, st.alive),
            (3, 0, 0, 0),
            "[{}] {st:?}",
            h.name
        );
    }
}

#[test]
fn failed_creation_is_an_error_and_the_pool_recovers() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    h.fake().fail_next_stream_creations(1);
    let rt = h.rt.clone();
    let r = on_thread(move || rt.stream(D0).map(|s| s.handle()));
    assert!(r.is_err());
    let rt = h.rt.clone();
    assert!(on_thread(move || rt.stream(D0).is_ok()));
}

#[test]
fn per_device_pools_on_two_devices() {
    let h = fake_harness(
        FakeConfig {
            devices: 2,
            ..FakeConfig::default()
        },
        RuntimeConfig::default(),
    );
    let rt = h.rt.clone();
    on_thread(move || {
        let d1 = gpuarrays_hip::DeviceId(1);
        let s0 = rt.stream(D0).unwrap();
        let s1 = rt.stream(d1).unwrap();
        assert_ne!(s0.handle(), s1.handle());
        assert_eq!(s1.device(), d1);
        let b = rt.device(d1).unwrap().alloc(1000).unwrap();
        assert_eq!(b.device(), d1);
        drop(b);
        assert!(rt.device(d1).unwrap().memory().stats().cached_blocks == 1);
        assert!(rt.device(D0).unwrap().memory().stats().cached_blocks == 0);
    });
}

/// Not an assertion: prints how long taking a pooled stream takes (same thread, and a
/// finished thread's stream), for the benchmark notes.
#[test]
fn report_take_latency() {
    for h in default_harnesses() {
        let pool =
            h.rt.device(D0)
                .unwrap()
                .pool(StreamPriority::Normal)
                .clone();
        h.rt.platform().bind_device(D0).unwrap();
        let owners: Vec<_> = (0..200)
            .map(|_| {
                std::thread::spawn(|| std::thread::current().id())
                    .join()
                    .unwrap()
            })
            .collect();
        let median = |mut v: Vec<u128>| {
            v.sort();
            v[v.len() / 2]
        };
        let me = std::thread::current().id();
        let s = pool.take(me).unwrap();
        pool.release(s, me);
        let same: Vec<u128> = (0..1000)
            .map(|_| {
                let t = std::time::Instant::now();
                let s = pool.take(me).unwrap();
                let ns = t.elapsed().as_nanos();
                pool.release(s, me);
                ns
            })
            .collect();
        let other: Vec<u128> = owners
            .windows(2)
            .map(|w| {
                let t = std::time::Instant::now();
                let s = pool.take(w[0]).unwrap();
                let ns = t.elapsed().as_nanos();
                pool.release(s, w[1]);
                ns
            })
            .collect();
        eprintln!(
            "[{}] take a pooled stream: same thread median {} ns; finished thread's stream median {} ns; created {}",
            h.name,
            median(same),
            median(other),
            pool.stats().created
        );
    }
}

#[test]
fn work_that_completes_after_queries_is_picked_up_later() {
    use gpuarrays_hip::platform::test_double::Completion;
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let rt = h.rt.clone();
    let s = on_thread(move || rt.stream(D0).unwrap());
    h.fake().hold(s.handle(), Completion::AfterQueries(2));
    let rt = h.rt.clone();
    let first = on_thread(move || rt.stream(D0).unwrap().handle());
    assert_ne!(first, s.handle(), "busy at the first query");
    let rt = h.rt.clone();
    let second = on_thread(move || rt.stream(D0).unwrap().handle());
    assert!(
        second == s.handle() || second == first,
        "a finished stream is reused"
    );
    assert_eq!(normal_stats(&h).created, 2);
}

#[test]
fn priorities_map_onto_the_device_range() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let rt = h.rt.clone();
    on_thread(move || {
        let n = rt.stream(D0).unwrap();
        let hi = with_priority(StreamPriority::High, || rt.stream(D0).unwrap());
        let lo = with_priority(StreamPriority::Low, || rt.stream(D0).unwrap());
        // The double's range is CUDA-like: least 0 (default), greatest -5.
        assert_eq!(f.stream_priority(n.handle()), Some(0));
        assert_eq!(f.stream_priority(hi.handle()), Some(-5));
        assert_eq!(f.stream_priority(lo.handle()), Some(0));
        assert_ne!(lo.handle(), n.handle(), "each priority has its own pool");
    });
}

#[test]
fn config_values_are_parsed_or_rejected() {
    let c = RuntimeConfig::from_values(Some("off"), Some("7")).unwrap();
    assert!(!c.pooling);
    assert_eq!(c.max_idle_streams, 7);
    assert!(RuntimeConfig::from_values(None, None).unwrap().pooling);
    assert!(matches!(
        RuntimeConfig::from_values(Some("sometimes"), None),
        Err(gpuarrays_hip::HipError::InvalidConfig { .. })
    ));
    assert!(RuntimeConfig::from_values(None, Some("-1")).is_err());
}
