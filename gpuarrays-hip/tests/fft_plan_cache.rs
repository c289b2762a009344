//! The HIP backend's FFT plan cache and work areas, on the platform test double (whose FFT is
//! a direct DFT on host memory, and which checks devices, work areas and plan ownership):
//! results through the public API, hot plans surviving cold churn with exact rebuild counts,
//! randomized invariants, `max = 0`, `clear`, two threads asking for one key, per-device
//! separation, out-of-memory eviction, reuse after the creating thread exited, and work areas
//! per stream. The GPU runs of the same paths are the HIP conformance test and the
//! `fft_plan_cache` bench.

use std::sync::{Arc, Barrier};

use gpuarrays_core::handle_cache::Limits;
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind, FftLayout};
use gpuarrays_core::{Array, Backend, Complex32, Complex64, DType, FftNorm};
use gpuarrays_hip::fft::parse_limits;
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{DeviceId, FftPlanDesc};
use gpuarrays_hip::{HipBackend, HipBuffer, HipRuntime, RuntimeConfig};

fn fake_with(config: FakeConfig) -> (Arc<FakePlatform>, Vec<HipBackend>) {
    let devices = config.devices;
    let platform = Arc::new(FakePlatform::new(config));
    let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("fake runtime");
    let backends = (0..devices)
        .map(|d| HipBackend::with_runtime(rt.clone(), d, DiskCache::off()).expect("backend"))
        .collect();
    (platform, backends)
}

fn fake() -> (Arc<FakePlatform>, HipBackend) {
    let (p, mut b) = fake_with(FakeConfig::default());
    (p, b.remove(0))
}

fn dft(x: &[Complex64], inverse: bool) -> Vec<Complex64> {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            (0..n)
                .map(|j| {
                    let a = sign * std::f64::consts::TAU * ((j * k) % n) as f64 / n as f64;
                    x[j] * Complex64::from_polar(1.0, a)
                })
                .sum()
        })
        .collect()
}

fn signal(n: usize) -> Vec<Complex64> {
    (0..n)
        .map(|i| Complex64::new((i as f64 * 0.37).sin(), (i as f64 * 0.11).cos()))
        .collect()
}

/// Points of each test buffer.
const POINTS: usize = 4096;

/// A forward C2C transform in f64 of `batch` transforms of `len` points each.
fn run_c2c(hip: &HipBackend, buffers: &(HipBuffer, HipBuffer), len: usize, batch: usize) {
    hip.fft(&args(buffers, len, batch))
        .unwrap_or_else(|e| panic!("fft on the double: {e}"));
}

fn args(buffers: &(HipBuffer, HipBuffer), len: usize, batch: usize) -> FftArgs<'_, HipBuffer> {
    FftArgs {
        kind: FftKind::C2C,
        direction: FftDirection::Forward,
        real: DType::F64,
        lengths: vec![len],
        batch,
        input: &buffers.0,
        input_layout: FftLayout::contiguous(0, len),
        output: &buffers.1,
        output_layout: FftLayout::contiguous(0, len),
    }
}

fn buffers(hip: &HipBackend) -> (HipBuffer, HipBuffer) {
    let bytes = POINTS * 16;
    (
        hip.alloc(bytes).expect("alloc"),
        hip.alloc(bytes).expect("alloc"),
    )
}

#[test]
fn ffts_through_the_public_api_compute_on_the_double() {
    let (platform, hip) = fake();
    let x = signal(12);
    let a = Array::from_slice(&hip, &[12], &x).unwrap();
    let got = a.fft(None, 0, FftNorm::Backward).unwrap().to_vec().unwrap();
    for (g, w) in got.iter().zip(dft(&x, false)) {
        assert!((g - w).norm() < 1e-9, "{g} vs {w}");
    }
    // Single precision, a batch of rows, the same plan twice.
    let rows: Vec<Complex32> = signal(3 * 8)
        .iter()
        .map(|c| Complex32::new(c.re as f32, c.im as f32))
        .collect();
    let b = Array::from_slice(&hip, &[3, 8], &rows).unwrap();
    let first = b.fft(None, 1, FftNorm::Backward).unwrap().to_vec().unwrap();
    let again = b.fft(None, 1, FftNorm::Backward).unwrap().to_vec().unwrap();
    assert_eq!(first, again);
    let row1: Vec<Complex64> = rows[8..16]
        .iter()
        .map(|c| Complex64::new(c.re as f64, c.im as f64))
        .collect();
    for (g, w) in first[8..16].iter().zip(dft(&row1, false)) {
        assert!((Complex64::new(g.re as f64, g.im as f64) - w).norm() < 1e-4);
    }
    let s = hip.fft_state().plan_cache().stats();
    assert_eq!((s.misses, s.hits, s.created, s.idle), (2, 1, 2, 2), "{s:?}");
    let ffts = platform
        .log()
        .iter()
        .filter(|op| matches!(op, FakeOp::Fft { .. }))
        .count();
    assert_eq!(ffts, 3);
}

