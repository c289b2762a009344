//! The HIP side (feature `hip`): exports of GPU memory for `torch.from_dlpack`, and imports
//! of PyTorch CUDA/ROCm tensors. Device 0 of the process-wide HIP runtime.

use gpuarrays_core::{DType, RawArray};
use gpuarrays_hip::HipBackend;
use gpuarrays_io::dlpack::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use gpuarrays_io::dlpack::{
    DlpackBackend, from_dlpack, from_dlpack_legacy, to_dlpack_legacy, to_dlpack_on_stream,
};

use crate::{Fail, GA_ERROR, arange, counted, fill, pointer, status, sum, write_pair};

fn hip() -> Result<HipBackend, Fail> {
    HipBackend::new(0).map_err(|e| Fail(GA_ERROR, e.to_string()))
}

/// A consumer's `__dlpack__(stream=...)` as this library takes it: negative (Python's
/// `None` or `-1`) lets the host wait for our work, which orders it before any stream.
fn consumer_stream(stream: i64) -> Option<usize> {
    usize::try_from(stream).ok()
}

/// The DLPack device type of device 0 (`kDLCUDA` 2 on NVIDIA, `kDLROCM` 10 on AMD), or -1
/// (message in `ga_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn ga_hip_device_type() -> i32 {
    let mut t = -1;
    status(|| {
        t = DlpackBackend::dlpack_device(&hip()?).device_type;
        Ok(())
    });
    t
}

/// The calling thread's stream on device 0: what to pass as `stream` to a producer's
/// `__dlpack__` before [`ga_import_sum_hip`] or [`ga_import_fill_hip`]; -1 on failure.
#[unsafe(no_mangle)]
pub extern "C" fn ga_hip_stream() -> i64 {
    let mut s = -1;
    status(|| {
        s = i64::try_from(hip()?.dlpack_stream()?).unwrap_or(-1);
        Ok(())
    });
    s
}

/// `0..n` as f32 on device 0, a DLPack 1.x tensor ordered before `stream` (see
/// [`consumer_stream`]); null on failure.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_f32_hip(n: usize, stream: i64) -> *mut DLManagedTensorVersioned {
    pointer(|| {
        let a = arange(&hip()?, DType::F32, &[n])?;
        Ok(counted::versioned(to_dlpack_on_stream(
            &a,
            consumer_stream(stream),
        )?))
    })
}

/// [`ga_export_f32_hip`] as a legacy tensor.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_f32_hip_legacy(n: usize, stream: i64) -> *mut DLManagedTensor {
    pointer(|| {
        let a = arange(&hip()?, DType::F32, &[n])?;
        Ok(counted::legacy(to_dlpack_legacy(
            &a,
            consumer_stream(stream),
        )?))
    })
}

/// A managed tensor handed to an import.
#[derive(Clone, Copy)]
enum Managed {
    Versioned(*mut DLManagedTensorVersioned),
    Legacy(*mut DLManagedTensor),
}

/// Imports `managed` onto device 0 and runs `f` on it; the tensor is deleted (once) in every
/// case, also when the HIP runtime is unavailable.
///
/// # Safety
/// `managed` holds null or a live managed tensor whose ownership passes to this call, its
/// producer's work ordered before [`ga_hip_stream`]'s stream.
unsafe fn import_hip(
    managed: Managed,
    f: impl FnOnce(&RawArray<HipBackend>) -> Result<(), Fail>,
) -> i32 {
    status(|| {
        let hip = match hip() {
            Ok(h) => h,
            Err(e) => {
                // SAFETY: the caller handed ownership over: delete it even when refused.
                unsafe { delete(managed) };
                return Err(e);
            }
        };
        // SAFETY: the caller's contract.
        let a = unsafe {
            match managed {
                Managed::Versioned(m) => from_dlpack(&hip, m),
                Managed::Legacy(m) => from_dlpack_legacy(&hip, m),
            }
        }?;
        f(&a)
    })
}

/// Imports a DLPack 1.x device tensor onto device 0 (zero-copy), writes its sum to `out`
/// (`[re, im]`) and drops it (the deleter runs after gpuarrays' work on it has finished).
///
/// # Safety
/// `managed` is null or a live `DLManagedTensorVersioned` whose ownership passes to this
/// call, its producer's work ordered before [`ga_hip_stream`]'s stream; `out` is null or
/// valid for writing two `f64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_sum_hip(
    managed: *mut DLManagedTensorVersioned,
    out: *mut f64,
) -> i32 {
    // SAFETY: the caller's contract (for `managed` and for `out`).
    unsafe { import_hip(Managed::Versioned(managed), |a| sum_to(a, out)) }
}

/// [`ga_import_sum_hip`] for a legacy `DLManagedTensor`.
///
/// # Safety
/// As for [`ga_import_sum_hip`], with a `DLManagedTensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_sum_hip_legacy(
    managed: *mut DLManagedTensor,
    out: *mut f64,
) -> i32 {
    // SAFETY: the caller's contract (for `managed` and for `out`).
    unsafe { import_hip(Managed::Legacy(managed), |a| sum_to(a, out)) }
}

/// # Safety
/// `out` is null or valid for writing two `f64`.
unsafe fn sum_to(a: &RawArray<HipBackend>, out: *mut f64) -> Result<(), Fail> {
    let s = sum(a)?;
    // SAFETY: the caller's contract.
    unsafe { write_pair(out, s) };
    Ok(())
}

/// Imports a DLPack 1.x device tensor onto device 0 and fills it with `value`; the write has
/// finished when this returns (the release waits for it).
///
/// # Safety
/// As for [`ga_import_sum_hip`], and the tensor writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_fill_hip(
    managed: *mut DLManagedTensorVersioned,
    value: f64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { import_hip(Managed::Versioned(managed), |a| Ok(fill(a, value)?)) }
}

/// [`ga_import_fill_hip`] for a legacy `DLManagedTensor`.
///
/// # Safety
/// As for [`ga_import_fill_hip`], with a `DLManagedTensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_fill_hip_legacy(
    managed: *mut DLManagedTensor,
    value: f64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { import_hip(Managed::Legacy(managed), |a| Ok(fill(a, value)?)) }
}

/// Calls a managed tensor's deleter, if any.
///
/// # Safety
/// `managed` holds null or a live tensor owned by the caller, who never uses it again.
unsafe fn delete(managed: Managed) {
    // SAFETY: the caller's contract.
    unsafe {
        match managed {
            Managed::Versioned(m) if !m.is_null() => {
                if let Some(d) = (*m).deleter {
                    d(m)
                }
            }
            Managed::Legacy(m) if !m.is_null() => {
                if let Some(d) = (*m).deleter {
                    d(m)
                }
            }
            _ => {}
        }
    }
}
