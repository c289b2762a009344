//! Handle rules (one per thread, cached, ordered, evicted), the routes and the timer.

use super::*;

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
