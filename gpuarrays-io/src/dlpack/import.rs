//! Import: another library's DLPack tensor as a gpuarrays array, without a copy.

use gpuarrays_core::{DType, DataRef, RawArray};

use super::DlpackBackend;
use super::ffi::{
    DLManagedTensor, DLManagedTensorVersioned, DLTensor, FLAG_READ_ONLY, KDL_CPU, KDL_CUDA_HOST,
};
use crate::error::{Error, Format, Result};

/// The producer's managed tensor; dropping this calls its deleter, once.
enum Managed {
    Versioned(*mut DLManagedTensorVersioned),
    Legacy(*mut DLManagedTensor),
}

struct ForeignOwner(Managed);

// SAFETY: the owner only ever calls the producer's deleter, once, from whichever thread drops
// the last array. DLPack producers' deleters may run on any thread (NumPy's and PyTorch's
// take the GIL themselves); the spec has no thread affinity for them.
unsafe impl Send for ForeignOwner {}

impl Drop for ForeignOwner {
    fn drop(&mut self) {
        // SAFETY: the pointer is the live managed tensor the importer was given (non-null,
        // checked on entry), and this owner is its only one: the deleter runs once, here.
        unsafe {
            match self.0 {
                Managed::Versioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
                Managed::Legacy(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
            }
        }
    }
}

fn bad(reason: impl Into<String>) -> Error {
    Error::malformed(Format::Dlpack, reason)
}

/// Imports a DLPack 1.x tensor as an array of `backend`, sharing its memory. The deleter runs
/// exactly once: when the last array over the memory goes, or before this returns an error.
/// A tensor flagged read-only is refused ([`Error::ReadOnly`]); see
/// [`from_dlpack_read_only`].
///
/// # Safety
/// `managed` is null (an error) or a live `DLManagedTensorVersioned` whose ownership passes
/// to this call (the caller never uses or deletes it again). Its memory must stay valid
/// until the deleter runs, and the producer's work on it must be ordered before this
/// thread's use (for HIP: pass `HipBackend::dlpack_stream` to the producer's `__dlpack__`).
pub unsafe fn from_dlpack<B: DlpackBackend>(
    backend: &B,
    managed: *mut DLManagedTensorVersioned,
) -> Result<RawArray<B>> {
    // SAFETY: the caller's contract.
    unsafe { versioned(backend, managed, false) }
}

/// [`from_dlpack`] that also accepts tensors flagged read-only. gpuarrays has no read-only
/// arrays, so the caller promises not to write the result (or any view of it).
///
/// # Safety
/// As for [`from_dlpack`], and no write through the array if the tensor is read-only.
pub unsafe fn from_dlpack_read_only<B: DlpackBackend>(
    backend: &B,
    managed: *mut DLManagedTensorVersioned,
) -> Result<RawArray<B>> {
    // SAFETY: the caller's contract.
    unsafe { versioned(backend, managed, true) }
}

/// Imports an unversioned (legacy) `DLManagedTensor`, as [`from_dlpack`] does.
///
/// # Safety
/// As for [`from_dlpack`], with a `DLManagedTensor`.
pub unsafe fn from_dlpack_legacy<B: DlpackBackend>(
    backend: &B,
    managed: *mut DLManagedTensor,
) -> Result<RawArray<B>> {
    if managed.is_null() {
        return Err(null());
    }
    let owner = ForeignOwner(Managed::Legacy(managed));
    // SAFETY: non-null and live (the caller's contract); read before the owner may delete it.
    let tensor = unsafe { &(*managed).dl_tensor };
    // SAFETY: the tensor describes live memory (the caller's contract).
    unsafe { import(backend, owner, tensor) }
}

/// Legacy tensors carry no read-only flag; this is [`from_dlpack_legacy`] under another name
/// for symmetry with [`from_dlpack_read_only`].
///
/// # Safety
/// As for [`from_dlpack_legacy`].
pub unsafe fn from_dlpack_legacy_read_only<B: DlpackBackend>(
    backend: &B,
    managed: *mut DLManagedTensor,
) -> Result<RawArray<B>> {
    // SAFETY: the caller's contract.
    unsafe { from_dlpack_legacy(backend, managed) }
}

fn null() -> Error {
    Error::InvalidInput {
        format: Format::Dlpack,
        reason: "a null managed tensor".into(),
    }
}

/// # Safety
/// As for [`from_dlpack`].
unsafe fn versioned<B: DlpackBackend>(
    backend: &B,
    managed: *mut DLManagedTensorVersioned,
    allow_read_only: bool,
) -> Result<RawArray<B>> {
    if managed.is_null() {
        return Err(null());
    }
    let owner = ForeignOwner(Managed::Versioned(managed));
    // SAFETY: non-null and live (the caller's contract).
    let m = unsafe { &*managed };
    if m.version.major != 1 {
        return Err(bad(format!(
            "DLPack version {}.{}: only major version 1 is understood",
            m.version.major, m.version.minor
        )));
    }
    if m.flags & FLAG_READ_ONLY != 0 && !allow_read_only {
        return Err(Error::ReadOnly {
            format: Format::Dlpack,
        });
    }
    // SAFETY: the tensor describes live memory (the caller's contract).
    unsafe { import(backend, owner, &m.dl_tensor) }
}

/// The alignment an element type's reads need.
fn element_align(dtype: DType) -> usize {
    match dtype {
        DType::C32 | DType::C64 => dtype.size() / 2,
        _ => dtype.size(),
    }
}

/// # Safety
/// `tensor` belongs to `owner`'s managed tensor and describes live memory of its device.
unsafe fn import<B: DlpackBackend>(
    backend: &B,
    owner: ForeignOwner,
    tensor: &DLTensor,
) -> Result<RawArray<B>> {
    let want = backend.dlpack_device();
    let got = tensor.device;
    let host_ok = want.device_type == KDL_CPU && got.device_type == KDL_CUDA_HOST;
    if got != want && !host_ok {
        return Err(Error::DeviceMismatch {
            format: Format::Dlpack,
            expected: (want.device_type, want.device_id),
            got: (got.device_type, got.device_id),
        });
    }
    let dtype = super::from_dl_dtype(tensor.dtype)?;
    let ndim = usize::try_from(tensor.ndim).map_err(|_| bad(format!("ndim {}", tensor.ndim)))?;
    let read = |p: *const i64, what: &str| -> Result<Vec<i64>> {
        if ndim == 0 {
            return Ok(Vec::new());
        }
        if p.is_null() {
            return Err(bad(format!("{what} is null for {ndim} dimensions")));
        }
        // SAFETY: a non-null shape or strides of a live tensor holds `ndim` values.
        Ok(unsafe { std::slice::from_raw_parts(p, ndim) }.to_vec())
    };
    let shape = read(tensor.shape, "shape")?;
    let dims = shape
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| bad(format!("a negative extent {d}"))))
        .collect::<Result<Vec<_>>>()?;
    let strides = if tensor.strides.is_null() {
        gpuarrays_core::shape::contiguous_strides(&dims)
    } else {
        read(tensor.strides, "strides")?
            .iter()
            .map(|&s| isize::try_from(s).map_err(|_| bad(format!("stride {s}"))))
            .collect::<Result<Vec<_>>>()?
    };
    let size = dtype.size();
    let origin = (tensor.data as usize)
        .checked_add(usize::try_from(tensor.byte_offset).map_err(|_| bad("byte_offset"))?)
        .ok_or_else(|| bad("data + byte_offset overflows"))?;
    // Element range reached, relative to element (0, .., 0).
    let (lo, hi) = if dims.contains(&0) {
        (0i128, -1i128)
    } else {
        dims.iter()
            .zip(&strides)
            .fold((0i128, 0i128), |(lo, hi), (&d, &s)| {
                let reach = (d as i128 - 1) * s as i128;
                if reach < 0 {
                    (lo + reach, hi)
                } else {
                    (lo, hi + reach)
                }
            })
    };
    let (base, bytes, offset) = if hi < lo {
        (origin, 0usize, 0usize)
    } else {
        if origin % element_align(dtype) != 0 {
            return Err(bad(format!(
                "element (0, .., 0) at {origin:#x} is not aligned for {dtype}"
            )));
        }
        let before = usize::try_from(-lo * size as i128).map_err(|_| bad("strides too large"))?;
        let base = origin
            .checked_sub(before)
            .ok_or_else(|| bad("the strides reach below address 0"))?;
        let bytes = usize::try_from((hi - lo + 1) * size as i128)
            .map_err(|_| bad("the tensor spans more than the address space"))?;
        base.checked_add(bytes)
            .ok_or_else(|| bad("the tensor spans past the end of the address space"))?;
        (
            base,
            bytes,
            usize::try_from(-lo).map_err(|_| bad("offset"))?,
        )
    };
    // SAFETY: `base..base + bytes` is exactly the memory the tensor's elements occupy, live
    // until the deleter runs (the caller's contract), and the deleter runs only after the
    // buffer is given up (`release_foreign`, below).
    let buffer = unsafe { backend.wrap_foreign(base, bytes)? };
    let releaser = backend.clone();
    let data = DataRef::new(buffer, move |b| {
        releaser.release_foreign(b);
        drop(owner);
    });
    Ok(RawArray::from_external(
        backend, data, bytes, dtype, dims, strides, offset,
    )?)
}
