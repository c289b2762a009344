//! Memory statistics and the memory limit through one API on every backend: the CPU
//! reference, wgpu (lavapipe in CI; required with `GPUARRAYS_REQUIRE_WGPU=1`), HIP on the
//! test double (and on a real device when one is present), each directly and through
//! `AnyBackend`.

use std::sync::Arc;

use gpuarrays::hip::kernels::DiskCache;
use gpuarrays::hip::platform::test_double::{FakeConfig, FakePlatform};
use gpuarrays::hip::{HipBackend, HipRuntime, RuntimeConfig};
use gpuarrays::prelude::*;
use gpuarrays::{BackendKind, ErrorKind};

const MIB: usize = 1 << 20;

/// Allocates, frees, caps and empties on `b`, checking the statistics at each step.
fn exercise<B: Backend>(b: &B) {
    let name = b.device().to_string();
    b.synchronize().expect("sync");
    let start = b.memory_stats();
    assert!(start.tracked, "{name}: memory is tracked");
    b.reset_peak_memory();

    let a = Array::<f32, _>::zeros(b, &[4 * MIB / 4]).expect("4 MiB");
    let held = b.memory_stats();
    assert!(
        held.in_use_bytes >= start.in_use_bytes + 4 * MIB,
        "{name}: an array of 4 MiB counts in use: {start} -> {held}"
    );
    assert!(held.peak_bytes >= held.in_use_bytes, "{name}: {held}");

    drop(a);
    b.synchronize().expect("sync");
    let freed = b.memory_stats();
    assert!(
        freed.in_use_bytes + 4 * MIB <= held.in_use_bytes,
        "{name}: freeing gives the bytes back: {held} -> {freed}"
    );
    assert!(
        freed.peak_bytes >= held.in_use_bytes,
        "{name}: the peak stays: {freed}"
    );

    // A limit 1 MiB above what is in use refuses 4 MiB, names the limit, and counts nothing.
    let limit = freed.in_use_bytes + MIB;
    b.set_memory_limit(Some(limit)).expect("a limit");
    assert_eq!(b.memory_stats().limit_bytes, Some(limit));
    let refused = Array::<f32, _>::zeros(b, &[4 * MIB / 4]).expect_err("over the limit");
    assert_eq!(refused.kind(), ErrorKind::OutOfMemory, "{name}: {refused}");
    assert!(refused.to_string().contains("limit"), "{name}: {refused}");
    assert_eq!(b.memory_stats().in_use_bytes, freed.in_use_bytes, "{name}");
    let small = Array::<f32, _>::zeros(b, &[1024]).expect("under the limit");
    drop(small);
    b.set_memory_limit(None).expect("no limit");
    assert_eq!(b.memory_stats().limit_bytes, None);
    drop(Array::<f32, _>::zeros(b, &[4 * MIB / 4]).expect("no limit any more"));

    b.synchronize().expect("sync");
    b.empty_cache().expect("empty the cache");
    assert_eq!(
        b.memory_stats().cached_bytes,
        0,
        "{name}: the cache is empty"
    );
    b.reset_peak_memory();
    let after = b.memory_stats();
    assert_eq!(
        after.peak_bytes, after.in_use_bytes,
        "{name}: the peak restarts"
    );
}

#[test]
fn the_cpu_reference_tracks_its_memory() {
    let cpu = CpuBackend::new();
    exercise(&cpu);
    exercise(&AnyBackend::from(cpu));
}

#[test]
fn wgpu_tracks_its_memory_and_its_pool() {
    match AnyBackend::open(BackendKind::Wgpu, 0) {
        Ok(w) => {
            // Freed buffers go to the pool: cached until emptied.
            drop(Array::<f32, _>::zeros(&w, &[MIB]).expect("alloc"));
            w.synchronize().expect("sync");
            assert!(
                w.memory_stats().cached_bytes >= 4 * MIB,
                "{}",
                w.memory_stats()
            );
            exercise(&w);
        }
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter: {e}")
        }
        Err(e) => eprintln!("wgpu skipped: {e}"),
    }
}

#[test]
fn hip_tracks_its_pool_on_the_test_double() {
    let platform = Arc::new(FakePlatform::new(FakeConfig::default()));
    let runtime = HipRuntime::new(platform, RuntimeConfig::default()).expect("fake runtime");
    let hip = HipBackend::with_runtime(runtime, 0, DiskCache::off()).expect("fake HIP device");
    drop(Array::<f32, _>::zeros(&hip, &[MIB]).expect("alloc"));
    hip.synchronize().expect("sync");
    assert!(
        hip.memory_stats().cached_bytes >= 4 * MIB,
        "{}",
        hip.memory_stats()
    );
    exercise(&hip);
    exercise(&AnyBackend::from(hip));
}

#[test]
fn a_hip_device_tracks_its_memory() {
    match AnyBackend::open(BackendKind::Hip, 0) {
        Ok(h) => exercise(&h),
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_GPU=1 but no HIP device: {e}")
        }
        Err(e) => eprintln!("hip skipped: {e}"),
    }
}