/// 200 iterations of "H plans reused, then C plans used once" (the hot/cold churn,
/// at the default budgets): the hot plans are built exactly once each.
#[test]
fn hot_plans_survive_cold_churn_with_exact_rebuild_counts() {
    for (hot, cold) in [(1, 4), (4, 4), (8, 8), (16, 4)] {
        let (platform, hip) = fake();
        let bufs = buffers(&hip);
        let mut cold_batch = 100;
        for _ in 0..200 {
            for h in 0..hot {
                run_c2c(&hip, &bufs, 8 + h, 1);
            }
            for _ in 0..cold {
                // Every cold key is new: a batch count never used before.
                run_c2c(&hip, &bufs, 1, cold_batch);
                cold_batch += 1;
            }
        }
        let s = hip.fft_state().plan_cache().stats();
        let cold_keys = 200 * cold;
        let hot_rebuilds = s.misses as usize - cold_keys;
        assert_eq!(hot_rebuilds, hot, "(H, C) = ({hot}, {cold}): {s:?}");
        assert_eq!(s.hits as usize, 200 * hot - hot, "{s:?}");
        assert_eq!(platform.fft_stats().created, hot + cold_keys);
        assert!(
            s.idle <= 64 && s.evictions as usize >= cold_keys - 64,
            "{s:?}"
        );
        assert_eq!(platform.fft_stats().alive, s.live);
    }
}

/// Random leases, returns, budget changes, clears and evictions from four threads; after
/// every step the counters agree with each other, with the budgets and with the plans the
/// double holds.
#[test]
fn randomized_operations_keep_the_books_consistent() {
    let (platform, hip) = fake();
    let bufs = Arc::new(buffers(&hip));
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let (hip, bufs) = (hip.clone(), bufs.clone());
            std::thread::spawn(move || {
                let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (t + 1);
                for _ in 0..300 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let cache = hip.fft_state().plan_cache();
                    match x % 10 {
                        0 => cache.set_limits(Limits::new(
                            1 + (x >> 8) as usize % 4,
                            (x >> 12) as usize % 12,
                        )),
                        1 => {
                            cache.clear();
                        }
                        2 => {
                            cache.evict_idle((x >> 8) as usize % 50_000);
                        }
                        _ => run_c2c(&hip, &bufs, 1 + (x >> 20) as usize % 24, 1),
                    }
                    let (s, l) = (cache.stats(), cache.limits());
                    assert_eq!(s.live, s.checked_out + s.idle, "{s:?}");
                    assert_eq!(s.created - s.destroyed, s.live as u64, "{s:?}");
                    assert!(s.keys <= s.idle, "{s:?}");
                    // Another thread may have returned a plan over the budget just now; it
                    // is evicted before that thread's call returns.
                    assert!(s.idle <= l.max_idle + 3, "{s:?} {l:?}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let (s, l) = (
        hip.fft_state().plan_cache().stats(),
        hip.fft_state().plan_cache().limits(),
    );
    assert_eq!(s.checked_out, 0);
    assert!(
        s.idle <= l.max_idle && s.idle_bytes <= l.max_idle_bytes,
        "{s:?} {l:?}"
    );
    assert_eq!(platform.fft_stats().alive, s.live);
    assert_eq!(platform.fft_stats().wrong_device_destroys, 0);
    assert_eq!(platform.fft_stats().max_concurrent_uses, 1);
}

#[test]
fn a_zero_budget_disables_caching_and_clear_empties_it() {
    let (platform, hip) = fake();
    let bufs = buffers(&hip);
    hip.fft_state()
        .plan_cache()
        .set_limits(parse_limits("0").unwrap());
    for _ in 0..5 {
        run_c2c(&hip, &bufs, 16, 1);
    }
    let s = hip.fft_state().plan_cache().stats();
    assert_eq!(
        (s.created, s.destroyed, s.idle, s.hits),
        (5, 5, 0, 0),
        "{s:?}"
    );
    assert_eq!(platform.fft_stats().alive, 0);

    hip.fft_state()
        .plan_cache()
        .set_limits(parse_limits("8").unwrap());
    for len in [3, 5, 7] {
        run_c2c(&hip, &bufs, len, 1);
    }
    assert_eq!(platform.fft_stats().alive, 3);
    assert_eq!(hip.fft_state().plan_cache().clear(), 3);
    assert_eq!(platform.fft_stats().alive, 0);
    assert_eq!(hip.fft_state().plan_cache().stats().idle, 0);
}

/// While one thread holds the plan of a key, another thread asking for that key gets a new
/// plan; both end up idle in the cache.
#[test]
fn two_threads_asking_for_one_key_get_two_plans() {
    let (platform, hip) = fake();
    let desc = {
        let bufs = buffers(&hip);
        FftPlanDesc::from_args(&args(&bufs, 32, 1))
    };
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (hip, desc, barrier) = (hip.clone(), desc.clone(), barrier.clone());
            std::thread::spawn(move || {
                let plan = hip
                    .fft_state()
                    .plan_cache()
                    .lease(&desc, || {})
                    .expect("plan");
                let handle = plan.handle();
                barrier.wait(); // both hold a plan of the same key here
                drop(plan);
                handle
            })
        })
        .collect();
    let got: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    assert_ne!(got[0], got[1], "one plan was handed to two threads");
    let s = hip.fft_state().plan_cache().stats();
    assert_eq!((s.created, s.misses, s.idle), (2, 2, 2), "{s:?}");
    assert_eq!(platform.fft_stats().alive, 2);
}

