//! Export: a gpuarrays array as a DLPack managed tensor that shares its buffer.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::NonNull;

use gpuarrays_core::{Backend, RawArray};

use super::DlpackBackend;
use super::ffi::{DLManagedTensor, DLManagedTensorVersioned, DLPACK_VERSION, DLTensor};
use crate::error::{Error, Format, Result};

/// What `manager_ctx` points to: the array (its `DataRef` keeps the buffer alive) and the
/// extents and strides the `DLTensor` points into.
struct ExportCtx<B: Backend> {
    _array: RawArray<B>,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// Builds the context and the tensor (pointing into the context's vectors, which do not
/// move when the box does).
fn build<B: DlpackBackend>(
    array: &RawArray<B>,
    consumer_stream: Option<usize>,
) -> Result<(Box<ExportCtx<B>>, DLTensor)> {
    let backend = array.backend();
    let address = {
        let buffer = array.buffer()?;
        backend.order_for_consumer(&buffer, consumer_stream)?;
        backend.buffer_address(&buffer)
    };
    let too_large = |what: &str| Error::InvalidInput {
        format: Format::Dlpack,
        reason: format!("{what} does not fit DLPack's int64"),
    };
    let shape = array
        .dims()
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| too_large("an extent")))
        .collect::<Result<Vec<_>>>()?;
    let strides = array
        .strides()
        .iter()
        .map(|&s| i64::try_from(s).map_err(|_| too_large("a stride")))
        .collect::<Result<Vec<_>>>()?;
    let ndim = i32::try_from(shape.len()).map_err(|_| too_large("the rank"))?;
    let byte_offset = u64::try_from(array.byte_offset()).map_err(|_| too_large("the offset"))?;
    let mut ctx = Box::new(ExportCtx {
        _array: array.clone(),
        shape,
        strides,
    });
    let tensor = DLTensor {
        data: address as *mut c_void,
        device: backend.dlpack_device(),
        ndim,
        dtype: super::dl_dtype(array.dtype()),
        shape: ctx.shape.as_mut_ptr(),
        strides: ctx.strides.as_mut_ptr(),
        byte_offset,
    };
    Ok((ctx, tensor))
}

/// A DLPack 1.x managed tensor made by [`to_dlpack`]: the owner of a
/// `DLManagedTensorVersioned` that shares an array's buffer. Dropping it runs the deleter;
/// [`into_raw`](Self::into_raw) hands the pointer (and the duty to call the deleter once)
/// to a consumer.
#[derive(Debug)]
pub struct DlpackTensor {
    ptr: NonNull<DLManagedTensorVersioned>,
}

/// An unversioned (pre-1.0, "legacy") DLPack managed tensor made by [`to_dlpack_legacy`],
/// for consumers that only take `DLManagedTensor` (capsules named `"dltensor"`).
#[derive(Debug)]
pub struct DlpackLegacyTensor {
    ptr: NonNull<DLManagedTensor>,
}

/// Exports `array` without a copy; work on it is finished first where the backend is
/// asynchronous (the host waits). [`to_dlpack_on_stream`] orders it device-side instead.
pub fn to_dlpack<B: DlpackBackend>(array: &RawArray<B>) -> Result<DlpackTensor> {
    to_dlpack_on_stream(array, None)
}

/// Exports `array` for a consumer that will use it on `consumer_stream` (a raw stream handle
/// of the array's device, what `__dlpack__(stream=...)` receives): the backend's writes to
/// the array are ordered before work on that stream (an event recorded and waited for, no
/// host wait). `None`: the host waits for them, so any stream may use the tensor.
pub fn to_dlpack_on_stream<B: DlpackBackend>(
    array: &RawArray<B>,
    consumer_stream: Option<usize>,
) -> Result<DlpackTensor> {
    let (ctx, tensor) = build(array, consumer_stream)?;
    let managed = Box::new(DLManagedTensorVersioned {
        version: DLPACK_VERSION,
        manager_ctx: Box::into_raw(ctx) as *mut c_void,
        deleter: Some(delete_versioned::<B>),
        flags: 0,
        dl_tensor: tensor,
    });
    Ok(DlpackTensor {
        ptr: NonNull::from(Box::leak(managed)),
    })
}

