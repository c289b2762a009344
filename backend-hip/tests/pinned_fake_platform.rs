//! Page-locked ("pinned") host memory on the platform test double, through the `Platform`
//! trait: allocation, freeing and fault injection; copies into pinned memory arriving only
//! when the host sees them complete; a host-to-device copy's pinned source overwritten too
//! early, and pinned memory freed under a queued copy, reported as violations; and a
//! correctly ordered triple-buffered staging pipeline reporting none.

use gpuarrays_hip::platform::codes;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakePlatform, PINNED_FILL};
use gpuarrays_hip::platform::{DeviceId, DevicePtr, EventHandle, StreamHandle, WorkStatus};
use gpuarrays_hip::{HipError, Platform};
use std::ffi::c_void;
use std::time::Duration;

const D0: DeviceId = DeviceId(0);
const COPY: Duration = Duration::from_millis(20);

/// Free `slot` (allocated by the test, its copies completed) and check the double saw no
/// violation.
fn free_without_violations(p: &FakePlatform, slot: *mut u8) {
    // SAFETY: the caller allocated `slot` with `host_alloc_pinned`, frees it once, and its
    // copies completed.
    unsafe { p.host_free_pinned(D0, slot) }.unwrap();
    assert!(
        p.pinned_violations().is_empty(),
        "{:?}",
        p.pinned_violations()
    );
}

/// A double whose copies take `copy_time`, this thread bound to device 0, and a stream.
fn setup(copy_time: Duration) -> (FakePlatform, StreamHandle) {
    let p = FakePlatform::new(FakeConfig {
        copy_time,
        ..FakeConfig::default()
    });
    p.bind_device(D0).unwrap();
    let s = p.create_stream(D0, 0).unwrap();
    (p, s)
}

/// Bytes distinct from position to position (no period) and from seed to seed.
fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n as u32)
        .map(|i| ((i.wrapping_add(1).wrapping_mul(2_654_435_761) >> 24) as u8) ^ seed)
        .collect()
}

/// The bytes at a pinned pointer.
fn read(ptr: *mut u8, n: usize) -> Vec<u8> {
    // SAFETY: every caller passes a live pinned allocation of at least `n` bytes; the double
    // writes it only inside its own calls, and this test thread makes none meanwhile.
    unsafe { std::slice::from_raw_parts(ptr, n) }.to_vec()
}

fn write(ptr: *mut u8, bytes: &[u8]) {
    // SAFETY: every caller passes a live pinned allocation of at least `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len()) };
}

fn htod(p: &FakePlatform, dst: DevicePtr, src: *const u8, n: usize, s: StreamHandle) {
    // SAFETY: `src` is readable for `n` bytes until the copy completes (or, when the test
    // means to break that, it is pinned memory of the double, which stays allocated).
    unsafe { p.copy_htod_async(dst, src as *const c_void, n, s) }.unwrap();
}

fn dtoh(p: &FakePlatform, dst: *mut u8, src: DevicePtr, n: usize, s: StreamHandle) {
    // SAFETY: `dst` is writable for `n` bytes until the copy completes.
    unsafe { p.copy_dtoh_async(dst as *mut c_void, src, n, s) }.unwrap();
}

/// What device memory holds, read back through pageable memory (synchronously).
fn device_bytes(p: &FakePlatform, src: DevicePtr, n: usize, s: StreamHandle) -> Vec<u8> {
    let mut out = vec![0u8; n];
    dtoh(p, out.as_mut_ptr(), src, n, s);
    p.synchronize_stream(s).unwrap();
    out
}

fn recorded(p: &FakePlatform, s: StreamHandle) -> EventHandle {
    let e = p.create_event(D0).unwrap();
    p.record_event(e, s).unwrap();
    e
}

