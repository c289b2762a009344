//! Use records: recycled streams, another thread's use, captures with a concurrent free.

use super::*;

/// A buffer whose recorded stream went to another thread: its work is complete, so the free
/// enqueues nothing on that stream (now someone else's) and the memory is reusable at once,
/// even while the new owner's stream is busy.
#[test]
fn a_recycled_record_frees_without_touching_the_new_owners_stream() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        // Thread A allocates and uses a buffer, then ends.
        let (buf, a_stream) = on_thread(move || {
            let d = rt.device(D0).unwrap();
            let b = d.alloc(4096).unwrap();
            let s = d.thread_stream().unwrap();
            b.copy_from_host(&s, &[7u8; 4096]).unwrap();
            (b, s)
        });
        let ptr = buf.ptr();
        // Thread B gets A's stream from the pool and keeps it busy.
        let (taken_tx, taken_rx) = std::sync::mpsc::channel();
        let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
        let rt = h.rt.clone();
        let b_thread = std::thread::spawn(move || {
            taken_tx.send(rt.stream(D0).unwrap()).unwrap();
            end_rx.recv().unwrap();
        });
        let b_stream = taken_rx.recv().unwrap();
        assert!(b_stream.same_as(&a_stream), "[{}]", h.name);
        let hold = h.hold(&b_stream);
        let before = h.fake.as_ref().map(|f| f.log().len());
        drop(buf);
        if let (Some(f), Some(before)) = (&h.fake, before) {
            let after: Vec<FakeOp> = f.log()[before..].to_vec();
            assert!(
                after.iter().all(|op| op.stream() != b_stream.handle()),
                "the free touched the new owner's stream: {after:?}"
            );
        }
        // Reusable at once from another stream: no event on the busy stream guards it.
        let other = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let d = h.rt.device(D0).unwrap().clone();
        let again = d.alloc_on(4096, &other).unwrap();
        assert_eq!(
            again.ptr(),
            ptr,
            "[{}] the block waited for the new owner's unrelated work",
            h.name
        );
        again.free_on(&other).unwrap();
        hold.release();
        end_tx.send(()).unwrap();
        b_thread.join().unwrap();
    }
}

#[test]
fn a_free_is_never_recorded_into_a_capture_on_a_recycled_stream() {
    // The reproducer from the stream-recycling review (AMDGPU.jl): a buffer last used by a
    // finished thread; a new thread gets that stream from the pool and captures a graph;
    // meanwhile another thread frees the buffer. Recorded into the capture, that free makes
    // hipGraphLaunch segfault.
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let a = on_thread(move || {
            let d = rt.device(D0).unwrap();
            let b = d.alloc(1 << 20).unwrap();
            b.copy_from_host(&d.thread_stream().unwrap(), &[1u8; 1 << 20])
                .unwrap();
            b
        });
        let (capturing_tx, capturing_rx) = std::sync::mpsc::channel();
        let (freed_tx, freed_rx) = std::sync::mpsc::channel::<()>();
        let rt = h.rt.clone();
        let t = std::thread::spawn(move || {
            let d = rt.device(D0).unwrap();
            let s = d.thread_stream().unwrap();
            let b = d.alloc(64).unwrap();
            s.synchronize().unwrap();
            s.begin_capture(CaptureMode::ThreadLocal).unwrap();
            capturing_tx.send(s.handle()).unwrap();
            freed_rx.recv().unwrap();
            // SAFETY: `b` is a live 64-byte allocation.
            unsafe {
                rt.platform()
                    .memset_async(b.ptr(), 1, 64, s.handle())
                    .unwrap()
            };
            let g = s.end_capture().unwrap();
            (g, s, b)
        });
        let captured_stream = capturing_rx.recv().unwrap();
        assert_eq!(
            a.uses().last_write().unwrap().stream().handle(),
            captured_stream,
            "[{}] same stream, recycled",
            h.name
        );
        let caller = h.rt.stream(D0).unwrap();
        a.free_on(&caller).unwrap();
        freed_tx.send(()).unwrap();
        let (g, s, b) = t.join().unwrap();
        let p = h.rt.platform();
        if let Some(f) = &h.fake {
            let ops = f.graph_ops(g);
            assert!(
                ops.iter()
                    .all(|op| !matches!(op, FakeOp::Free { .. } | FakeOp::Record { .. })),
                "nothing of the free was captured: {ops:?}"
            );
        }
        let exec = p.instantiate_graph(g).unwrap();
        p.bind_device(D0).unwrap();
        p.launch_graph(exec, s.handle()).unwrap();
        s.synchronize().unwrap();
        p.destroy_graph_exec(exec).unwrap();
        p.destroy_graph(g).unwrap();
        // `s` went back to the pool when its thread ended: frees name this thread's own.
        b.free_on(&h.rt.stream(D0).unwrap()).unwrap();
    }
}

