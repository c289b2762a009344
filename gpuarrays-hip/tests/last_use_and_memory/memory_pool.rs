//! The caching memory pool: reuse, out-of-memory and its retry, copies, trim, captures.

use super::*;

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
