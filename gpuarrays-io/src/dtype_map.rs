//! Which file element type is which gpuarrays [`DType`], in both directions, and what to
//! tell a user whose file holds a type gpuarrays lacks.
//!
//! | `DType` | NumPy descriptor | safetensors |
//! |---|---|---|
//! | `Bool` | `\|b1` | `BOOL` |
//! | `U8` | `\|u1` | `U8` |
//! | `I32` | `<i4` | `I32` |
//! | `U32` | `<u4` | `U32` |
//! | `I64` | `<i8` | `I64` |
//! | `U64` | `<u8` | `U64` |
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
/// NumPy's `dtype.str` spells it.
pub fn npy_descr_of(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "|b1",
        DType::U8 => "|u1",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C32 => "<c8",
        DType::C64 => "<c16",
    }
}

/// The gpuarrays element type of a NumPy descriptor, and whether its bytes are big-endian.
pub(crate) fn dtype_from_npy(ty: &TypeStr, format: Format) -> Result<(DType, bool)> {
    let size = ty.size_field();
    let dtype = match (ty.type_char(), size) {
        (TypeChar::Bool, 1) => Some(DType::Bool),
        (TypeChar::Uint, 1) => Some(DType::U8),
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
    let supported = "gpuarrays reads bool, uint8, int32, uint32, int64, uint64, float32, float64, complex64 and complex128";
    let fix = match (type_char, size) {
        (TypeChar::Float, 2) => "convert it in NumPy first: arr.astype(np.float32)",
        (TypeChar::Float, _) => "convert it in NumPy first: arr.astype(np.float64)",
        (TypeChar::Int, 1 | 2) => "convert it in NumPy first: arr.astype(np.int32)",
        (TypeChar::Uint, 2) => "convert it in NumPy first: arr.astype(np.uint32)",
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
        DType::U8 => StDtype::U8,
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
        StDtype::U8 => DType::U8,
        StDtype::I32 => DType::I32,
        StDtype::U32 => DType::U32,
        StDtype::I64 => DType::I64,
        StDtype::U64 => DType::U64,
        StDtype::F32 => DType::F32,
        StDtype::F64 => DType::F64,
        StDtype::C64 => DType::C32,
        other => {
            let fix = match other {
                StDtype::F16 | StDtype::BF16 => {
                    "convert it before saving, e.g. in PyTorch tensor.float() (float32)"
                }
                StDtype::I8 | StDtype::I16 => {
                    "convert it before saving, e.g. in PyTorch tensor.int() (int32)"
                }
                StDtype::U16 => "convert it before saving to uint32 or int32",
                _ => {
                    "convert it to float32 before saving (8-bit and smaller floats have no gpuarrays type)"
                }
            };
            return Err(Error::UnsupportedDType {
                format: Format::Safetensors,
                descr: format!("{other:?}"),
                hint: format!(
                    "{fix}; gpuarrays reads BOOL, U8, I32, U32, I64, U64, F32, F64 and C64"
                ),
            });
        }
    })
}