#[test]
fn allocations_are_counted_aligned_filled_and_freed() {
    let (p, _) = setup(Duration::ZERO);
    assert_eq!((p.pinned_live(), p.pinned_allocs_made()), (0, 0));
    let sizes = [8 << 20, 100, 0];
    let ptrs: Vec<*mut u8> = sizes
        .iter()
        .map(|&n| p.host_alloc_pinned(D0, n).unwrap())
        .collect();
    assert_eq!((p.pinned_live(), p.pinned_allocs_made()), (3, 3));
    assert_eq!(p.pinned_live_bytes(), (8 << 20) + 100);
    for &ptr in &ptrs {
        assert!(!ptr.is_null());
        assert_eq!(ptr.addr() % 4096, 0, "pinned memory is page-aligned");
    }
    assert!(read(ptrs[1], 100).iter().all(|&b| b == PINNED_FILL));
    assert!(read(ptrs[0], 8 << 20).iter().all(|&b| b == PINNED_FILL));

    // SAFETY: allocated above, freed once, no copy uses it.
    unsafe { p.host_free_pinned(D0, ptrs[0]) }.unwrap();
    assert_eq!((p.pinned_live(), p.pinned_allocs_made()), (2, 3));
    assert_eq!(p.pinned_live_bytes(), 100);
    // The other two stay live until the double is dropped, which frees them.
    drop(p);
}

#[test]
fn injected_failures_fail_the_next_allocations_only() {
    let (p, _) = setup(Duration::ZERO);
    p.fail_next_pinned_allocs(2);
    for _ in 0..2 {
        let err = p.host_alloc_pinned(D0, 4096).unwrap_err();
        assert_eq!(err.api_code(), Some(codes::OUT_OF_MEMORY), "{err}");
    }
    assert_eq!((p.pinned_live(), p.pinned_allocs_made()), (0, 0));
    let ptr = p.host_alloc_pinned(D0, 4096).unwrap();
    assert_eq!((p.pinned_live(), p.pinned_allocs_made()), (1, 1));
    // SAFETY: allocated above, freed once.
    unsafe { p.host_free_pinned(D0, ptr) }.unwrap();
    assert_eq!(p.pinned_live(), 0);
}

#[test]
fn an_unknown_device_is_refused() {
    let (p, _) = setup(Duration::ZERO);
    assert!(matches!(
        p.host_alloc_pinned(DeviceId(7), 64),
        Err(HipError::InvalidDevice { .. })
    ));
    assert_eq!(p.pinned_allocs_made(), 0);
}

#[test]
fn foreign_pointers_and_double_frees_are_errors() {
    let (p, _) = setup(Duration::ZERO);
    let mut pageable = vec![0u8; 64];
    // SAFETY: the double checks the pointer; it is not pinned, so it is not freed.
    let err = unsafe { p.host_free_pinned(D0, pageable.as_mut_ptr()) }.unwrap_err();
    assert_eq!(err.api_code(), Some(codes::INVALID_VALUE), "{err}");
    assert_eq!(p.pinned_invalid_frees(), 1);

    let a = p.host_alloc_pinned(D0, 256).unwrap();
    let b = p.host_alloc_pinned(D0, 256).unwrap();
    // SAFETY: allocated above, freed once here, no copy uses it.
    unsafe { p.host_free_pinned(D0, a) }.unwrap();
    // SAFETY: a second free of `a`: the double checks the pointer and frees nothing.
    let err = unsafe { p.host_free_pinned(D0, a) }.unwrap_err();
    assert_eq!(err.api_code(), Some(codes::INVALID_VALUE), "{err}");
    assert_eq!(p.pinned_invalid_frees(), 2);
    assert_eq!(p.pinned_live(), 1, "the failed free did not free `b`");
    // SAFETY: allocated above, freed once.
    unsafe { p.host_free_pinned(D0, b) }.unwrap();
    assert_eq!(p.pinned_live(), 0);
    assert!(p.pinned_violations().is_empty());
}