/// Each device has its own cache and budget: churning one device's plans evicts none of the
/// other's; every plan is destroyed under the device that created it.
#[test]
fn devices_have_separate_caches_and_plans_die_on_their_device() {
    let (platform, hips) = fake_with(FakeConfig {
        devices: 2,
        ..FakeConfig::default()
    });
    let bufs: Vec<_> = hips.iter().map(buffers).collect();
    for len in 2..12 {
        run_c2c(&hips[0], &bufs[0], len, 1);
    }
    let before = hips[0].fft_state().plan_cache().stats();
    for batch in 1..200 {
        run_c2c(&hips[1], &bufs[1], 2, batch);
    }
    let after = hips[0].fft_state().plan_cache().stats();
    assert_eq!(before, after, "device 1's churn touched device 0's cache");
    assert!(hips[1].fft_state().plan_cache().stats().evictions > 0);
    let devices = platform.fft_plan_devices();
    assert_eq!(devices.iter().filter(|d| **d == DeviceId(0)).count(), 10);
    // Destroy device 0's plans from a thread last bound to device 1.
    let h0 = hips[0].clone();
    let h1 = hips[1].clone();
    let b1 = bufs.into_iter().nth(1).expect("device 1 buffers");
    std::thread::spawn(move || {
        run_c2c(&h1, &b1, 2, 1);
        assert_eq!(h0.fft_state().plan_cache().clear(), 10);
        h1.fft_state().plan_cache().clear();
    })
    .join()
    .expect("thread");
    let f = platform.fft_stats();
    assert_eq!((f.alive, f.wrong_device_destroys), (0, 0), "{f:?}");
}

/// Idle plans hold device memory; an allocation that runs out of memory evicts them (the
/// memory pool's release hook) and succeeds on the retry. Plan creation that runs out of
/// memory does the same.
#[test]
fn out_of_memory_evicts_idle_plans_then_retries() {
    let (platform, mut hips) = fake_with(FakeConfig {
        memory_per_device: 16 << 20,
        ..FakeConfig::default()
    });
    let hip = hips.remove(0);
    platform.set_fft_plan_bytes(1 << 20);
    let bufs = buffers(&hip);
    for len in 2..10 {
        run_c2c(&hip, &bufs, len, 1);
    }
    assert_eq!(platform.fft_stats().alive, 8);
    // 8 MiB of plans idle; 12 MiB more does not fit without them.
    let big = hip
        .alloc(12 << 20)
        .expect("allocation after evicting idle plans");
    let s = hip.fft_state().plan_cache().stats();
    assert!(s.evictions >= 4 && s.idle <= 4, "{s:?}");
    assert!(platform.fft_stats().alive <= 4);
    // Memory is now nearly full: a new plan evicts the remaining idle ones to fit.
    run_c2c(&hip, &bufs, 40, 1);
    assert_eq!(hip.fft_state().plan_cache().stats().checked_out, 0);
    drop(big);
}

