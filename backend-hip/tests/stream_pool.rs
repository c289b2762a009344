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
    // Streams are compared as objects: the double, like the CUDA driver, gives a new stream
    // the handle value of one destroyed before.
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let rt = h.rt.clone();
    let errored = on_thread(move || rt.stream(D0).unwrap());
    f.set_stream_error(errored.handle(), 719);
    let rt = h.rt.clone();
    let next = on_thread(move || rt.stream(D0).unwrap());
    assert!(!next.same_as(&errored));
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
    let gone = on_thread(move || rt.stream(D0).unwrap());
    f.destroy_behind_back(gone.handle());
    let rt = h.rt.clone();
    assert!(!on_thread(move || rt.stream(D0).unwrap()).same_as(&gone));
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

/// A thread's first stream is a finished thread's ready stream, taken without creating one
/// and with its generation bumped (how long that takes is measured by the bench program
/// `benches/hip_stream_take.rs`, not here).
#[test]
fn a_finished_threads_ready_stream_is_taken_by_the_next_thread() {
    for h in default_harnesses() {
        let mut seen = Vec::new();
        for _ in 0..20 {
            let rt = h.rt.clone();
            seen.push(on_thread(move || {
                let s = rt.stream(D0).unwrap();
                // A ready stream: its work completed before the thread ended.
                s.synchronize().unwrap();
                (s.clone(), s.generation())
            }));
        }
        let st = normal_stats(&h);
        assert_eq!(st.created, 1, "[{}] {st:?}", h.name);
        assert_eq!(st.reused, 19, "[{}] {st:?}", h.name);
        for w in seen.windows(2) {
            assert!(w[1].0.same_as(&w[0].0), "[{}]", h.name);
            assert!(
                w[1].1 > w[0].1,
                "[{}] each hand-over bumps the generation",
                h.name
            );
        }
    }
}

#[test]
fn work_that_completes_after_queries_is_picked_up_later() {
    use gpuarrays_hip::platform::test_double::Completion;
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let rt = h.rt.clone();
    let s = on_thread(move || rt.stream(D0).unwrap());
    // Busy at the first two queries (this take and the keeper's below), ready at the third.
    h.fake().hold(s.handle(), Completion::AfterQueries(3));
    let rt = h.rt.clone();
    let first = on_thread(move || rt.stream(D0).unwrap().handle());
    assert_ne!(first, s.handle(), "busy at the first query");
    assert_eq!(normal_stats(&h).created, 2);
    // `first`'s stream stays with a live thread, so the only idle stream left is `s`, whose
    // work completes at the second query: the next thread must get it, not a new one.
    let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
    let (got_tx, got_rx) = std::sync::mpsc::channel();
    let rt = h.rt.clone();
    let keeper = std::thread::spawn(move || {
        got_tx.send(rt.stream(D0).unwrap()).unwrap();
        let _ = hold_rx.recv();
    });
    let kept = got_rx.recv().unwrap();
    assert_eq!(
        kept.handle(),
        first,
        "the keeper took the idle stream `first`"
    );
    let rt = h.rt.clone();
    let second = on_thread(move || rt.stream(D0).unwrap());
    assert!(
        second.same_as(&s),
        "the stream whose work completed after queries is reused"
    );
    assert_eq!(normal_stats(&h).created, 2);
    drop(hold_tx);
    keeper.join().unwrap();
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

/// Finding 3: `synchronize` waits for all work the thread enqueued: on its streams of every
/// priority (also one whose `with_priority` scope has ended) and on explicit streams it used
/// through `with_stream`, not only on its current stream.
#[test]
fn synchronize_waits_for_every_stream_the_thread_used() {
    use gpuarrays_core::Backend;
    for h in default_harnesses() {
        let b = gpuarrays_hip::HipBackend::with_runtime(
            h.rt.clone(),
            0,
            gpuarrays_hip::kernels::DiskCache::off(),
        )
        .unwrap();
        let rt = h.rt.clone();
        let explicit = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let (high, holds) = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let normal = rt.stream(D0).unwrap();
                    let (high, on_high) = with_priority(StreamPriority::High, || {
                        let s = rt.stream(D0).unwrap();
                        let hold = h.hold(&s);
                        (s, hold)
                    });
                    assert!(!high.same_as(&normal));
                    let on_explicit = with_stream(&explicit, || h.hold(&rt.stream(D0).unwrap()));
                    let holds = vec![on_high, on_explicit];
                    let releaser = std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(150));
                        for hold in holds {
                            hold.release();
                        }
                    });
                    b.synchronize().unwrap();
                    (high, releaser)
                })
                .join()
                .unwrap()
        });
        assert_eq!(
            high.query(),
            WorkStatus::Ready,
            "[{}] synchronize returned before the work on the thread's high-priority stream",
            h.name
        );
        assert_eq!(
            explicit.query(),
            WorkStatus::Ready,
            "[{}] synchronize returned before the work on the explicit stream",
            h.name
        );
        holds.join().unwrap();
    }
}

