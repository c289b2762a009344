//! Matrix products through the vendor BLAS path, on the platform test double, which computes
//! strided-batched column-major products on the host exactly as cuBLAS/rocBLAS define them:
//! the row-major mapping (operands swapped, leading dimensions, batch strides, broadcasting,
//! offsets) checked against the CPU reference; the handle rules (one per thread, cached
//! after the thread exits, ordered across streams, destroyed under their own device, evicted
//! on memory pressure); the routes (auto falls back to the kernel without a library, blas
//! refuses, kernel never asks the library); and the timer.

use std::sync::Arc;

use gpuarrays_core::{Array, Backend, Complex32, Complex64, Element};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::blas::MatmulRoute;
use gpuarrays_hip::blas::thread_leases::leased_blas_handles;
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{BlasMath, BlasType, DeviceId};
use gpuarrays_hip::{HipBackend, HipRuntime, RuntimeConfig, with_stream};

fn fake_with(config: FakeConfig) -> (Arc<FakePlatform>, HipBackend) {
    let platform = Arc::new(FakePlatform::new(config));
    let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("fake runtime");
    let dir = std::env::temp_dir().join(format!("ga-blas-fake-{}", std::process::id()));
    let hip = HipBackend::with_runtime(rt, 0, DiskCache::at(dir)).expect("backend");
    (platform, hip)
}

fn fake() -> (Arc<FakePlatform>, HipBackend) {
    fake_with(FakeConfig {
        memory_per_device: 64 << 20,
        ..FakeConfig::default()
    })
}

/// Runs `f` on a new thread and waits until the thread has exited (its thread-locals, and so
/// its BLAS lease, are gone: `std::thread::scope` returns before that).
fn on_thread(f: impl FnOnce() + Send + 'static) {
    std::thread::spawn(f).join().expect("thread");
}

fn gemms(p: &FakePlatform) -> Vec<FakeOp> {
    p.log()
        .into_iter()
        .filter(|o| matches!(o, FakeOp::Gemm { .. }))
        .collect()
}

fn launches(p: &FakePlatform) -> usize {
    p.log()
        .iter()
        .filter(|o| matches!(o, FakeOp::Launch { .. }))
        .count()
}

/// Deterministic values in [-2, 2) with a fractional part, distinct per position and seed.
fn values(n: usize, seed: u32) -> Vec<f64> {
    (0..n)
        .map(|i| {
            ((i as u32)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(seed * 97)
                % 4096) as f64
                / 1024.0
                - 2.0
        })
        .collect()
}

trait Sample: Element {
    fn sample(n: usize, seed: u32) -> Vec<Self>;
    fn close(a: Self, b: Self, k: usize) -> bool;
}

/// Within (k + 2) rounding errors of the largest possible sum of k products of values
/// below 2 in magnitude (4k): the bound of any summation order.
fn near(a: f64, b: f64, k: usize, eps: f64) -> bool {
    let k = k as f64;
    (a - b).abs() <= (k + 2.0) * eps * 4.0 * k.max(1.0)
}

impl Sample for f32 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed).into_iter().map(|v| v as f32).collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near(a as f64, b as f64, k, f32::EPSILON as f64)
    }
}
impl Sample for f64 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed)
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near(a, b, k, f64::EPSILON)
    }
}
impl Sample for Complex32 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        let (re, im) = (values(n, seed), values(n, seed + 1));
        re.iter()
            .zip(&im)
            .map(|(&r, &i)| Complex32::new(r as f32, i as f32))
            .collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        f32::close(a.re, b.re, 2 * k) && f32::close(a.im, b.im, 2 * k)
    }
}
impl Sample for Complex64 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        let (re, im) = (values(n, seed), values(n, seed + 1));
        re.iter()
            .zip(&im)
            .map(|(&r, &i)| Complex64::new(r, i))
            .collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        f64::close(a.re, b.re, 2 * k) && f64::close(a.im, b.im, 2 * k)
    }
}

/// `a · b` on the double's BLAS and on the CPU reference, for the shapes given.
fn check_product<T: Sample + std::fmt::Debug>(hip: &HipBackend, da: &[usize], db: &[usize]) {
    let cpu = CpuBackend::new();
    let (na, nb) = (da.iter().product(), db.iter().product());
    let (va, vb) = (T::sample(na, 1), T::sample(nb, 7));
    let got = Array::<T, _>::from_slice(hip, da, &va)
        .and_then(|a| a.matmul(&Array::from_slice(hip, db, &vb)?))
        .and_then(|c| Ok((c.dims().to_vec(), c.to_vec()?)))
        .expect("hip matmul");
    let want = Array::<T, _>::from_slice(&cpu, da, &va)
        .and_then(|a| a.matmul(&Array::from_slice(&cpu, db, &vb)?))
        .and_then(|c| Ok((c.dims().to_vec(), c.to_vec()?)))
        .expect("cpu matmul");
    assert_eq!(got.0, want.0, "{da:?}·{db:?} dims");
    let k = da[da.len() - 1];
    for (i, (g, w)) in got.1.iter().zip(&want.1).enumerate() {
        assert!(T::close(*g, *w, k), "{da:?}·{db:?} [{i}]: {g:?} vs {w:?}");
    }
}