#[test]
fn a_copy_into_pinned_memory_lands_only_once_the_host_sees_it_complete() {
    let (p, s) = setup(COPY);
    let n = 4096;
    let data = pattern(n, 3);
    let dev = p.alloc_async(n, s).unwrap();
    htod(&p, dev, data.as_ptr(), n, s);
    p.synchronize_stream(s).unwrap();

    let slot = p.host_alloc_pinned(D0, n).unwrap();
    dtoh(&p, slot, dev, n, s);
    let e = recorded(&p, s);
    assert_eq!(p.query_event(e), WorkStatus::Busy);
    assert!(
        read(slot, n).iter().all(|&b| b == PINNED_FILL),
        "the slot still holds its old bytes while the copy is in flight"
    );
    assert_eq!(p.pinned_copies_pending(), 1);

    // Finished by the clock, but nobody looked: on a GPU, reading now is a race.
    std::thread::sleep(3 * COPY);
    assert!(read(slot, n).iter().all(|&b| b == PINNED_FILL));

    p.synchronize_event(e).unwrap();
    assert_eq!(
        read(slot, n),
        data,
        "the copy landed when the event was synchronized"
    );
    assert_eq!(p.pinned_copies_pending(), 0);

    // A second copy, observed by polling the event.
    let second = pattern(n, 99);
    htod(&p, dev, second.as_ptr(), n, s);
    p.synchronize_stream(s).unwrap();
    dtoh(&p, slot, dev, n, s);
    p.record_event(e, s).unwrap();
    assert_eq!(read(slot, n), data, "still the first copy's bytes");
    let mut polls = 0;
    while p.query_event(e) == WorkStatus::Busy {
        polls += 1;
        assert!(polls < 10_000, "the copy never completed");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(read(slot, n), second);

    free_without_violations(&p, slot);
}

#[test]
fn synchronizing_the_stream_or_device_lands_the_copy_too() {
    let (p, s) = setup(COPY);
    let n = 512;
    let data = pattern(n, 7);
    let dev = p.alloc_async(n, s).unwrap();
    htod(&p, dev, data.as_ptr(), n, s);
    let slot = p.host_alloc_pinned(D0, 2 * n).unwrap();

    dtoh(&p, slot, dev, n, s);
    assert!(read(slot, n).iter().all(|&b| b == PINNED_FILL));
    p.synchronize_stream(s).unwrap();
    assert_eq!(read(slot, n), data);

    // Into the second half of the allocation, observed by a device synchronize.
    // SAFETY: `n` bytes past `slot` lie inside its 2n-byte allocation.
    let upper = unsafe { slot.add(n) };
    dtoh(&p, upper, dev, n, s);
    assert!(read(upper, n).iter().all(|&b| b == PINNED_FILL));
    p.synchronize_device(D0).unwrap();
    assert_eq!(read(upper, n), data);
    assert_eq!(read(slot, n), data, "the first half is untouched");

    free_without_violations(&p, slot);
}

#[test]
fn instant_copies_and_pageable_memory_move_their_bytes_at_once() {
    // Copies that take no time with nothing queued before them complete at once.
    let (p, s) = setup(Duration::ZERO);
    let n = 256;
    let data = pattern(n, 11);
    let dev = p.alloc_async(n, s).unwrap();
    htod(&p, dev, data.as_ptr(), n, s);
    let slot = p.host_alloc_pinned(D0, n).unwrap();
    dtoh(&p, slot, dev, n, s);
    assert_eq!(read(slot, n), data);
    assert_eq!(p.pinned_copies_pending(), 0);
    // SAFETY: allocated above, freed once, its copy completed.
    unsafe { p.host_free_pinned(D0, slot) }.unwrap();

    // With slow copies, pageable host memory still gets its bytes at enqueue, as before.
    let (p, s) = setup(COPY);
    let dev = p.alloc_async(n, s).unwrap();
    htod(&p, dev, data.as_ptr(), n, s);
    let mut out = vec![0u8; n];
    dtoh(&p, out.as_mut_ptr(), dev, n, s);
    assert_eq!(out, data);
    assert_eq!(p.pinned_copies_pending(), 0);
    p.synchronize_stream(s).unwrap();
    assert!(p.pinned_violations().is_empty());
}

#[test]
fn a_pinned_source_overwritten_before_its_copy_completed_is_a_violation() {
    let (p, s) = setup(COPY);
    let n = 1024;
    let first = pattern(n, 1);
    let dev = p.alloc_async(n, s).unwrap();
    let slot = p.host_alloc_pinned(D0, n).unwrap();

    write(slot, &first);
    htod(&p, dev, slot, n, s);
    let e = recorded(&p, s);
    write(slot, &pattern(n, 2)); // refilled before the copy completed
    assert!(
        p.pinned_violations().is_empty(),
        "found when the copy completes"
    );
    p.synchronize_event(e).unwrap();
    let v = p.pinned_violations();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("overwritten before the copy completed") && v[0].contains("1024 bytes"),
        "{v:?}"
    );
    // SAFETY: allocated above, freed once, its copy completed.
    unsafe { p.host_free_pinned(D0, slot) }.unwrap();
}

