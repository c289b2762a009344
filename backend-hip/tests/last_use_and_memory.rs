//! Use-record rules (recycled streams, ordering after another thread's use, graph capture
//! with a concurrent free) and the caching memory pool (reuse rules, out-of-memory, capture).
//! Double and, where present, GPU.

mod common;

use common::*;
use gpuarrays_hip::memory::class_size;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp};
use gpuarrays_hip::platform::{CaptureMode, WorkStatus};
use gpuarrays_hip::{Access, HipError, RuntimeConfig, StreamPriority, Use};
use std::sync::Arc;

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

#[test]
fn blocks_are_reused_on_the_same_stream_at_once_and_elsewhere_after_the_event() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let s1 = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let s2 = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let a = d.alloc_on(10_000, &s1).unwrap();
        let ptr = a.ptr();
        let hold = h.hold(&s1);
        a.free_on(&s1).unwrap();
        let b = d.alloc_on(10_000, &s1).unwrap();
        assert_eq!(b.ptr(), ptr, "[{}] same stream: reused immediately", h.name);
        b.free_on(&s1).unwrap();
        let c = d.alloc_on(10_000, &s2).unwrap();
        assert_ne!(
            c.ptr(),
            ptr,
            "[{}] another stream: not while the free is pending",
            h.name
        );
        hold.release();
        s1.synchronize().unwrap();
        let e = d.alloc_on(10_000, &s2).unwrap();
        assert_eq!(e.ptr(), ptr, "[{}] another stream: after the event", h.name);
        e.free_on(&s2).unwrap();
        c.free_on(&s2).unwrap();
        assert!(d.memory().stats().cache_hits >= 2);
        assert_eq!(d.memory().stats().in_use_bytes, 0);
    }
}

#[test]
fn out_of_memory_releases_cache_runs_hooks_and_retries() {
    let h = fake_harness(
        FakeConfig {
            memory_per_device: 1 << 20,
            ..FakeConfig::default()
        },
        RuntimeConfig::default(),
    );
    let d = h.rt.device(D0).unwrap().clone();
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = calls.clone();
    d.memory().release_hooks().register(
        "test",
        Arc::new(move |_| {
            c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            0
        }),
    );
    let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
    let a = d.alloc_on(600_000, &s).unwrap();
    a.free_on(&s).unwrap();
    assert_eq!(d.memory().stats().cached_blocks, 1);
    let b = d.alloc_on(900_000, &s).unwrap();
    let st = d.memory().stats();
    assert_eq!((st.oom_recovered, st.cached_blocks), (1, 0), "{st:?}");
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    match d.alloc_on(2 << 20, &s) {
        Err(HipError::OutOfMemory {
            requested,
            free,
            total,
            ..
        }) => {
            assert_eq!(requested, 2 << 20);
            assert_eq!(total, 1 << 20);
            assert!(free < 1 << 20);
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    drop(b);
}

#[test]
fn out_of_memory_is_a_typed_error_on_every_platform() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let huge = d.properties().total_memory * 4;
        match d.alloc(huge) {
            Err(e @ HipError::OutOfMemory { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&huge.to_string()), "[{}] {msg}", h.name);
            }
            other => panic!("[{}] expected OutOfMemory, got {other:?}", h.name),
        }
    }
}

#[test]
fn copies_round_trip() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let s = d.thread_stream().unwrap();
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let b = d.alloc(data.len()).unwrap();
        b.copy_from_host(&s, &data).unwrap();
        let mut back = vec![0u8; data.len()];
        b.copy_to_host(&s, &mut back).unwrap();
        assert_eq!(back, data, "[{}]", h.name);
        assert!(b.copy_from_host(&s, &vec![0u8; data.len() + 1]).is_err());
    }
}

#[test]
fn device_properties_and_compiler_version() {
    for h in default_harnesses() {
        let props = h.rt.device(D0).unwrap().properties().clone();
        assert!(
            props.warp_size == 32 || props.warp_size == 64,
            "[{}] {props:?}",
            h.name
        );
        assert!(props.multiprocessor_count > 0 && props.total_memory > 0);
        assert!(!props.arch.is_empty());
        let v = h.rt.platform().compiler_version().unwrap();
        eprintln!("[{}] {props:?}; compiler {v}", h.name);
    }
}

#[test]
fn trim_returns_cached_blocks_from_any_thread() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let b = d.alloc(1 << 16).unwrap();
        drop(b);
        assert_eq!(d.memory().stats().cached_blocks, 1, "[{}]", h.name);
        let d2 = d.clone();
        let released = on_thread(move || d2.memory().trim());
        assert_eq!(Some(released), class_size(1 << 16), "[{}]", h.name);
        let st = d.memory().stats();
        assert_eq!(
            (st.cached_blocks, st.cached_bytes),
            (0, 0),
            "[{}] {st:?}",
            h.name
        );
        if let Some(f) = &h.fake {
            assert_eq!(f.allocated_bytes(D0), 0, "returned to the platform");
        }
    }
}

