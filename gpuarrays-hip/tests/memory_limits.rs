//! The memory pool at its limits: requests no device can hold (up to `usize::MAX`), what an
//! out-of-memory retry gets back from the release hooks, and frees whose uses cannot be
//! fenced by an event. Double and, where present, GPU (the fault-injection steps are the
//! double's).

mod common;

use common::*;
use gpuarrays_core::{Array, Backend, Error};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{Completion, FakeConfig};
use gpuarrays_hip::platform::{CaptureMode, codes};
use gpuarrays_hip::{Access, DeviceBuffer, HipBackend, HipError, RuntimeConfig, StreamPriority};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

/// Sizes no device holds, on both sides of 2^63 (where rounding a request up to its size
/// class overflows) and up to `usize::MAX`.
const HUGE: [usize; 7] = [
    1 << 63,
    (1 << 63) + 1,
    (1 << 63) + (1 << 62),
    usize::MAX - 511,
    usize::MAX - 1,
    usize::MAX,
    (1 << 62) + 1,
];

/// Every such request is a typed out-of-memory error that names it — never a panic, never
/// an untyped error — on an ordinary stream and on a capturing one (whose capture survives),
/// and the pool is intact after.
#[test]
fn requests_up_to_usize_max_are_out_of_memory_and_never_panic() {
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let check =
            |bytes: usize, r: std::thread::Result<gpuarrays_hip::Result<DeviceBuffer>>| match r {
                Ok(Err(HipError::OutOfMemory {
                    requested,
                    free,
                    total,
                    ..
                })) => {
                    assert_eq!(requested, bytes, "[{}]", h.name);
                    assert!(free <= total, "[{}] {free} of {total}", h.name);
                }
                Ok(other) => panic!(
                    "[{}] {bytes} bytes: expected OutOfMemory, got {other:?}",
                    h.name
                ),
                Err(_) => panic!("[{}] allocating {bytes} bytes panicked", h.name),
            };
        for bytes in HUGE {
            check(
                bytes,
                std::panic::catch_unwind(AssertUnwindSafe(|| d.alloc_on(bytes, &s))),
            );
        }
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        for bytes in [(1usize << 63) + 1, usize::MAX] {
            check(
                bytes,
                std::panic::catch_unwind(AssertUnwindSafe(|| d.alloc_on(bytes, &s))),
            );
        }
        let g = s
            .end_capture()
            .expect("the capture survived the refused requests");
        h.rt.platform().destroy_graph(g).unwrap();
        let b = d.alloc_on(4096, &s).expect("the pool still allocates");
        b.free_on(&s).unwrap();
        assert_eq!(d.memory().stats().in_use_bytes, 0, "[{}]", h.name);
    }
}

/// Through core: `Backend::alloc` of 2^63 + 1 bytes, and a reduction whose result needs that
/// many (`u8 [0, 2^63 + 1].sum_axis(0)`), are core's out-of-memory error with the request.
#[test]
fn core_requests_over_2_pow_63_are_out_of_memory() {
    for h in default_harnesses() {
        let hip = HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).unwrap();
        let bytes = (1usize << 63) + 1;
        match std::panic::catch_unwind(AssertUnwindSafe(|| hip.alloc(bytes).map(|_| ()))) {
            Ok(Err(Error::OutOfMemory { requested, .. })) => assert_eq!(requested, Some(bytes)),
            Ok(other) => panic!("[{}] expected OutOfMemory, got {other:?}", h.name),
            Err(_) => panic!("[{}] Backend::alloc panicked", h.name),
        }
        let empty = Array::<u8, _>::zeros(&hip, &[0, bytes]).unwrap();
        match std::panic::catch_unwind(AssertUnwindSafe(|| empty.sum_axis(0).map(|_| ()))) {
            Ok(Err(Error::OutOfMemory { requested, .. })) => assert!(requested >= Some(bytes)),
            Ok(other) => panic!("[{}] expected OutOfMemory, got {other:?}", h.name),
            Err(_) => panic!("[{}] sum_axis panicked", h.name),
        }
    }
}

/// A release hook that frees memory through the pool (here a buffer it holds; the FFT hook
/// drops work areas the same way) must see that memory back with the platform before the
/// retry, not parked in the pool's cache.
#[test]
fn what_release_hooks_free_through_the_pool_reaches_the_platform_before_the_retry() {
    let h = fake_harness(
        FakeConfig {
            memory_per_device: 1 << 20,
            ..FakeConfig::default()
        },
        RuntimeConfig::default(),
    );
    let d = h.rt.device(D0).unwrap().clone();
    let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
    let held: Arc<Mutex<Option<DeviceBuffer>>> =
        Arc::new(Mutex::new(Some(d.alloc_on(512 << 10, &s).unwrap())));
    let h2 = held.clone();
    d.memory().release_hooks().register(
        "a buffer held by the test",
        Arc::new(move |_| {
            drop(h2.lock().unwrap().take());
            0
        }),
    );
    // 768 KiB fit only once the held 512 KiB are back with the platform.
    let big = d
        .alloc_on(768 << 10, &s)
        .expect("the retry gets the memory the hook freed");
    let st = d.memory().stats();
    assert_eq!((st.oom_recovered, st.cached_blocks), (1, 0), "{st:?}");
    assert!(held.lock().unwrap().is_none());
    big.free_on(&s).unwrap();
}