#[test]
fn a_pinned_source_refilled_after_synchronizing_is_fine() {
    let (p, s) = setup(COPY);
    let n = 1024;
    let (first, second) = (pattern(n, 1), pattern(n, 2));
    let dev = p.alloc_async(n, s).unwrap();
    let slot = p.host_alloc_pinned(D0, n).unwrap();

    write(slot, &first);
    htod(&p, dev, slot, n, s);
    let e = recorded(&p, s);
    p.synchronize_event(e).unwrap();
    write(slot, &second);
    assert_eq!(device_bytes(&p, dev, n, s), first);

    htod(&p, dev, slot, n, s);
    p.record_event(e, s).unwrap();
    p.synchronize_event(e).unwrap();
    write(slot, &first);
    assert_eq!(device_bytes(&p, dev, n, s), second);

    free_without_violations(&p, slot);
}

#[test]
fn freeing_pinned_memory_under_a_queued_copy_is_a_violation() {
    let (p, s) = setup(COPY);
    let n = 2048;
    let dev = p.alloc_async(n, s).unwrap();
    let data = pattern(n, 5);
    htod(&p, dev, data.as_ptr(), n, s);

    // Device to host: the landing is dropped, never written into freed memory.
    let slot = p.host_alloc_pinned(D0, n).unwrap();
    dtoh(&p, slot, dev, n, s);
    // SAFETY: allocated above, freed once; the queued copy is what the test is about (the
    // double drops its landing).
    unsafe { p.host_free_pinned(D0, slot) }.unwrap();
    assert_eq!(p.pinned_live(), 0, "it was still freed");
    assert_eq!(p.pinned_copies_pending(), 0, "its landing was dropped");
    let v = p.pinned_violations();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("was freed while a device-to-host copy into it"),
        "{v:?}"
    );
    p.synchronize_stream(s).unwrap();

    // Host to device.
    let src = p.host_alloc_pinned(D0, n).unwrap();
    write(src, &data);
    htod(&p, dev, src, n, s);
    // SAFETY: as above.
    unsafe { p.host_free_pinned(D0, src) }.unwrap();
    let v = p.pinned_violations();
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[1].contains("was freed while a host-to-device copy from it"),
        "{v:?}"
    );
    p.synchronize_stream(s).unwrap();
    assert_eq!(p.pinned_violations().len(), 2);
}

#[test]
fn a_host_range_partly_in_pinned_memory_is_refused() {
    let (p, s) = setup(Duration::ZERO);
    let n = 4096;
    let dev = p.alloc_async(2 * n, s).unwrap();
    let slot = p.host_alloc_pinned(D0, n).unwrap();
    // SAFETY: the double refuses the copy before touching host memory.
    let err = unsafe { p.copy_dtoh_async(slot as *mut c_void, dev, 2 * n, s) }.unwrap_err();
    assert_eq!(err.api_code(), Some(codes::INVALID_VALUE), "{err}");
    // SAFETY: as above.
    let err = unsafe { p.copy_htod_async(dev, slot as *const c_void, n + 1, s) }.unwrap_err();
    assert_eq!(err.api_code(), Some(codes::INVALID_VALUE), "{err}");
    assert!(read(slot, n).iter().all(|&b| b == PINNED_FILL));
    // SAFETY: allocated above, freed once, no copy was enqueued.
    unsafe { p.host_free_pinned(D0, slot) }.unwrap();
}