const SHAPES: &[(&[usize], &[usize])] = &[
    (&[3, 4], &[4, 5]),
    (&[1, 1], &[1, 1]),
    (&[7, 13], &[13, 5]),
    (&[33, 65], &[65, 17]),
    (&[2, 3, 4], &[2, 4, 5]),
    (&[1, 3, 4], &[3, 4, 2]),
    (&[3, 3, 4], &[1, 4, 2]),
    (&[3, 4], &[2, 4, 5]),
    (&[2, 3, 4], &[4, 5]),
    (&[5, 1], &[1, 6]),
    (&[1, 9], &[9, 1]),
];

#[test]
fn every_blas_type_and_shape_matches_the_cpu_reference() {
    let (p, hip) = fake();
    for &(da, db) in SHAPES {
        check_product::<f32>(&hip, da, db);
        check_product::<f64>(&hip, da, db);
        check_product::<Complex32>(&hip, da, db);
        check_product::<Complex64>(&hip, da, db);
    }
    let ops = gemms(&p);
    assert_eq!(ops.len(), 4 * SHAPES.len(), "one library call per product");
    for t in [BlasType::F32, BlasType::F64, BlasType::C32, BlasType::C64] {
        assert!(ops.iter().any(
            |o| matches!(o, FakeOp::Gemm { dtype, math: BlasMath::Exact, .. } if *dtype == t)
        ));
    }
    assert_eq!(launches(&p), 0, "no kernel ran for a BLAS type");
}

#[test]
fn offsets_of_views_reach_the_library() {
    let (_p, hip) = fake();
    let cpu = CpuBackend::new();
    let (va, vb) = (f64::sample(5 * 3 * 4, 3), f64::sample(5 * 4 * 2, 4));
    fn run<B: Backend>(b: &B, va: &[f64], vb: &[f64]) -> Vec<f64> {
        let a = Array::from_slice(b, &[5, 3, 4], va).expect("a");
        let bb = Array::from_slice(b, &[5, 4, 2], vb).expect("b");
        let a = a.view(&[2..5, 0..3, 0..4]).expect("view");
        let bb = bb.view(&[1..4, 0..4, 0..2]).expect("view");
        a.matmul(&bb).and_then(|c| c.to_vec()).expect("matmul")
    }
    let got = run(&hip, &va, &vb);
    let want = run(&cpu, &va, &vb);
    for (g, w) in got.iter().zip(&want) {
        assert!(f64::close(*g, *w, 4), "{g} vs {w}");
    }
}

#[test]
fn an_empty_inner_dimension_gives_zeros_without_the_library() {
    let (p, hip) = fake();
    let a = Array::<f32, _>::from_slice(&hip, &[3, 0], &[]).expect("a");
    let b = Array::<f32, _>::from_slice(&hip, &[0, 4], &[]).expect("b");
    // Fill the output's future memory with garbage first: the product must overwrite it.
    drop(Array::<f32, _>::full(&hip, &[3, 4], f32::NAN).expect("garbage"));
    let c = a.matmul(&b).expect("matmul");
    assert_eq!(c.to_vec().expect("read"), vec![0.0; 12]);
    assert!(gemms(&p).is_empty());
    assert_eq!(launches(&p), 1, "only the fill above launched a kernel");
}

#[test]
fn integers_stay_on_the_kernel() {
    let (p, hip) = fake();
    let a = Array::<i32, _>::from_slice(&hip, &[2, 2], &[1, 2, 3, 4]).expect("a");
    let _ = a.matmul(&a).expect("matmul");
    assert!(gemms(&p).is_empty());
    assert_eq!(launches(&p), 1);
}

