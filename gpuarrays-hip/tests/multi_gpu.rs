//! The HIP backend on two devices of one host: per-device stream pools and memory, arrays
//! that live on one device each, operations that refuse to mix devices, explicit copies
//! between them, and both devices busy at once from several threads.
//!
//! With fewer than two devices every test prints why and passes, unless
//! `GPUARRAYS_REQUIRE_MULTI_GPU=1` (set it on a multi-GPU machine), which makes that a failure.

use gpuarrays_core::{Array, Backend, Error};
use gpuarrays_hip::{DeviceId, HipBackend};

/// The tests compare per-device counters, so they run one at a time (the test harness runs
/// tests of one binary on parallel threads, which would move device 0's counters meanwhile).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn two_devices() -> Option<(HipBackend, HipBackend)> {
    let required = std::env::var("GPUARRAYS_REQUIRE_MULTI_GPU").is_ok_and(|v| v == "1");
    let count = match HipBackend::device_count() {
        Ok(n) => n,
        Err(e) => {
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_MULTI_GPU=1 but HIP is unavailable: {e}"
            );
            eprintln!("skipped: no HIP runtime ({e})");
            return None;
        }
    };
    if count < 2 {
        assert!(
            !required,
            "GPUARRAYS_REQUIRE_MULTI_GPU=1 but only {count} HIP device(s)"
        );
        eprintln!("skipped: {count} HIP device(s); these tests need two");
        return None;
    }
    Some((HipBackend::new(0).unwrap(), HipBackend::new(1).unwrap()))
}

#[test]
fn each_device_has_its_own_streams_and_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    assert_ne!(d0.device().id, d1.device().id);
    let rt = d0.runtime();
    let (s0, s1) = (
        rt.stream(DeviceId(0)).unwrap(),
        rt.stream(DeviceId(1)).unwrap(),
    );
    assert_eq!((s0.device(), s1.device()), (DeviceId(0), DeviceId(1)));
    assert!(!s0.same_as(&s1));
    // A buffer freed on device 1 is cached by device 1's pool only.
    let before0 = d0.device_state().memory().stats().cached_bytes;
    let a = Array::<f32, _>::full(&d1, &[1 << 20], 1.0).unwrap();
    assert_eq!(a.sum().unwrap(), (1 << 20) as f32);
    drop(a);
    d1.synchronize().unwrap();
    assert!(d1.device_state().memory().stats().cached_bytes >= 4 << 20);
    assert_eq!(d0.device_state().memory().stats().cached_bytes, before0);
}

#[test]
fn arrays_of_two_devices_do_not_mix_and_move_explicitly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    let x: Vec<f32> = (0..100_003).map(|i| (i % 97) as f32 - 48.0).collect();
    let a = Array::from_slice(&d0, &[x.len()], &x).unwrap();
    let b = Array::from_slice(&d1, &[x.len()], &x).unwrap();
    let mixed = (a.ex() + b.ex()).eval::<f32>();
    assert!(
        matches!(mixed, Err(Error::DeviceMismatch { .. })),
        "{mixed:?}"
    );
    assert!(matches!(
        a.matmul(&b.reshape(&[1, -1]).unwrap()),
        Err(Error::DeviceMismatch { .. })
    ));
    let moved = a.to_backend(&d1).unwrap();
    assert_eq!(moved.backend().device().id, d1.device().id);
    let sum: Array<f32, _> = (moved.ex() + b.ex()).eval().unwrap();
    let want: Vec<f32> = x.iter().map(|v| v + v).collect();
    assert_eq!(sum.to_vec().unwrap(), want);
}

#[test]
fn both_devices_work_at_once_from_many_threads() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    std::thread::scope(|s| {
        for t in 0..16usize {
            let dev = if t % 2 == 0 { d0.clone() } else { d1.clone() };
            s.spawn(move || {
                for i in 0..50usize {
                    let v = ((t * 50 + i) % 11) as f32;
                    let a = Array::<f32, _>::full(&dev, &[1 << 16], v).unwrap();
                    let b: Array<f32, _> = (a.ex() * 2.0).eval().unwrap();
                    assert_eq!(b.sum().unwrap(), v * 2.0 * (1 << 16) as f32);
                }
            });
        }
    });
    for stats in d0.runtime().stream_stats() {
        // Streams of finished threads are idle, within the cap, on their own device's pool.
        assert!(stats.idle <= 32, "{stats:?}");
    }
}

#[test]
fn arrays_move_between_devices_by_peer_copy_ordered_on_both() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    let route = d0.device_copy_route(&d1);
    eprintln!("device 0 -> device 1: {route:?}");
    // 64 MiB written by a kernel just before the copy, the source dropped right after it:
    // the copy reads after the kernel, and the source's memory is reused only after the copy.
    let n = 16 << 20;
    for _ in 0..3 {
        let a = Array::<f32, _>::full(&d0, &[n], 2.0).unwrap();
        let b: Array<f32, _> = (a.ex() * 3.0).eval().unwrap();
        drop(a);
        let moved = b.to_device(&d1).unwrap();
        drop(b);
        // Reuse device 0's freed memory at once.
        let _reuse = Array::<f32, _>::full(&d0, &[n], -1.0).unwrap();
        assert_eq!(moved.backend().device().id, d1.device().id);
        assert_eq!(moved.sum().unwrap(), 6.0 * n as f32);
    }
    // A strided view arrives contiguous; to_backend between two devices is the same copy.
    let x: Vec<i32> = (0..600).collect();
    let m = Array::from_slice(&d1, &[20, 30], &x).unwrap();
    let t = m.transpose().unwrap().to_backend(&d0).unwrap();
    assert!(t.is_contiguous());
    let want: Vec<i32> = (0..30)
        .flat_map(|j| (0..20).map(move |i| i * 30 + j))
        .collect();
    assert_eq!(t.to_vec().unwrap(), want);
}
