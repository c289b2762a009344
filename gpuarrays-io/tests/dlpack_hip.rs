//! DLPack on the HIP backend over the platform test double (`--features hip`): pointer
//! identity, the device type (the double poses as CUDA), the consumer-stream wait, and the
//! deleter of an imported tensor run exactly once.
#![cfg(feature = "hip")]

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::Array;
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{DeviceId, Platform};
use gpuarrays_hip::{HipBackend, HipRuntime, RuntimeConfig};
use gpuarrays_io::Error;
use gpuarrays_io::dlpack::ffi::*;
use gpuarrays_io::dlpack::{from_dlpack, to_dlpack, to_dlpack_on_stream};

fn fake_hip() -> (Arc<FakePlatform>, HipBackend) {
    let platform = Arc::new(FakePlatform::new(FakeConfig::default()));
    let runtime =
        HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("fake runtime");
    let hip = HipBackend::with_runtime(runtime, 0, DiskCache::off()).expect("fake HIP device");
    (platform, hip)
}

#[test]
fn export_orders_before_the_consumer_stream_and_imports_back() {
    let (fake, hip) = fake_hip();
    let x = Array::<f32, _>::from_slice(&hip, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    let address = x.raw().buffer().unwrap().ptr().0 as usize;
    let consumer = fake.create_stream(DeviceId(0), 0).unwrap();
    let before = fake.log().len();
    let t = to_dlpack_on_stream(x.raw(), Some(consumer.0 as usize)).unwrap();
    let log = fake.log()[before..].to_vec();
    let waited = log
        .iter()
        .any(|op| matches!(op, FakeOp::Wait { stream, .. } if *stream == consumer));
    assert!(waited, "no wait enqueued on the consumer stream: {log:?}");
    assert_eq!(
        t.tensor().data as usize,
        address,
        "zero-copy: the buffer's own address"
    );
    assert_eq!(
        t.tensor().device,
        DLDevice {
            device_type: KDL_CUDA,
            device_id: 0
        }
    );

    // SAFETY: a live tensor of ours, handed over once.
    let back = unsafe { from_dlpack(&hip, t.into_raw()) }.unwrap();
    assert_eq!(back.buffer().unwrap().ptr().0 as usize, address);
    assert_eq!(
        x.data().ref_count(),
        2,
        "the export's context holds the buffer"
    );
    assert_eq!(
        back.clone().into_typed::<f32>().unwrap().to_vec().unwrap(),
        vec![1., 2., 3., 4.]
    );
    drop(back);
    assert_eq!(
        x.data().ref_count(),
        1,
        "the deleter ran once and dropped the context"
    );

    // Without a consumer stream the host waits (no event wait on another stream needed).
    let t = to_dlpack(x.raw()).unwrap();
    drop(t);
    assert_eq!(x.data().ref_count(), 1);
}

static DELETED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_delete(m: *mut DLManagedTensorVersioned) {
    // SAFETY: made by `managed` below with `Box::into_raw`, deleted once.
    unsafe {
        let m = Box::from_raw(m);
        drop(Box::from_raw(m.dl_tensor.shape));
    }
    DELETED.fetch_add(1, Ordering::SeqCst);
}

fn managed(address: usize, n: i64, device: DLDevice) -> *mut DLManagedTensorVersioned {
    let shape = Box::into_raw(Box::new(n));
    Box::into_raw(Box::new(DLManagedTensorVersioned {
        version: DLPACK_VERSION,
        manager_ctx: std::ptr::null_mut(),
        deleter: Some(count_delete),
        flags: 0,
        dl_tensor: DLTensor {
            data: address as *mut c_void,
            device,
            ndim: 1,
            dtype: DLDataType {
                code: KDL_FLOAT,
                bits: 32,
                lanes: 1,
            },
            shape,
            strides: std::ptr::null_mut(),
            byte_offset: 0,
        },
    }))
}

#[test]
fn foreign_device_memory_is_wrapped_and_handed_back_once() {
    let (fake, hip) = fake_hip();
    // "Another library's" memory: a buffer the test keeps alive itself.
    let owner = Array::<f32, _>::from_slice(&hip, &[3], &[5., 6., 7.]).unwrap();
    let address = owner.raw().buffer().unwrap().ptr().0 as usize;
    let cuda0 = DLDevice {
        device_type: KDL_CUDA,
        device_id: 0,
    };
    let start = DELETED.load(Ordering::SeqCst);
    // SAFETY: live device memory of this device, outliving the import.
    let a = unsafe { from_dlpack(&hip, managed(address, 3, cuda0)) }.unwrap();
    assert_eq!(a.buffer().unwrap().ptr().0 as usize, address);
    // (The double runs no kernels, so the check is a device-to-host copy of the memory.)
    assert_eq!(
        a.clone().into_typed::<f32>().unwrap().to_vec().unwrap(),
        vec![5., 6., 7.]
    );
    drop(a);
    assert_eq!(DELETED.load(Ordering::SeqCst), start + 1);
    assert!(
        fake.is_allocated(gpuarrays_hip::platform::DevicePtr(address as u64)),
        "never freed by the import"
    );
    assert_eq!(owner.to_vec().unwrap(), vec![5., 6., 7.]);

    // Another device type is refused, and still deleted.
    let rocm = DLDevice {
        device_type: KDL_ROCM,
        device_id: 0,
    };
    // SAFETY: as above.
    let e = unsafe { from_dlpack(&hip, managed(address, 3, rocm)) }.unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    assert_eq!(DELETED.load(Ordering::SeqCst), start + 2);
}
