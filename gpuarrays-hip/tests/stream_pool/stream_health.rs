//! Streams that must not be handed out: with queued work, unusable, destroyed by the user
//! or in use by another thread, and a destroyed stream's handle value reused by the driver.

use super::*;

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

/// A pooled stream belongs to the thread that holds it; no other thread can
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

/// An explicit stream is not destroyed while a `with_stream` scope uses it.
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

/// A handle value the driver reused for a new stream never maps to the destroyed
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

/// A buffer last written by a stream that the pool then dropped as unusable (it reported an
/// error) can be written, read and freed again: the drop ends the stream's generation, so its
/// use is no longer charged to the buffer (before, every later write failed for good).
#[test]
fn a_buffer_last_written_by_a_dropped_unusable_stream_is_writable_again() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let (rt, f) = (h.rt.clone(), h.fake().clone());
    let (buf, errored) = on_thread(move || {
        let d = rt.device(D0).unwrap();
        let s = d.thread_stream().unwrap();
        let b = d.alloc(4096).unwrap();
        b.copy_from_host(&s, &[1u8; 4096]).unwrap();
        f.set_stream_error(s.handle(), 719);
        assert!(matches!(s.query(), WorkStatus::Error(_)));
        (b, s)
    });
    assert_eq!(normal_stats(&h).dropped_bad, 1, "the pool dropped it");
    assert!(!errored.is_valid());
    let caller = h.rt.stream(D0).unwrap();
    buf.copy_from_host(&caller, &[2u8; 4096])
        .expect("a write after the stream was dropped");
    let mut back = vec![0u8; 4096];
    buf.copy_to_host(&caller, &mut back).unwrap();
    assert!(back.iter().all(|&b| b == 2));
    buf.free_on(&caller).unwrap();
    assert!(h.fake().races().is_empty(), "{:?}", h.fake().races());
}