/// A triple-buffered staging pipeline, as the runtime runs one: device-to-host, each chunk's
/// copy into a slot followed by an event, the slot read after its event; host-to-device,
/// each slot refilled only after its previous copy's event.
#[test]
fn an_ordered_triple_buffered_pipeline_is_clean_and_a_hasty_one_is_not() {
    let (p, s) = setup(Duration::from_millis(2));
    let (chunk, chunks) = (1 << 12, 10);
    let total = chunk * chunks;
    let data = pattern(total, 9);
    let dev = p.alloc_async(total, s).unwrap();
    let back = p.alloc_async(total, s).unwrap();
    htod(&p, dev, data.as_ptr(), total, s);
    let slots: Vec<*mut u8> = (0..3)
        .map(|_| p.host_alloc_pinned(D0, chunk).unwrap())
        .collect();
    let events: Vec<EventHandle> = (0..3).map(|_| p.create_event(D0).unwrap()).collect();
    let at = |base: DevicePtr, i: usize| DevicePtr(base.0 + (i * chunk) as u64);

    // Device to host, ordered.
    let mut out = vec![0u8; total];
    for i in 0..chunks + 2 {
        if i >= 2 {
            let j = i - 2; // drain chunk j
            p.synchronize_event(events[j % 3]).unwrap();
            out[j * chunk..(j + 1) * chunk].copy_from_slice(&read(slots[j % 3], chunk));
        }
        if i < chunks {
            dtoh(&p, slots[i % 3], at(dev, i), chunk, s);
            p.record_event(events[i % 3], s).unwrap();
        }
    }
    assert!(out == data, "the ordered pipeline read every chunk back");

    // Host to device, ordered.
    for i in 0..chunks {
        if i >= 3 {
            p.synchronize_event(events[i % 3]).unwrap();
        }
        write(slots[i % 3], &data[i * chunk..(i + 1) * chunk]);
        htod(&p, at(back, i), slots[i % 3], chunk, s);
        p.record_event(events[i % 3], s).unwrap();
    }
    p.synchronize_stream(s).unwrap();
    assert!(device_bytes(&p, back, total, s) == data);
    assert!(
        p.pinned_violations().is_empty(),
        "{:?}",
        p.pinned_violations()
    );

    // Host to device without waiting before refilling a slot.
    for i in 0..chunks {
        write(slots[i % 3], &data[i * chunk..(i + 1) * chunk]);
        htod(&p, at(back, i), slots[i % 3], chunk, s);
        p.record_event(events[i % 3], s).unwrap();
    }
    p.synchronize_stream(s).unwrap();
    assert!(
        !p.pinned_violations().is_empty(),
        "refilling slots still in flight is caught"
    );

    // Device to host, reading each slot without waiting for its event.
    let mut hasty = vec![0u8; total];
    for i in 0..chunks {
        dtoh(&p, slots[i % 3], at(dev, i), chunk, s);
        p.record_event(events[i % 3], s).unwrap();
        hasty[i * chunk..(i + 1) * chunk].copy_from_slice(&read(slots[i % 3], chunk));
    }
    p.synchronize_stream(s).unwrap();
    assert!(
        hasty != data,
        "reading slots before their copies land gets stale bytes"
    );

    for slot in slots {
        // SAFETY: allocated above, freed once, every copy completed.
        unsafe { p.host_free_pinned(D0, slot) }.unwrap();
    }
    assert_eq!(p.pinned_live(), 0);
}