/// A block freed on a stream is reused without waiting only on that same stream
/// object. A new stream that got the old one's handle value (the user destroyed theirs and
/// created another; drivers reuse the values) must wait like any other stream.
#[test]
fn a_block_is_not_reused_at_once_by_a_new_stream_with_an_old_streams_handle_value() {
    for h in default_harnesses() {
        let p = h.rt.platform().clone();
        p.bind_device(D0).unwrap();
        let d = h.rt.device(D0).unwrap().clone();
        let raw1 = p.create_stream(D0, 0).unwrap();
        let s1 = h.rt.wrap_stream(D0, raw1).unwrap();
        let a = d.alloc_on(10_000, &s1).unwrap();
        let ptr = a.ptr();
        let hold = h.hold(&s1);
        // SAFETY: a live allocation of 10,000 bytes; queued behind the hold.
        unsafe { p.memset_async(ptr, 1, 10_000, raw1).unwrap() };
        a.free_on(&s1).unwrap();
        drop(s1);
        // The user destroys their stream (its queued work still runs) and creates another.
        p.destroy_stream(raw1).unwrap();
        let raw2 = p.create_stream(D0, 0).unwrap();
        if h.fake.is_some() {
            assert_eq!(raw2, raw1, "the double reuses the handle value");
        }
        let s2 = h.rt.wrap_stream(D0, raw2).unwrap();
        let b = d.alloc_on(10_000, &s2).unwrap();
        // SAFETY: a live allocation of 10,000 bytes.
        unsafe { p.memset_async(b.ptr(), 2, 10_000, raw2).unwrap() };
        assert_ne!(
            b.ptr(),
            ptr,
            "[{}] reused while the destroyed stream's memset may still run",
            h.name
        );
        if let Some(f) = &h.fake {
            let races = f.races();
            assert!(races.is_empty(), "{races:#?}");
        }
        hold.release();
        b.free_on(&s2).unwrap();
        s2.synchronize().unwrap();
        drop(s2);
        p.destroy_stream(raw2).unwrap();
    }
}

/// Running out of memory while a graph is captured never synchronises the device
/// (that would invalidate the capture): the allocation on the capturing stream fails with
/// the typed error, and so does one on another thread while a capture runs, and both
/// captures survive.
#[test]
fn out_of_memory_during_a_capture_never_synchronises_the_device() {
    let h = fake_harness(
        FakeConfig {
            memory_per_device: 1 << 20,
            ..FakeConfig::default()
        },
        RuntimeConfig::default(),
    );
    let f = h.fake().clone();
    let d = h.rt.device(D0).unwrap().clone();
    let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
    let filler = d.alloc_on(800_000, &s).unwrap();
    s.synchronize().unwrap();
    s.begin_capture(CaptureMode::ThreadLocal).unwrap();
    let r = d.alloc_on(500_000, &s);
    assert!(matches!(r, Err(HipError::OutOfMemory { .. })), "{r:?}");
    assert_eq!(f.stats().device_synchronizations, 0);
    let g = s
        .end_capture()
        .expect("the capture survived the out-of-memory path");
    h.rt.platform().destroy_graph(g).unwrap();

    // Another thread captures while this one runs out of memory.
    let (capturing_tx, capturing_rx) = std::sync::mpsc::channel();
    let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
    let rt = h.rt.clone();
    let capturer = std::thread::spawn(move || {
        let t = rt.create_stream(D0, StreamPriority::Normal).unwrap();
        t.begin_capture(CaptureMode::ThreadLocal).unwrap();
        capturing_tx.send(()).unwrap();
        end_rx.recv().unwrap();
        t.end_capture().map(|g| rt.platform().destroy_graph(g))
    });
    capturing_rx.recv().unwrap();
    let mine = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
    let r = d.alloc_on(500_000, &mine);
    assert!(matches!(r, Err(HipError::OutOfMemory { .. })), "{r:?}");
    end_tx.send(()).unwrap();
    let ended = capturer.join().unwrap();
    assert!(
        ended.is_ok(),
        "the other thread's capture was invalidated: {ended:?}"
    );
    assert_eq!(f.stats().device_synchronizations, 0);
    assert_eq!(f.stats().invalidated_captures, 0);
    filler.free_on(&s).unwrap();
}

/// A host copy enqueued into a capture would run when the graph is launched,
/// long after the host slice is gone; it is a typed error, and the capture survives.
#[test]
fn host_copies_on_a_capturing_stream_are_a_typed_error() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let buf = d.alloc_on(4096, &s).unwrap();
        s.synchronize().unwrap();
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        let up = buf.copy_from_host(&s, &[1u8; 4096]);
        assert!(
            matches!(up, Err(HipError::StreamCapturing { .. })),
            "[{}] {up:?}",
            h.name
        );
        let mut back = vec![0u8; 4096];
        let down = buf.copy_to_host(&s, &mut back);
        assert!(
            matches!(down, Err(HipError::StreamCapturing { .. })),
            "[{}] {down:?}",
            h.name
        );
        let g = s.end_capture().expect("the capture is still valid");
        h.rt.platform().destroy_graph(g).unwrap();
        buf.free_on(&s).unwrap();
    }
}
