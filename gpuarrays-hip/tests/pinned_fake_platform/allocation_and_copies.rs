//! Pinned allocation and its faults, and when copies into pinned memory land.

use super::*;

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
