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

mod allocation_and_copies;
mod staging_violations;

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
