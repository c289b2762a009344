//! Which file element type is which gpuarrays [`DType`], in both directions, and what to
//! tell a user whose file holds a type gpuarrays lacks.
//!
//! | `DType` | NumPy descriptor | safetensors |
//! |---|---|---|
//! | `Bool` | `\|b1` | `BOOL` |
//! | `I8` | `\|i1` | `I8` |
//! | `U8` | `\|u1` | `U8` |
//! | `I16` | `<i2` | `I16` |
//! | `U16` | `<u2` | `U16` |
//! | `I32` | `<i4` | `I32` |
//! | `U32` | `<u4` | `U32` |
//! | `I64` | `<i8` | `I64` |
//! | `U64` | `<u8` | `U64` |
//! | `F16` | `<f2` | `F16` |
//! | `BF16` | — (NumPy has no bfloat16) | `BF16` |
//! | `F32` | `<f4` | `F32` |
//! | `F64` | `<f8` | `F64` |
//! | `C32` (`Complex<f32>`) | `<c8` | `C64` |
//! | `C64` (`Complex<f64>`) | `<c16` | — (no 128-bit complex in safetensors) |
//!
//! Reading accepts either byte order of a NumPy descriptor (`>f8` too); writing always uses
//! little-endian, the byte order of every device gpuarrays runs on.

use gpuarrays_core::DType;
use npyz::{Endianness, TypeChar, TypeStr};
use safetensors::Dtype as StDtype;

use crate::error::{Error, Format, Result};

/// The little-endian NumPy descriptor of a gpuarrays element type (`'<f8'` for `F64`), as
/// NumPy's `dtype.str` spells it; `None` for bf16, which NumPy lacks.
pub fn npy_descr_of(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::Bool => "|b1",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::U16 => "<u2",
        DType::F16 => "<f2",
        DType::BF16 => return None,
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C32 => "<c8",
        DType::C64 => "<c16",
    })
}

/// The gpuarrays element type of a NumPy descriptor, and whether its bytes are big-endian.
pub(crate) fn dtype_from_npy(ty: &TypeStr, format: Format) -> Result<(DType, bool)> {
    let size = ty.size_field();
    let dtype = match (ty.type_char(), size) {
        (TypeChar::Bool, 1) => Some(DType::Bool),
        (TypeChar::Int, 1) => Some(DType::I8),
        (TypeChar::Uint, 1) => Some(DType::U8),
        (TypeChar::Int, 2) => Some(DType::I16),
        (TypeChar::Uint, 2) => Some(DType::U16),
        (TypeChar::Float, 2) => Some(DType::F16),
        (TypeChar::Int, 4) => Some(DType::I32),
        (TypeChar::Uint, 4) => Some(DType::U32),
        (TypeChar::Int, 8) => Some(DType::I64),
        (TypeChar::Uint, 8) => Some(DType::U64),
        (TypeChar::Float, 4) => Some(DType::F32),
        (TypeChar::Float, 8) => Some(DType::F64),
        (TypeChar::Complex, 8) => Some(DType::C32),
        (TypeChar::Complex, 16) => Some(DType::C64),
        _ => None,
    };
    match dtype {
        Some(d) => Ok((d, ty.endianness() == Endianness::Big && d.size() > 1)),
        None => Err(Error::UnsupportedDType {
            format,
            descr: format!("'{ty}'"),
            hint: npy_hint(ty.type_char(), size),
        }),
    }
}

/// What to do with a NumPy array of a type gpuarrays lacks.
fn npy_hint(type_char: TypeChar, size: u64) -> String {
    let supported = "gpuarrays reads bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64, complex64 and complex128";
    let fix = match (type_char, size) {
        (TypeChar::Float, _) => "convert it in NumPy first: arr.astype(np.float64)",
        (TypeChar::Int | TypeChar::Uint, _) => "convert it in NumPy first: arr.astype(np.int64)",
        (TypeChar::Complex, _) => "convert it in NumPy first: arr.astype(np.complex128)",
        (TypeChar::Object, _) => {
            "object arrays are Python pickles, which gpuarrays never runs: save a numeric array instead"
        }
        (TypeChar::TimeDelta | TypeChar::DateTime, _) => {
            "convert it in NumPy first: arr.astype(np.int64) (the count of its time unit)"
        }
        _ => "save a numeric array instead",
    };
    format!("{fix} ({supported})")
}

/// The hint for a structured (record) NumPy array.
pub(crate) fn npy_structured_hint() -> String {
    "structured arrays have no gpuarrays counterpart: save each field as its own array, e.g. np.savez(path, **{n: arr[n] for n in arr.dtype.names})".to_string()
}

/// The safetensors type of a gpuarrays element type.
pub(crate) fn safetensors_dtype(dtype: DType) -> Result<StDtype> {
    Ok(match dtype {
        DType::Bool => StDtype::BOOL,
        DType::I8 => StDtype::I8,
        DType::U8 => StDtype::U8,
        DType::I16 => StDtype::I16,
        DType::U16 => StDtype::U16,
        DType::F16 => StDtype::F16,
        DType::BF16 => StDtype::BF16,
        DType::I32 => StDtype::I32,
        DType::U32 => StDtype::U32,
        DType::I64 => StDtype::I64,
        DType::U64 => StDtype::U64,
        DType::F32 => StDtype::F32,
        DType::F64 => StDtype::F64,
        DType::C32 => StDtype::C64,
        DType::C64 => {
            return Err(Error::UnrepresentableDType {
                format: Format::Safetensors,
                dtype,
                hint: "safetensors has no 128-bit complex type: cast to c32 (Complex<f32>, safetensors C64) with .cast_dyn(DType::C32), or save the real and imaginary parts as two f64 tensors, or use .npy/.npz".to_string(),
            });
        }
    })
}

/// The gpuarrays element type of a safetensors type.
pub(crate) fn dtype_from_safetensors(dtype: StDtype) -> Result<DType> {
    Ok(match dtype {
        StDtype::BOOL => DType::Bool,
        StDtype::I8 => DType::I8,
        StDtype::U8 => DType::U8,
        StDtype::I16 => DType::I16,
        StDtype::U16 => DType::U16,
        StDtype::F16 => DType::F16,
        StDtype::BF16 => DType::BF16,
        StDtype::I32 => DType::I32,
        StDtype::U32 => DType::U32,
        StDtype::I64 => DType::I64,
        StDtype::U64 => DType::U64,
        StDtype::F32 => DType::F32,
        StDtype::F64 => DType::F64,
        StDtype::C64 => DType::C32,
        other => {
            return Err(Error::UnsupportedDType {
                format: Format::Safetensors,
                descr: format!("{other:?}"),
                hint: "convert it to float32 or bfloat16 before saving (8-bit and smaller floats have no gpuarrays type); gpuarrays reads BOOL, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64 and C64".to_string(),
            });
        }
    })
}