#[test]
fn a_thread_keeps_one_handle_and_returns_it_when_it_exits() {
    let (p, hip) = fake();
    let run = |hip: HipBackend| {
        move || {
            let a = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("a");
            for _ in 0..5 {
                let _ = a.matmul(&a).expect("matmul");
            }
            assert_eq!(leased_blas_handles(), 1);
        }
    };
    on_thread(run(hip.clone()));
    assert_eq!(
        p.blas_handle_counts(),
        (1, 0),
        "one handle for five products"
    );
    let stats = hip.blas().cache().stats();
    assert_eq!(
        (stats.idle, stats.created),
        (1, 1),
        "returned to the cache at thread exit"
    );
    // The next thread reuses it.
    on_thread(run(hip.clone()));
    assert_eq!(p.blas_handle_counts(), (1, 0));
    assert_eq!(hip.blas().cache().stats().hits, 1);
    let a = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("a");
    // Threads multiplying at the same time get a handle each.
    let barrier = std::sync::Barrier::new(3);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                let _ = a.matmul(&a).expect("matmul");
                barrier.wait();
            });
        }
    });
    assert_eq!(p.blas_handle_counts().0, 3);
    let handles: std::collections::HashSet<_> = gemms(&p)
        .iter()
        .filter_map(|o| match o {
            FakeOp::Gemm { handle, .. } => Some(*handle),
            _ => None,
        })
        .collect();
    assert_eq!(handles.len(), 3);
}

#[test]
fn a_product_on_another_stream_waits_for_the_handles_last_product() {
    let (p, hip) = fake();
    let a = Array::<f64, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("a");
    let rt = hip.runtime();
    let s1 = rt
        .create_stream(DeviceId(0), gpuarrays_hip::StreamPriority::Normal)
        .expect("s1");
    let s2 = rt
        .create_stream(DeviceId(0), gpuarrays_hip::StreamPriority::Normal)
        .expect("s2");
    // Keep every operand's own last use out of the picture: copies made on each stream.
    with_stream(&s1, || {
        let a1 = a.copy().expect("copy");
        let _ = a1.matmul(&a1).expect("matmul");
    });
    let before = p.log().len();
    with_stream(&s2, || {
        let a2 = a.copy().expect("copy");
        let mark = p.log().len();
        let _ = a2.matmul(&a2).expect("matmul");
        let ops = &p.log()[mark..];
        let gemm = ops
            .iter()
            .position(|o| matches!(o, FakeOp::Gemm { .. }))
            .expect("gemm");
        let waited = ops[..gemm]
            .iter()
            .any(|o| matches!(o, FakeOp::Wait { stream, .. } if *stream == s2.handle()));
        assert!(
            waited,
            "the handle's previous product on s1 is waited for: {ops:?}"
        );
    });
    assert!(p.log().len() > before);
    assert_eq!(
        p.blas_handle_counts().0,
        1,
        "one handle used on both streams"
    );
}

#[test]
fn handles_are_destroyed_under_their_own_device() {
    let (p, _) = fake();
    drop(p);
    let platform = Arc::new(FakePlatform::new(FakeConfig {
        devices: 2,
        memory_per_device: 64 << 20,
        ..FakeConfig::default()
    }));
    let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("runtime");
    let dir = std::env::temp_dir().join(format!("ga-blas-fake2-{}", std::process::id()));
    let d0 = HipBackend::with_runtime(rt.clone(), 0, DiskCache::at(dir.clone())).expect("d0");
    let d1 = HipBackend::with_runtime(rt, 1, DiskCache::at(dir)).expect("d1");
    let (t0, t1) = (d0.clone(), d1.clone());
    on_thread(move || {
        let a = Array::<f32, _>::from_slice(&t1, &[1, 1], &[2.0]).expect("a");
        assert_eq!(
            a.matmul(&a).and_then(|c| c.to_vec()).expect("mm"),
            vec![4.0]
        );
        // The thread's last device is 0 when it exits: the handle of device 1 must bind
        // device 1 to be destroyed (the double refuses otherwise).
        let b = Array::<f32, _>::from_slice(&t0, &[1, 1], &[3.0]).expect("b");
        assert_eq!(
            b.matmul(&b).and_then(|c| c.to_vec()).expect("mm"),
            vec![9.0]
        );
    });
    assert_eq!(platform.blas_handle_counts(), (2, 0));
    drop(d1);
    drop(d0);
    assert_eq!(
        platform.blas_handle_counts(),
        (2, 2),
        "both destroyed, each under its device"
    );
    assert_eq!(platform.blas_handles_alive(), 0);
}

#[test]
fn idle_handles_go_first_when_memory_runs_out() {
    let (p, hip) = fake();
    let h = hip.clone();
    on_thread(move || {
        let a = Array::<f32, _>::from_slice(&h, &[1, 1], &[2.0]).expect("a");
        let _ = a.matmul(&a).expect("mm");
    });
    assert_eq!(hip.blas().cache().stats().idle, 1);
    p.fail_next_allocs(1);
    let _big = Array::<f32, _>::zeros(&hip, &[1 << 20]).expect("retried after releasing");
    assert_eq!(hip.blas().cache().stats().idle, 0);
    assert_eq!(p.blas_handle_counts(), (1, 1));
}