#[test]
fn free_into_a_live_owners_capture_is_deferred() {
    // Generation unchanged (the owner is alive) but capturing: the free waits for the capture.
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let d = h.rt.device(D0).unwrap().clone();
    let owner = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
    let buf = d.alloc_on(4096, &owner).unwrap();
    owner.begin_capture(CaptureMode::ThreadLocal).unwrap();
    let rt = h.rt.clone();
    on_thread(move || {
        let caller = rt.stream(D0).unwrap();
        buf.free_on(&caller).unwrap();
    });
    assert_eq!(d.memory().stats().deferred_frees, 1);
    let g = owner.end_capture().unwrap();
    assert!(h.fake().graph_ops(g).is_empty(), "nothing was captured");
    d.memory().flush_deferred();
    let st = d.memory().stats();
    assert_eq!(
        (st.deferred_frees, st.cached_blocks, st.in_use_bytes),
        (0, 1, 0),
        "{st:?}"
    );
}

#[test]
fn a_use_on_another_thread_waits_and_records_the_callers_stream() {
    // A wrapper of the thread's stream, a long kernel, then a read from another thread must
    // wait and see the value.
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let s = d.thread_stream().unwrap();
        let w = h.rt.wrap_stream(D0, s.handle()).unwrap();
        assert!(w.same_as(&s));
        let buf = Arc::new(d.alloc_on(256, &w).unwrap());
        let hold = h.hold(&w);
        // SAFETY: a live 256-byte allocation; queued behind the hold.
        unsafe {
            h.rt.platform()
                .memset_async(buf.ptr(), 42, 256, w.handle())
                .unwrap()
        };
        let (b2, d2, fake) = (buf.clone(), d.clone(), h.fake.clone());
        let reader = std::thread::spawn(move || {
            let caller = d2.thread_stream().unwrap();
            // A write (the memset above left the write on `w`): ordered after it, recorded.
            d2.enqueue(&caller, &[Access::write(&b2)], |_| Ok(()))
                .unwrap();
            let uses = b2.uses();
            assert!(
                uses.last_write().unwrap().stream().same_as(&caller),
                "the record takes the caller's stream object"
            );
            if let Some(f) = fake {
                assert!(f.log().iter().any(
                    |op| matches!(op, FakeOp::Wait { stream, .. } if *stream == caller.handle())
                ));
            } else {
                assert_eq!(
                    caller.query(),
                    WorkStatus::Busy,
                    "the reader's stream waits for the kernel"
                );
            }
            caller
        });
        reader.join().unwrap();
        hold.release();
        let mut out = vec![0u8; 256];
        let d3 = d.clone();
        let b3 = buf.clone();
        std::thread::spawn(move || {
            let mine = d3.thread_stream().unwrap();
            b3.copy_to_host(&mine, &mut out).unwrap();
            assert!(
                out.iter().all(|&x| x == 42),
                "read after the kernel: {:?}",
                &out[..4]
            );
        })
        .join()
        .unwrap();
        drop(buf);
    }
}

#[test]
fn last_use_waits_only_while_the_generation_is_unchanged() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let (lu, hold_stream) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            (Use::new(&s), s)
        });
        let events = h.rt.device(D0).unwrap().events().clone();
        assert!(!lu.is_recycled());
        lu.synchronize(&events).unwrap();
        let rt = h.rt.clone();
        on_thread(move || rt.stream(D0).unwrap());
        assert!(lu.is_recycled());
        // The stream's new owner may be busy; the record does not wait for it.
        let hold = h.hold(&hold_stream);
        lu.synchronize(&events).unwrap();
        hold.release();
        if let Some(f) = &h.fake {
            // The new owner's error is not charged to the old record...
            f.set_stream_error(hold_stream.handle(), 700);
            let _ = hold_stream.query();
            assert!(
                lu.check_errors().is_ok(),
                "a recycled record's work completed"
            );
            // ...but a record of the stream's current generation reports it.
            let current = Use::new(&hold_stream);
            assert!(
                matches!(current.check_errors(), Err(HipError::StreamUnusable { .. })),
                "errors of the recorded generation are reported"
            );
        }
    }
}
