//! Large copies between a device buffer and pageable host memory go through pinned chunks
//! (`device/staged_copy.rs`). These tests shrink the chunks so every boundary case is cheap,
//! and run on the test double (whose copies into pinned memory land only when they complete,
//! and which reports a pinned source overwritten before its copy completed) and on the GPU.

mod common;

use common::{D0, Harness, fake_harness, harnesses};
use gpuarrays_hip::memory::{StagingConfig, Streaming};
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::{DeviceBuffer, HipRuntime, RuntimeConfig};
use std::sync::Arc;
use std::time::Duration;

const CHUNK: usize = 64 << 10;

fn staged(min_bytes: usize, max_sets: usize) -> RuntimeConfig {
    RuntimeConfig {
        staging: StagingConfig {
            enabled: true,
            min_bytes,
            chunk_bytes: CHUNK,
            slots: 3,
            threads: 4,
            max_sets,
            streaming_stores: Streaming::Off,
        },
        ..RuntimeConfig::default()
    }
}

/// The double with copies that take time, so a chunk read before its copy completed, or a
/// slot refilled before its copy read it, shows.
fn slow_copies(config: RuntimeConfig) -> Harness {
    let fake = FakeConfig {
        copy_time: Duration::from_micros(300),
        ..FakeConfig::default()
    };
    fake_harness(fake, config)
}

/// Pin a staging set now (copies otherwise take the driver's path until the one pinned in
/// the background after the first copy is ready).
fn prepare(rt: &Arc<HipRuntime>) {
    rt.device(D0)
        .expect("device 0")
        .staging()
        .prepare()
        .expect("pin a staging set");
}

/// Wait (at most 10 s) until the double holds `n` pinned allocations.
fn wait_for_pinned(fake: &FakePlatform, n: usize) {
    let start = std::time::Instant::now();
    while fake.pinned_live() != n {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{} pinned allocations, expected {n}",
            fake.pinned_live()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn copies_logged(fake: &FakePlatform) -> usize {
    fake.log()
        .iter()
        .filter(|op| matches!(op, FakeOp::Copy { .. }))
        .count()
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u32)
                .wrapping_mul(2654435761)
                .rotate_left(seed as u32 % 32) as u8
                ^ seed
        })
        .collect()
}

fn alloc(rt: &Arc<HipRuntime>, bytes: usize) -> DeviceBuffer {
    rt.device(D0)
        .expect("device 0")
        .alloc(bytes)
        .expect("allocation")
}

fn check_round_trips(h: &Harness) {
    prepare(&h.rt);
    let dev = h.rt.device(D0).expect("device 0");
    let stream = dev.thread_stream().expect("stream");
    for &len in &[
        1,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        3 * CHUNK,
        3 * CHUNK + 5,
        7 * CHUNK + 333,
        (1 << 20) + 17,
    ] {
        for &offset in &[0usize, 4, 12345] {
            let total = offset + len + 64;
            let buf = alloc(&h.rt, total);
            let background = vec![0xEEu8; total];
            buf.copy_from_host(&stream, &background)
                .expect("background write");
            let data = pattern(len, (len + offset) as u8);
            buf.copy_from_host_at(&stream, offset, &data)
                .expect("write at offset");
            let mut back = vec![0u8; len];
            buf.copy_to_host_at(&stream, offset, &mut back)
                .expect("read at offset");
            assert!(
                back == data,
                "{}: {len} bytes at {offset} came back different",
                h.name
            );
            let mut whole = vec![0u8; total];
            buf.copy_to_host(&stream, &mut whole).expect("whole read");
            assert!(
                whole[..offset].iter().all(|&b| b == 0xEE)
                    && whole[offset + len..].iter().all(|&b| b == 0xEE),
                "{}: a write of {len} bytes at {offset} touched bytes outside its range",
                h.name
            );
            assert!(
                whole[offset..offset + len] == data,
                "{}: whole read differs",
                h.name
            );
        }
    }
    if let Some(fake) = &h.fake {
        assert_eq!(fake.pinned_violations(), Vec::<String>::new());
        assert!(fake.pinned_live() > 0, "nothing was staged");
        assert!(
            fake.pinned_live() <= 3,
            "one set of 3 chunks suffices for one thread"
        );
    }
}