/// Creating a handle that runs out of device memory (its workspace does not fit beside the
/// pool's cached blocks) releases idle resources and cached memory and retries once; when
/// nothing can be released, the error is core's out-of-memory naming the BLAS handle.
#[test]
fn handle_creation_out_of_memory_releases_and_retries_once() {
    let (p, hip) = fake_with(FakeConfig {
        memory_per_device: 8 << 20,
        ..FakeConfig::default()
    });
    p.set_blas_workspace_bytes(2 << 20);
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = calls.clone();
    hip.device_state().memory().release_hooks().register(
        "counting",
        Arc::new(move |_| {
            c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            0
        }),
    );
    // 7 MiB of freed blocks kept by the pool's cache: the 2 MiB workspace does not fit.
    drop(hip.alloc(7 << 20).expect("alloc"));
    assert!(hip.device_state().memory().stats().cached_bytes >= 7 << 20);
    let h = hip.clone();
    on_thread(move || {
        let a = Array::<f32, _>::from_slice(&h, &[1, 1], &[3.0]).expect("a");
        let c = a.matmul(&a).expect("matmul after releasing the cache");
        assert_eq!(c.to_vec().expect("read"), vec![9.0]);
    });
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The 7 MiB block went back to the platform (the product's small arrays are cached now).
    assert!(hip.device_state().memory().stats().cached_bytes < 7 << 20);
    // Memory held by live arrays cannot be released: one retry, then out of memory.
    let _full = Array::<f32, _>::zeros(&hip, &[(7 << 20) / 4]).expect("fill");
    p.set_blas_workspace_bytes(4 << 20);
    hip.blas().cache().clear();
    let before = calls.load(std::sync::atomic::Ordering::SeqCst);
    let h = hip.clone();
    let err = std::thread::spawn(move || {
        let a = Array::<f32, _>::from_slice(&h, &[1, 1], &[3.0]).expect("a");
        a.matmul(&a)
            .map(|_| ())
            .expect_err("no memory for a workspace")
    })
    .join()
    .expect("thread");
    match &err {
        gpuarrays_core::Error::OutOfMemory { hint, .. } => {
            let hint = hint.clone().unwrap_or_default();
            assert!(hint.contains("BLAS handle"), "{hint}");
        }
        other => panic!("expected OutOfMemory, got {other}"),
    }
    assert_eq!(
        calls.load(std::sync::atomic::Ordering::SeqCst),
        before + 1,
        "released once, retried once"
    );
}

#[test]
fn routes_auto_blas_and_kernel() {
    let (p, hip) = fake_with(FakeConfig {
        memory_per_device: 64 << 20,
        blas_available: false,
        ..FakeConfig::default()
    });
    let a = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("a");
    assert_eq!(hip.matmul_route(), MatmulRoute::Auto);
    let _ = a.matmul(&a).expect("auto falls back to the kernel");
    assert_eq!(launches(&p), 1);
    hip.set_matmul_route(MatmulRoute::Blas);
    let Err(e) = a.matmul(&a) else {
        panic!("blas without a library is an error");
    };
    assert!(e.to_string().contains("could not be loaded"), "{e}");
    let (p, hip) = fake();
    hip.set_matmul_route(MatmulRoute::Kernel);
    let _ = a.matmul(&a).err(); // `a` lives on the other backend: a typed error, no call
    let b = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("b");
    let _ = b.matmul(&b).expect("kernel");
    assert!(gemms(&p).is_empty());
    assert_eq!(launches(&p), 1);
    assert_eq!(
        p.blas_handle_counts(),
        (0, 0),
        "the kernel route never creates a handle"
    );
}

#[test]
fn reduced_precision_only_when_asked() {
    let (p, hip) = fake();
    let a = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1.0, 2.0, 3.0, 4.0]).expect("a");
    let _ = a.matmul(&a).expect("exact");
    hip.blas().set_reduced_precision(true);
    let _ = a.matmul(&a).expect("tf32");
    let maths: Vec<BlasMath> = gemms(&p)
        .iter()
        .filter_map(|o| match o {
            FakeOp::Gemm { math, .. } => Some(*math),
            _ => None,
        })
        .collect();
    assert_eq!(maths, vec![BlasMath::Exact, BlasMath::ReducedF32]);
}

#[test]
fn the_timer_measures_between_its_records() {
    let (_p, hip) = fake();
    let mut t = hip.timer().expect("timer");
    assert!(t.stop().is_err(), "stop before start is an error");
    t.start().expect("start");
    std::thread::sleep(std::time::Duration::from_millis(5));
    let s = t.stop().expect("stop");
    assert!((0.004..1.0).contains(&s), "{s}");
}
