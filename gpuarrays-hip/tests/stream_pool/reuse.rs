//! Reuse: a finished thread's stream goes to the next thread, live threads get distinct
//! streams, the idle cap counts idle streams only, long-lived threads do not stop recycling.

use super::*;

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