#[test]
fn round_trips_at_every_chunk_boundary_and_offset() {
    let mut streaming = staged(1, 2);
    streaming.staging.streaming_stores = Streaming::On;
    let mut hs = harnesses(staged(1, 2));
    hs.extend(harnesses(streaming.clone()));
    hs.push(slow_copies(staged(1, 2)));
    hs.push(slow_copies(streaming));
    for h in &hs {
        check_round_trips(h);
    }
}

#[test]
fn small_copies_and_disabled_staging_take_the_drivers_path() {
    let mut off = staged(1, 2);
    off.staging.enabled = false;
    for (config, len) in [(staged(1 << 20, 2), (1 << 20) - 1), (off, 4 << 20)] {
        let h = slow_copies(config);
        let fake = h.fake.as_ref().expect("double");
        let dev = h.rt.device(D0).expect("device 0");
        let stream = dev.thread_stream().expect("stream");
        let buf = alloc(&h.rt, len);
        let data = pattern(len, 3);
        buf.copy_from_host(&stream, &data).expect("write");
        let mut back = vec![0u8; len];
        buf.copy_to_host(&stream, &mut back).expect("read");
        assert!(back == data);
        assert_eq!(fake.pinned_live(), 0, "a {len}-byte copy was staged");
    }
}

#[test]
fn a_failed_pinned_allocation_falls_back_to_the_drivers_path() {
    let h = slow_copies(staged(1, 1));
    let fake = h.fake.as_ref().expect("double");
    fake.fail_next_pinned_allocs(1);
    let dev = h.rt.device(D0).expect("device 0");
    assert!(dev.staging().prepare().is_err(), "the injected failure");
    assert_eq!(fake.pinned_live(), 0, "a half-made set was kept");
    let stream = dev.thread_stream().expect("stream");
    let len = 5 * CHUNK + 9;
    let buf = alloc(&h.rt, len);
    let data = pattern(len, 9);
    buf.copy_from_host(&stream, &data)
        .expect("write without staging");
    // That copy found no set and had one pinned in the background.
    wait_for_pinned(fake, 3);
    let before = copies_logged(fake);
    let mut back = vec![0u8; len];
    buf.copy_to_host(&stream, &mut back)
        .expect("read, now staged");
    assert!(back == data);
    assert_eq!(copies_logged(fake) - before, 6, "six chunks of 64 KiB");
    assert_eq!(fake.pinned_violations(), Vec::<String>::new());
}

/// The first large copy does not wait for a set to be pinned: it takes the driver's path
/// (one copy), and the copies after the background pinning are staged (one per chunk).
#[test]
fn the_first_copy_does_not_wait_for_pinning() {
    let h = slow_copies(staged(1, 2));
    let fake = h.fake.as_ref().expect("double");
    let stream =
        h.rt.device(D0)
            .and_then(|d| d.thread_stream())
            .expect("stream");
    let len = 4 * CHUNK;
    let buf = alloc(&h.rt, len);
    let before = copies_logged(fake);
    buf.copy_from_host(&stream, &pattern(len, 4))
        .expect("first write");
    assert_eq!(
        copies_logged(fake) - before,
        1,
        "the first copy was the driver's"
    );
    wait_for_pinned(fake, 3);
    let before = copies_logged(fake);
    let mut back = vec![0u8; len];
    buf.copy_to_host(&stream, &mut back).expect("staged read");
    assert_eq!(copies_logged(fake) - before, 4, "four chunks");
    assert!(back == pattern(len, 4));
    assert_eq!(fake.pinned_live(), 3, "one set sufficed");
}