/// Exports `array` as an unversioned `DLManagedTensor` (for consumers older than DLPack 1.0);
/// `consumer_stream` as in [`to_dlpack_on_stream`].
pub fn to_dlpack_legacy<B: DlpackBackend>(
    array: &RawArray<B>,
    consumer_stream: Option<usize>,
) -> Result<DlpackLegacyTensor> {
    let (ctx, tensor) = build(array, consumer_stream)?;
    let managed = Box::new(DLManagedTensor {
        dl_tensor: tensor,
        manager_ctx: Box::into_raw(ctx) as *mut c_void,
        deleter: Some(delete_legacy::<B>),
    });
    Ok(DlpackLegacyTensor {
        ptr: NonNull::from(Box::leak(managed)),
    })
}

/// The deleter of [`to_dlpack`]'s tensors.
///
/// # Safety
/// `managed` is null or a tensor made by [`to_dlpack_on_stream`] for backend `B`, not yet
/// deleted.
unsafe extern "C" fn delete_versioned<B: Backend>(managed: *mut DLManagedTensorVersioned) {
    if managed.is_null() {
        return;
    }
    // No unwinding into C: a panic (none is expected: dropping an array catches its
    // destructor's) is caught here and the tensor leaks.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: made by `Box::leak` in `to_dlpack_on_stream`, deleted once (the caller's
        // contract), and its `manager_ctx` by `Box::into_raw` of an `ExportCtx<B>`.
        unsafe {
            let managed = Box::from_raw(managed);
            drop(Box::from_raw(managed.manager_ctx as *mut ExportCtx<B>));
        }
    }));
}

/// The deleter of [`to_dlpack_legacy`]'s tensors.
///
/// # Safety
/// `managed` is null or a tensor made by [`to_dlpack_legacy`] for backend `B`, not yet
/// deleted.
unsafe extern "C" fn delete_legacy<B: Backend>(managed: *mut DLManagedTensor) {
    if managed.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: made by `Box::leak` in `to_dlpack_legacy`, deleted once (the caller's
        // contract), and its `manager_ctx` by `Box::into_raw` of an `ExportCtx<B>`.
        unsafe {
            let managed = Box::from_raw(managed);
            drop(Box::from_raw(managed.manager_ctx as *mut ExportCtx<B>));
        }
    }));
}

macro_rules! owner_methods {
    ($owner:ident, $managed:ty) => {
        impl $owner {
            /// The tensor (data pointer, device, shape, strides, ...).
            pub fn tensor(&self) -> &DLTensor {
                // SAFETY: `ptr` is a live managed tensor this owner has not handed out.
                unsafe { &self.ptr.as_ref().dl_tensor }
            }

            /// The managed tensor's address, still owned by `self`.
            pub fn as_ptr(&self) -> *mut $managed {
                self.ptr.as_ptr()
            }

            /// Hands the managed tensor to a consumer, who must call its deleter exactly
            /// once (e.g. put it in a PyCapsule for `from_dlpack`).
            pub fn into_raw(self) -> *mut $managed {
                let ptr = self.ptr.as_ptr();
                std::mem::forget(self);
                ptr
            }
        }

        impl Drop for $owner {
            fn drop(&mut self) {
                let managed = self.ptr.as_ptr();
                // SAFETY: `managed` is live and owned by `self`; its deleter is one of ours
                // (set at creation) and runs once, here.
                unsafe {
                    if let Some(deleter) = (*managed).deleter {
                        deleter(managed);
                    }
                }
            }
        }
    };
}

owner_methods!(DlpackTensor, DLManagedTensorVersioned);
owner_methods!(DlpackLegacyTensor, DLManagedTensor);

impl DlpackTensor {
    /// The `DLPACK_FLAG_BITMASK_*` flags (exports set none: the consumer may write).
    pub fn flags(&self) -> u64 {
        // SAFETY: `ptr` is a live managed tensor this owner has not handed out.
        unsafe { self.ptr.as_ref().flags }
    }
}
