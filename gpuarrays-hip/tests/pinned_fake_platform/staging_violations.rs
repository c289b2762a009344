//! Pinned sources overwritten or freed too early, and a correct staging pipeline.

use super::*;

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