#[test]
fn threads_beyond_the_set_limit_copy_correctly() {
    let mut hs = harnesses(staged(1, 2));
    hs.push(slow_copies(staged(1, 2)));
    for h in &hs {
        prepare(&h.rt);
        std::thread::scope(|scope| {
            for t in 0..6u8 {
                let rt = h.rt.clone();
                scope.spawn(move || {
                    let stream = rt
                        .device(D0)
                        .and_then(|d| d.thread_stream())
                        .expect("stream");
                    let len = 4 * CHUNK + 1000 * t as usize + 1;
                    let buf = alloc(&rt, len);
                    for round in 0..5u8 {
                        let data = pattern(len, t.wrapping_mul(31).wrapping_add(round));
                        buf.copy_from_host(&stream, &data).expect("write");
                        let mut back = vec![0u8; len];
                        buf.copy_to_host(&stream, &mut back).expect("read");
                        assert!(back == data, "thread {t} round {round}");
                    }
                });
            }
        });
        if let Some(fake) = &h.fake {
            assert!(
                fake.pinned_live() <= 6,
                "more than 2 sets of 3 chunks were made"
            );
            assert_eq!(fake.pinned_violations(), Vec::<String>::new());
            assert_eq!(fake.races(), Vec::<String>::new());
        }
    }
}

/// The staged copy is one ordered operation: a write from another thread lands wholly before
/// or wholly after a staged read of the same buffer, never between two of its chunks.
#[test]
fn a_concurrent_write_never_lands_between_the_chunks_of_a_read() {
    let h = fake_harness(
        FakeConfig {
            copy_time: Duration::from_millis(2),
            ..FakeConfig::default()
        },
        staged(1, 2),
    );
    let len = 16 * CHUNK;
    let buf = Arc::new(alloc(&h.rt, len));
    prepare(&h.rt);
    let old = vec![1u8; len];
    let stream =
        h.rt.device(D0)
            .and_then(|d| d.thread_stream())
            .expect("stream");
    buf.copy_from_host(&stream, &old).expect("first write");
    let back = std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let stream =
                h.rt.device(D0)
                    .and_then(|d| d.thread_stream())
                    .expect("stream");
            let mut back = vec![0u8; len];
            buf.copy_to_host(&stream, &mut back).expect("staged read");
            back
        });
        // The read takes ≥ 32 ms (16 chunks of 2 ms): the write starts during it.
        std::thread::sleep(Duration::from_millis(8));
        let stream =
            h.rt.device(D0)
                .and_then(|d| d.thread_stream())
                .expect("stream");
        buf.copy_from_host(&stream, &vec![2u8; len])
            .expect("concurrent write");
        reader.join().expect("reader")
    });
    let twos = back.iter().filter(|&&b| b == 2).count();
    assert!(
        twos == 0 || twos == len,
        "a torn read: {twos} of {len} bytes are the concurrent write's"
    );
    let fake = h.fake.as_ref().expect("double");
    assert_eq!(fake.pinned_violations(), Vec::<String>::new());
}

#[test]
fn staging_sets_are_freed_with_the_runtime() {
    let h = slow_copies(staged(1, 2));
    let fake = h.fake.clone().expect("double");
    {
        prepare(&h.rt);
        assert_eq!(fake.pinned_live(), 3);
        let stream =
            h.rt.device(D0)
                .and_then(|d| d.thread_stream())
                .expect("stream");
        let buf = alloc(&h.rt, 4 * CHUNK);
        buf.copy_from_host(&stream, &pattern(4 * CHUNK, 1))
            .expect("write");
        assert_eq!(fake.pinned_live(), 3, "the prepared set was used");
        assert_eq!(
            h.rt.device(D0).expect("device").staging().release_idle(),
            3 * CHUNK
        );
        assert_eq!(fake.pinned_live(), 0, "release_idle freed nothing");
        buf.copy_from_host(&stream, &pattern(4 * CHUNK, 2))
            .expect("write after release");
        wait_for_pinned(&fake, 3);
    }
    drop(h);
    // The background thread that pinned the set may hold the staging a moment longer.
    wait_for_pinned(&fake, 0);
}