/// The `released` bytes an out-of-memory error reports are the bytes the platform got back
/// before the retry: here the 512 KiB a hook freed through the pool, while another 384 KiB
/// stay in use and the request still does not fit.
#[test]
fn released_bytes_are_what_the_platform_got_back() {
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
    let kept = d.alloc_on(384 << 10, &s).unwrap();
    let held: Arc<Mutex<Option<DeviceBuffer>>> =
        Arc::new(Mutex::new(Some(d.alloc_on(512 << 10, &s).unwrap())));
    let h2 = held.clone();
    d.memory().release_hooks().register(
        "a buffer held by the test",
        Arc::new(move |_| {
            drop(h2.lock().unwrap().take());
            0
        }),
    );
    let before = f.allocated_bytes(D0);
    match d.alloc_on(768 << 10, &s) {
        Err(HipError::OutOfMemory {
            requested,
            released,
            ..
        }) => {
            assert_eq!(requested, 768 << 10);
            let returned = before - f.allocated_bytes(D0);
            assert_eq!(returned, 512 << 10, "the hook's buffer went back");
            assert_eq!(released, returned, "released counts what went back, once");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    kept.free_on(&s).unwrap();
}

/// A use whose completion event cannot be recorded (the driver refused the record) must not
/// let its memory be reused while it may still run: the free waits for that use on the host,
/// so a reuse of the block on a third stream is ordered after it (the race detector is
/// empty) and the use has completed when the free returns.
#[test]
fn a_use_that_cannot_be_fenced_by_an_event_is_waited_for_before_reuse() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let p = h.rt.platform().clone();
    let d = h.rt.device(D0).unwrap().clone();
    let [s1, s2, s3] = [(); 3].map(|()| h.rt.create_stream(D0, StreamPriority::Normal).unwrap());
    let b = d.alloc_on(4096, &s1).unwrap();
    // A write on s1 still queued behind other work when the buffer is freed.
    let busy = f.hold(s1.handle(), Completion::AfterQueries(1_000_000));
    d.enqueue(&s1, &[Access::write(&b)], |s| {
        // SAFETY: `b` is a live 4096-byte allocation, ordered on `s` by the protocol.
        unsafe { p.memset_async(b.ptr(), 1, 4096, s.handle()) }
    })
    .unwrap();
    f.fail_next_event_records(1);
    b.free_on(&s2)
        .expect("the free succeeds by waiting on the host");
    assert!(
        f.is_done(busy),
        "the free returned while the use it could not fence was still queued"
    );
    let c = d.alloc_on(4096, &s3).unwrap();
    d.enqueue(&s3, &[Access::write(&c)], |s| {
        // SAFETY: `c` is a live 4096-byte allocation, ordered on `s` by the protocol.
        unsafe { p.memset_async(c.ptr(), 2, 4096, s.handle()) }
    })
    .unwrap();
    s3.synchronize().unwrap();
    assert!(f.races().is_empty(), "{:#?}", f.races());
    c.free_on(&s3).unwrap();
}

/// When even the host wait fails (the used stream reports an error), the block is never
/// handed out again: it is left allocated, counted as leaked, and the free reports it.
#[test]
fn a_block_whose_use_can_be_neither_fenced_nor_waited_for_is_not_reused() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let p = h.rt.platform().clone();
    let d = h.rt.device(D0).unwrap().clone();
    let [s1, s2] = [(); 2].map(|()| h.rt.create_stream(D0, StreamPriority::Normal).unwrap());
    let b = d.alloc_on(4096, &s1).unwrap();
    let ptr = b.ptr();
    let _busy = f.hold(s1.handle(), Completion::Manual);
    d.enqueue(&s1, &[Access::write(&b)], |s| {
        // SAFETY: `b` is a live 4096-byte allocation, ordered on `s` by the protocol.
        unsafe { p.memset_async(b.ptr(), 1, 4096, s.handle()) }
    })
    .unwrap();
    f.fail_next_event_records(1);
    f.set_stream_error(s1.handle(), codes::LAUNCH_FAILURE);
    assert!(b.free_on(&s2).is_err(), "the free reports the leak");
    let st = d.memory().stats();
    assert_eq!(
        (st.cached_blocks, st.in_use_bytes, st.leaked_bytes),
        (0, 0, 4096),
        "{st:?}"
    );
    assert!(f.is_allocated(ptr), "left allocated, not freed early");
    let c = d.alloc_on(4096, &s2).unwrap();
    assert_ne!(c.ptr(), ptr, "never handed out again");
    c.free_on(&s2).unwrap();
}