/// Finding 4: a pooled stream belongs to the thread that holds it; no other thread can
/// destroy it (through a clone or a wrapped raw handle).
#[test]
fn a_pooled_stream_cannot_be_destroyed_by_another_thread() {
    for h in default_harnesses() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
        let rt = h.rt.clone();
        let owner = std::thread::spawn(move || {
            let s = rt.stream(D0).unwrap();
            tx.send(s.clone()).unwrap();
            end_rx.recv().unwrap();
            let still = rt.stream(D0).unwrap();
            still.same_as(&s) && s.is_valid()
        });
        let theirs = rx.recv().unwrap();
        assert!(
            theirs.clone().destroy().is_err(),
            "[{}] another thread destroyed a live thread's pooled stream",
            h.name
        );
        let wrapped = h.rt.wrap_stream(D0, theirs.handle()).unwrap();
        assert!(
            wrapped.destroy().is_err(),
            "[{}] through a wrapped handle",
            h.name
        );
        assert!(theirs.is_valid());
        end_tx.send(()).unwrap();
        assert!(
            owner.join().unwrap(),
            "[{}] the owner kept its stream",
            h.name
        );
    }
}

/// Finding 4: an explicit stream is not destroyed while a `with_stream` scope uses it.
#[test]
fn an_explicit_stream_in_use_is_not_destroyed() {
    for h in default_harnesses() {
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let (inside_tx, inside_rx) = std::sync::mpsc::channel();
        let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
        let (rt, s2) = (h.rt.clone(), s.clone());
        let user = std::thread::spawn(move || {
            with_stream(&s2, || {
                inside_tx.send(()).unwrap();
                end_rx.recv().unwrap();
                rt.stream(D0).unwrap().is_valid()
            })
        });
        inside_rx.recv().unwrap();
        assert!(
            s.clone().destroy().is_err(),
            "[{}] destroyed while a with_stream scope uses it",
            h.name
        );
        end_tx.send(()).unwrap();
        assert!(user.join().unwrap());
        s.destroy().expect("no scope uses it any more");
    }
}

/// Finding 6: a handle value the driver reused for a new stream never maps to the destroyed
/// pooled stream that had it before.
#[test]
fn a_reused_handle_value_is_never_taken_for_a_destroyed_pooled_stream() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let old = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            s.clone().destroy().unwrap();
            s
        });
        let p = h.rt.platform().clone();
        p.bind_device(D0).unwrap();
        let raw = p.create_stream(D0, 0).unwrap();
        if h.fake.is_some() {
            assert_eq!(raw, old.handle(), "the double reuses the handle value");
        }
        let w = h.rt.wrap_stream(D0, raw).unwrap();
        assert!(
            !w.same_as(&old),
            "[{}] the destroyed stream's object",
            h.name
        );
        assert!(w.is_valid() && !w.is_pooled(), "[{}]", h.name);
        drop(w);
        p.destroy_stream(raw).unwrap();
    }
}
