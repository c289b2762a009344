//! DLPack on the CPU reference: export → import round trips (values, views, the deleter run
//! exactly once), foreign tensors built by hand (deleter counted, refusals that still
//! delete), and the struct layout.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::{Array, DType, RawArray};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::Error;
use gpuarrays_io::dlpack::ffi::*;
use gpuarrays_io::dlpack::{
    from_dlpack, from_dlpack_legacy, from_dlpack_read_only, to_dlpack, to_dlpack_legacy,
};

fn roundtrip(a: &RawArray<CpuBackend>) -> RawArray<CpuBackend> {
    let t = to_dlpack(a).expect("export");
    // SAFETY: a live tensor of ours, handed over once.
    unsafe { from_dlpack(a.backend(), t.into_raw()) }.expect("import")
}

#[test]
fn export_import_keeps_values_and_shares_memory() {
    let cpu = CpuBackend::new();
    let x = Array::<f64, _>::from_slice(&cpu, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
    let t = to_dlpack(x.raw()).unwrap();
    {
        let d = t.tensor();
        assert_eq!(
            d.device,
            DLDevice {
                device_type: KDL_CPU,
                device_id: 0
            }
        );
        assert_eq!(
            d.dtype,
            DLDataType {
                code: KDL_FLOAT,
                bits: 64,
                lanes: 1
            }
        );
        assert_eq!(d.ndim, 2);
        // SAFETY: our export's shape and strides hold ndim values.
        let (shape, strides) = unsafe {
            (
                std::slice::from_raw_parts(d.shape, 2),
                std::slice::from_raw_parts(d.strides, 2),
            )
        };
        assert_eq!((shape, strides), (&[2i64, 3][..], &[3i64, 1][..]));
    }
    // The export holds a reference: the buffer outlives the array.
    let refs = x.data().ref_count();
    assert_eq!(refs, 2);
    // SAFETY: a live tensor of ours, handed over once.
    let back = unsafe { from_dlpack(&cpu, t.into_raw()) }.unwrap();
    drop(x);
    assert_eq!(
        back.clone().into_typed::<f64>().unwrap().to_vec().unwrap(),
        vec![1., 2., 3., 4., 5., 6.]
    );
}

#[test]
fn views_round_trip_with_their_strides() {
    let cpu = CpuBackend::new();
    let x = Array::<i32, _>::from_slice(&cpu, &[3, 4], &(0..12).collect::<Vec<_>>()).unwrap();
    let cases: Vec<RawArray<CpuBackend>> = vec![
        x.raw().clone(),
        x.permute(&[1, 0]).unwrap().into_raw(),
        x.reverse(0).unwrap().reverse(1).unwrap().into_raw(),
        x.reverse(1).unwrap().into_raw(),
        x.reshape(&[12])
            .unwrap()
            .slice(4..12)
            .unwrap()
            .reshape(&[2, 4])
            .unwrap()
            .permute(&[1, 0])
            .unwrap()
            .into_raw(),
        Array::<i32, _>::from_slice(&cpu, &[], &[7])
            .unwrap()
            .into_raw(),
        Array::<i32, _>::from_slice(&cpu, &[0, 3], &[])
            .unwrap()
            .into_raw(),
    ];
    for v in cases {
        let back = roundtrip(&v);
        assert_eq!(back.dims(), v.dims());
        assert_eq!(back.dtype(), v.dtype());
        assert_eq!(
            back.to_bytes().unwrap(),
            v.to_bytes().unwrap(),
            "dims {:?} strides {:?}",
            v.dims(),
            v.strides()
        );
        if !v.is_empty() {
            assert_eq!(back.strides(), v.strides());
        }
    }
}

#[test]
fn every_dtype_maps_both_ways() {
    let cpu = CpuBackend::new();
    let bytes = Array::<u8, _>::from_slice(&cpu, &[48], &[1u8; 48]).unwrap();
    for dtype in DType::ALL {
        let a = bytes.raw().reinterpret(dtype).unwrap();
        let back = roundtrip(&a);
        assert_eq!(back.dtype(), dtype);
        assert_eq!(back.to_bytes().unwrap(), a.to_bytes().unwrap());
    }
    let b = Array::<bool, _>::from_slice(&cpu, &[2], &[true, false]).unwrap();
    let t = to_dlpack(b.raw()).unwrap();
    assert_eq!(
        t.tensor().dtype,
        DLDataType {
            code: KDL_BOOL,
            bits: 8,
            lanes: 1
        }
    );
    let c = Array::<gpuarrays_core::Complex32, _>::from_slice(
        &cpu,
        &[1],
        &[gpuarrays_core::Complex32::new(1., 2.)],
    )
    .unwrap();
    assert_eq!(
        to_dlpack(c.raw()).unwrap().tensor().dtype,
        DLDataType {
            code: KDL_COMPLEX,
            bits: 64,
            lanes: 1
        }
    );
}

#[test]
fn legacy_round_trip_and_drop_without_export() {
    let cpu = CpuBackend::new();
    let x = Array::<f32, _>::from_slice(&cpu, &[4], &[1., 2., 3., 4.]).unwrap();
    let t = to_dlpack_legacy(x.raw(), None).unwrap();
    // SAFETY: a live tensor of ours, handed over once.
    let back = unsafe { from_dlpack_legacy(&cpu, t.into_raw()) }.unwrap();
    assert_eq!(
        back.into_typed::<f32>().unwrap().to_vec().unwrap(),
        vec![1., 2., 3., 4.]
    );
    // Dropping an owner runs the deleter: the array's reference goes.
    let t = to_dlpack(x.raw()).unwrap();
    assert_eq!(x.data().ref_count(), 2);
    drop(t);
    assert_eq!(x.data().ref_count(), 1);
}

// ---- foreign tensors built by hand, their deleter counted ----

struct Foreign {
    data: Vec<u64>,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    deleted: &'static AtomicUsize,
}

unsafe extern "C" fn count_delete(m: *mut DLManagedTensorVersioned) {
    // SAFETY: made by `foreign` below with `Box::into_raw`, deleted once.
    unsafe {
        let m = Box::from_raw(m);
        let ctx = Box::from_raw(m.manager_ctx as *mut Foreign);
        ctx.deleted.fetch_add(1, Ordering::SeqCst);
    }
}

fn foreign(
    mut f: Foreign,
    dtype: DLDataType,
    device: DLDevice,
    flags: u64,
    byte_offset: u64,
) -> *mut DLManagedTensorVersioned {
    let tensor = DLTensor {
        data: f.data.as_mut_ptr() as *mut c_void,
        device,
        ndim: f.shape.len() as i32,
        dtype,
        shape: f.shape.as_mut_ptr(),
        strides: f
            .strides
            .as_mut()
            .map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
        byte_offset,
    };
    Box::into_raw(Box::new(DLManagedTensorVersioned {
        version: DLPackVersion { major: 1, minor: 1 },
        manager_ctx: Box::into_raw(Box::new(f)) as *mut c_void,
        deleter: Some(count_delete),
        flags,
        dl_tensor: tensor,
    }))
}

const CPU: DLDevice = DLDevice {
    device_type: KDL_CPU,
    device_id: 0,
};
const U64: DLDataType = DLDataType {
    code: KDL_UINT,
    bits: 64,
    lanes: 1,
};

#[test]
fn foreign_import_strided_and_deleter_once() {
    static DELETED: AtomicUsize = AtomicUsize::new(0);
    let cpu = CpuBackend::new();
    // A 2×3 view with reversed columns into 0..8, starting at element 2 (byte_offset 16).
    let f = Foreign {
        data: (0..8).collect(),
        shape: vec![2, 3],
        strides: Some(vec![3, -1]),
        deleted: &DELETED,
    };
    // SAFETY: a live tensor, handed over once.
    let a = unsafe { from_dlpack(&cpu, foreign(f, U64, CPU, 0, 16)) }.unwrap();
    let view = a.clone();
    assert_eq!(a.strides(), &[3, -1]);
    assert_eq!(
        a.into_typed::<u64>().unwrap().to_vec().unwrap(),
        vec![2, 1, 0, 5, 4, 3]
    );
    assert_eq!(
        DELETED.load(Ordering::SeqCst),
        0,
        "a view still holds the memory"
    );
    // Writes go to the producer's memory.
    let v = view.into_typed::<u64>().unwrap();
    v.to_vec().unwrap();
    drop(v);
    assert_eq!(DELETED.load(Ordering::SeqCst), 1);
}

#[test]
fn refusals_still_delete_once() {
    static DELETED: AtomicUsize = AtomicUsize::new(0);
    let cpu = CpuBackend::new();
    let mk = |shape: Vec<i64>| Foreign {
        data: vec![0; 4],
        shape,
        strides: None,
        deleted: &DELETED,
    };
    // Types gpuarrays has no counterpart of: an 8-bit float, a 4-bit integer and a 32-bit
    // "bfloat".
    let f8 = DLDataType {
        code: KDL_FLOAT,
        bits: 8,
        lanes: 1,
    };
    let i4 = DLDataType {
        code: KDL_INT,
        bits: 4,
        lanes: 1,
    };
    let bf32 = DLDataType {
        code: KDL_BFLOAT,
        bits: 32,
        lanes: 1,
    };
    let lanes = DLDataType {
        code: KDL_FLOAT,
        bits: 32,
        lanes: 4,
    };
    let cuda = DLDevice {
        device_type: KDL_CUDA,
        device_id: 0,
    };
    let cases: Vec<(*mut DLManagedTensorVersioned, &str)> = vec![
        (foreign(mk(vec![4]), f8, CPU, 0, 0), "UnsupportedDType"),
        (foreign(mk(vec![4]), i4, CPU, 0, 0), "UnsupportedDType"),
        (foreign(mk(vec![4]), bf32, CPU, 0, 0), "UnsupportedDType"),
        (foreign(mk(vec![1]), lanes, CPU, 0, 0), "UnsupportedDType"),
        (foreign(mk(vec![4]), U64, cuda, 0, 0), "DeviceMismatch"),
        (
            foreign(mk(vec![4]), U64, CPU, FLAG_READ_ONLY, 0),
            "ReadOnly",
        ),
        (foreign(mk(vec![-1]), U64, CPU, 0, 0), "Malformed"),
        (foreign(mk(vec![4]), U64, CPU, 0, 4), "Malformed"), // misaligned
    ];
    let n = cases.len();
    for (m, want) in cases {
        // SAFETY: live tensors, each handed over once.
        let e = unsafe { from_dlpack(&cpu, m) }.unwrap_err();
        let name = match e {
            Error::UnsupportedDType { .. } => "UnsupportedDType",
            Error::DeviceMismatch { .. } => "DeviceMismatch",
            Error::ReadOnly { .. } => "ReadOnly",
            Error::Malformed { .. } => "Malformed",
            ref other => panic!("unexpected {other}"),
        };
        assert_eq!(name, want, "{e}");
    }
    assert_eq!(DELETED.load(Ordering::SeqCst), n);
    // The read-only form accepts the flag.
    // SAFETY: a live tensor, handed over once; not written.
    let a =
        unsafe { from_dlpack_read_only(&cpu, foreign(mk(vec![4]), U64, CPU, FLAG_READ_ONLY, 0)) }
            .unwrap();
    assert_eq!(a.len(), 4);
    drop(a);
    assert_eq!(DELETED.load(Ordering::SeqCst), n + 1);
    // Null is an error, with nothing to delete.
    // SAFETY: null is allowed.
    assert!(unsafe { from_dlpack(&cpu, std::ptr::null_mut()) }.is_err());
}
