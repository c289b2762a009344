//! Moving arrays between devices through core's `Array::to_device` / `to_backend` on the CPU
//! reference (whose devices copy through the host: `Backend::copy_to_device`'s default) and
//! through `AnyBackend`, which forwards to the wrapped backend when both handles wrap the
//! same one and copies through the host between two backends. (HIP's peer copies:
//! `gpuarrays-hip/tests/multi_device_fake.rs` and `multi_gpu.rs`.)

use gpuarrays::prelude::*;
use gpuarrays::{Array, Backend};

#[test]
fn to_device_copies_views_contiguously_onto_another_device() {
    let (a, b) = (CpuBackend::new(), CpuBackend::new());
    assert_ne!(a.device().id, b.device().id);
    let x: Vec<i32> = (0..24).collect();
    let mut m = Array::from_slice(&a, &[4, 6], &x).unwrap();
    let t = m.transpose().unwrap();
    let want = t.to_vec().unwrap();
    let moved = t.to_device(&b).unwrap();
    assert_eq!(moved.backend().device().id, b.device().id);
    assert!(moved.is_contiguous());
    assert_eq!(moved.to_vec().unwrap(), want);
    // The copy shares nothing: changing the source leaves it alone.
    m.fill(-1).unwrap();
    assert_eq!(t.to_vec().unwrap(), vec![-1; 24]);
    assert_eq!(moved.to_vec().unwrap(), want);
    let back = moved.to_backend(&a).unwrap();
    assert_eq!(back.dims(), &[6, 4]);
    let empty = Array::<f32, _>::from_slice(&a, &[0, 3], &[]).unwrap();
    assert_eq!(empty.to_device(&b).unwrap().dims(), &[0, 3]);
}

#[test]
fn any_backend_moves_between_devices_and_between_backends() {
    let (c0, c1) = (CpuBackend::new(), CpuBackend::new());
    let (a0, a1) = (AnyBackend::from(c0.clone()), AnyBackend::from(c1.clone()));
    let x: Vec<f64> = (0..1000).map(|i| i as f64 * 0.25).collect();
    let on0 = Array::from_slice(&a0, &[x.len()], &x).unwrap();
    let on1 = on0.to_device(&a1).unwrap();
    assert_eq!(on1.backend().device().id, a1.device().id);
    assert_eq!(on1.to_vec().unwrap(), x);
    // From the enum to a concrete backend, and back.
    let plain = on1.to_backend(&c0).unwrap();
    assert_eq!(plain.to_vec().unwrap(), x);
    let again = plain.to_backend(&a0).unwrap();
    assert_eq!(again.to_vec().unwrap(), x);
}