#[test]
fn a_plan_is_reused_after_its_creating_thread_exited() {
    let (platform, hip) = fake();
    let bufs = Arc::new(buffers(&hip));
    let (h, b) = (hip.clone(), bufs.clone());
    std::thread::spawn(move || run_c2c(&h, &b, 24, 3))
        .join()
        .expect("creating thread");
    run_c2c(&hip, &bufs, 24, 3);
    let s = hip.fft_state().plan_cache().stats();
    assert_eq!((s.created, s.hits), (1, 1), "{s:?}");
    assert_eq!(platform.fft_stats().executions, 2);
}

/// One work area per stream, grown when a plan needs more, reused by every plan on it.
#[test]
fn work_areas_are_per_stream_and_grow() {
    let (_platform, hip) = fake();
    let bufs = Arc::new(buffers(&hip));
    run_c2c(&hip, &bufs, 4, 1);
    let small = hip.fft_state().work_areas().bytes();
    run_c2c(&hip, &bufs, 3, 1);
    assert_eq!(
        hip.fft_state().work_areas().bytes(),
        small,
        "a smaller plan reuses the area"
    );
    run_c2c(&hip, &bufs, 512, 1);
    let grown = hip.fft_state().work_areas().bytes();
    assert!(grown > small, "{grown} vs {small}");
    let (h, b) = (hip.clone(), bufs.clone());
    std::thread::spawn(move || run_c2c(&h, &b, 4, 1))
        .join()
        .expect("thread");
    assert!(
        hip.fft_state().work_areas().bytes() > grown,
        "another stream, another area"
    );
    assert!(hip.fft_state().work_areas().release() > 0);
    assert_eq!(hip.fft_state().work_areas().bytes(), 0);
}

/// An idle plan is counted in the byte budget by what it holds itself (its tables: 512 bytes
/// on the double here), not by the work area it asks for at each execution (which comes from
/// the memory pool per stream, so idle plans hold none): two plans whose work areas exceed
/// the 2 KiB budget stay cached.
#[test]
fn the_byte_budget_counts_what_an_idle_plan_holds_not_its_work_area() {
    let (platform, hip) = fake();
    platform.set_fft_plan_bytes(512);
    let cache = hip.fft_state().plan_cache();
    cache.set_limits(Limits {
        max_entries: 4,
        max_idle: 64,
        max_idle_bytes: 2048,
    });
    let bufs = buffers(&hip);
    for len in [128, 96] {
        run_c2c(&hip, &bufs, len, 1);
    }
    let s = cache.stats();
    assert_eq!((s.idle, s.idle_bytes, s.evictions), (2, 1024, 0), "{s:?}");
}

/// Out of memory: the work areas the release hook drops are freed through the memory pool,
/// which returns them to the platform before the retry, so an allocation that fits only
/// without them succeeds.
#[test]
fn out_of_memory_returns_dropped_work_areas_to_the_platform_before_the_retry() {
    let (platform, mut hips) = fake_with(FakeConfig {
        memory_per_device: 1 << 20,
        ..FakeConfig::default()
    });
    let hip = hips.remove(0);
    platform.set_fft_plan_bytes(0);
    let bufs = buffers(&hip);
    run_c2c(&hip, &bufs, POINTS, 1);
    let area = hip.fft_state().work_areas().bytes();
    assert!(area > 0);
    let free = hip
        .runtime()
        .platform()
        .mem_info(DeviceId(0))
        .expect("mem info")
        .free;
    // All that is free, and the work area.
    let big = hip
        .device_state()
        .alloc(free + area)
        .expect("the retry gets the work area's memory");
    assert_eq!(hip.fft_state().work_areas().bytes(), 0);
    assert_eq!(hip.device_state().memory().stats().oom_recovered, 1);
    drop(big);
}
