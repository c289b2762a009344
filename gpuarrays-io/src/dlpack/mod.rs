//! DLPack: zero-copy exchange of arrays with PyTorch, CuPy, JAX, NumPy and any other
//! library that speaks [DLPack](https://dmlc.github.io/dlpack/latest/).
//!
//! - **Export** ([`to_dlpack`], [`to_dlpack_on_stream`], [`to_dlpack_legacy`]): a
//!   [`DlpackTensor`] owns a `DLManagedTensorVersioned` whose `manager_ctx` holds a clone of
//!   the array (its `DataRef` keeps the buffer alive) and the shape and strides; the
//!   `deleter` drops them. `into_raw` hands it to C or Python; dropping it unexported
//!   runs the deleter. Views export their strides (negative ones included) and the element
//!   offset as `byte_offset` from the buffer's base.
//! - **Import** ([`from_dlpack`], [`from_dlpack_legacy`], and the `_read_only` forms): the
//!   memory becomes an array's buffer without a copy; the producer's deleter runs exactly
//!   once, when the last array sharing it goes (or at once when the import is refused).
//!
//! Backends take part through [`DlpackBackend`]: the device type and id of their memory,
//! a buffer's address, ordering their work before a consumer's stream, and wrapping (and
//! handing back) a foreign pointer. The platform-specific halves live in the backend crates
//! (`CpuBuffer::foreign`, `HipBackend::wrap_foreign`, ...); the implementations here (for
//! [`CpuBackend`](gpuarrays_cpu_ref::CpuBackend) with the `cpu` feature, `HipBackend` with
//! `hip`) only forward.
//!
//! Element types: bool (`kDLBool`, 8 bits), u8, i32, u32, i64, u64, f32, f64, and complex
//! (`kDLComplex` 64 and 128). Others (f16, bf16, i8, i16, vector lanes) are refused on
//! import with [`Error::UnsupportedDType`].

mod backends;
mod export;
pub mod ffi;
mod import;

pub use export::{
    DlpackLegacyTensor, DlpackTensor, to_dlpack, to_dlpack_legacy, to_dlpack_on_stream,
};
pub use import::{
    from_dlpack, from_dlpack_legacy, from_dlpack_legacy_read_only, from_dlpack_read_only,
};

use gpuarrays_core::{Backend, DType};

use crate::error::{Error, Format, Result};
use ffi::{DLDataType, DLDevice, KDL_BFLOAT, KDL_BOOL, KDL_COMPLEX, KDL_FLOAT, KDL_INT, KDL_UINT};

/// What a backend provides for DLPack exchange. The methods are low level: use the
/// functions of this module.
pub trait DlpackBackend: Backend {
    /// The DLPack device of this backend's memory (`kDLCPU` 0, `kDLCUDA`/`kDLROCM` ordinal).
    fn dlpack_device(&self) -> DLDevice;

    /// The address of byte 0 of `buffer`, as a DLPack `data` pointer. Must leave the bytes
    /// initialised for another library to read.
    fn buffer_address(&self, buffer: &Self::Buffer) -> usize;

    /// Orders this backend's writes to `buffer` before work a consumer enqueues on
    /// `consumer_stream` (a raw stream handle of the device); `None`: before any later work
    /// (the host waits). Host backends whose calls finish before they return do nothing.
    fn order_for_consumer(
        &self,
        buffer: &Self::Buffer,
        consumer_stream: Option<usize>,
    ) -> gpuarrays_core::Result<()>;

    /// Wraps `bytes` bytes at `address` owned by someone else as a buffer that is never
    /// freed by this backend.
    ///
    /// # Safety
    /// The memory must be of this backend's device, valid for reads and writes for as long as
    /// the buffer lives, and any work of its owner on it already ordered before this
    /// thread's use of it.
    unsafe fn wrap_foreign(
        &self,
        address: usize,
        bytes: usize,
    ) -> gpuarrays_core::Result<Self::Buffer>;

    /// Gives a buffer from [`wrap_foreign`](Self::wrap_foreign) up: waits until this
    /// backend's work on it has completed, then drops it without freeing the memory.
    /// Must not panic.
    fn release_foreign(&self, buffer: Self::Buffer);
}

/// The DLPack type of a gpuarrays element type.
pub(crate) fn dl_dtype(dtype: DType) -> DLDataType {
    let (code, bits) = match dtype {
        DType::Bool => (KDL_BOOL, 8),
        DType::I8 => (KDL_INT, 8),
        DType::U8 => (KDL_UINT, 8),
        DType::I16 => (KDL_INT, 16),
        DType::U16 => (KDL_UINT, 16),
        DType::F16 => (KDL_FLOAT, 16),
        DType::BF16 => (KDL_BFLOAT, 16),
        DType::I32 => (KDL_INT, 32),
        DType::U32 => (KDL_UINT, 32),
        DType::I64 => (KDL_INT, 64),
        DType::U64 => (KDL_UINT, 64),
        DType::F32 => (KDL_FLOAT, 32),
        DType::F64 => (KDL_FLOAT, 64),
        DType::C32 => (KDL_COMPLEX, 64),
        DType::C64 => (KDL_COMPLEX, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// The gpuarrays element type of a DLPack type, or why there is none.
pub(crate) fn from_dl_dtype(t: DLDataType) -> Result<DType> {
    let dtype = match (t.code, t.bits, t.lanes) {
        (KDL_BOOL, 8, 1) => Some(DType::Bool),
        (KDL_INT, 8, 1) => Some(DType::I8),
        (KDL_UINT, 8, 1) => Some(DType::U8),
        (KDL_INT, 16, 1) => Some(DType::I16),
        (KDL_UINT, 16, 1) => Some(DType::U16),
        (KDL_FLOAT, 16, 1) => Some(DType::F16),
        (KDL_BFLOAT, 16, 1) => Some(DType::BF16),
        (KDL_INT, 32, 1) => Some(DType::I32),
        (KDL_UINT, 32, 1) => Some(DType::U32),
        (KDL_INT, 64, 1) => Some(DType::I64),
        (KDL_UINT, 64, 1) => Some(DType::U64),
        (KDL_FLOAT, 32, 1) => Some(DType::F32),
        (KDL_FLOAT, 64, 1) => Some(DType::F64),
        (KDL_COMPLEX, 64, 1) => Some(DType::C32),
        (KDL_COMPLEX, 128, 1) => Some(DType::C64),
        _ => None,
    };
    dtype.ok_or_else(|| {
        let name = match t.code {
            KDL_INT => "int",
            KDL_UINT => "uint",
            KDL_FLOAT => "float",
            KDL_BFLOAT => "bfloat",
            KDL_COMPLEX => "complex",
            KDL_BOOL => "bool",
            _ => "code",
        };
        let hint = if t.lanes != 1 {
            "gpuarrays has no vector element types; pass a tensor with lanes = 1".to_string()
        } else {
            "convert it first (e.g. `.to(torch.float32)`, `.astype(np.float32)`, or to int32 \
             for 8- and 16-bit integers)"
                .to_string()
        };
        Error::UnsupportedDType {
            format: Format::Dlpack,
            descr: format!("{name}{} (code {}, lanes {})", t.bits, t.code, t.lanes),
            hint,
        }
    })
}
