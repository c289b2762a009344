//! `Scalar`: one value of any element type, and the cast rules every backend implements.
//!
//! Cast semantics (identical on every backend, checked by the conformance suite):
//! - between numeric types: Rust's `as` — integers wrap (two's complement truncation),
//!   floats to integers truncate toward zero and saturate, NaN becomes 0, f64 to f32 rounds
//!   to nearest;
//! - to bool: `x != 0` (a complex value is true if either part is non-zero);
//! - from bool: 0 or 1;
//! - complex to real or integer: the real part, then the rule above;
//! - real to complex: `(x, 0)`.

use std::fmt;

use num_complex::{Complex32, Complex64};

use crate::dtype::DType;
use crate::error::{Error, Result};

/// One value of any element type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    U8(u8),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    C32(Complex32),
    C64(Complex64),
}

macro_rules! from_prim {
    ($v:expr, $to:expr) => {{
        let v = $v;
        match $to {
            DType::Bool => Scalar::Bool(v != (0 as _)),
            DType::U8 => Scalar::U8(v as u8),
            DType::I32 => Scalar::I32(v as i32),
            DType::U32 => Scalar::U32(v as u32),
            DType::I64 => Scalar::I64(v as i64),
            DType::U64 => Scalar::U64(v as u64),
            DType::F32 => Scalar::F32(v as f32),
            DType::F64 => Scalar::F64(v as f64),
            DType::C32 => Scalar::C32(Complex32::new(v as f32, 0.0)),
            DType::C64 => Scalar::C64(Complex64::new(v as f64, 0.0)),
        }
    }};
}

impl Scalar {
    /// The element type of this value.
    pub const fn dtype(&self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::U8(_) => DType::U8,
            Scalar::I32(_) => DType::I32,
            Scalar::U32(_) => DType::U32,
            Scalar::I64(_) => DType::I64,
            Scalar::U64(_) => DType::U64,
            Scalar::F32(_) => DType::F32,
            Scalar::F64(_) => DType::F64,
            Scalar::C32(_) => DType::C32,
            Scalar::C64(_) => DType::C64,
        }
    }

    /// The zero of a type (`false` for bool).
    pub fn zero(dtype: DType) -> Scalar {
        Scalar::U8(0).cast(dtype)
    }

    /// The one of a type (`true` for bool).
    pub fn one(dtype: DType) -> Scalar {
        Scalar::U8(1).cast(dtype)
    }

    /// Converts with the cast rules in the module documentation.
    pub fn cast(self, to: DType) -> Scalar {
        match self {
            Scalar::Bool(v) => from_prim!(v as u8, to),
            Scalar::U8(v) => from_prim!(v, to),
            Scalar::I32(v) => from_prim!(v, to),
            Scalar::U32(v) => from_prim!(v, to),
            Scalar::I64(v) => from_prim!(v, to),
            Scalar::U64(v) => from_prim!(v, to),
            Scalar::F32(v) => from_prim!(v, to),
            Scalar::F64(v) => from_prim!(v, to),
            Scalar::C32(v) => match to {
                DType::Bool => Scalar::Bool(v.re != 0.0 || v.im != 0.0),
                DType::C32 => Scalar::C32(v),
                DType::C64 => Scalar::C64(Complex64::new(v.re as f64, v.im as f64)),
                _ => from_prim!(v.re, to),
            },
            Scalar::C64(v) => match to {
                DType::Bool => Scalar::Bool(v.re != 0.0 || v.im != 0.0),
                DType::C32 => Scalar::C32(Complex32::new(v.re as f32, v.im as f32)),
                DType::C64 => Scalar::C64(v),
                _ => from_prim!(v.re, to),
            },
        }
    }

    /// A literal written as f64 (what `expr * 2.5` passes), converted to `dtype` only if it
    /// is represented exactly (f32 rounding is accepted for f32). `2.5` as an integer type
    /// is an error rather than a silent truncation.
    #[inline]
    pub fn from_f64_lit(value: f64, dtype: DType) -> Result<Scalar> {
        let s = Scalar::F64(value).cast(dtype);
        let exact = match s {
            Scalar::F32(_) | Scalar::F64(_) | Scalar::C32(_) | Scalar::C64(_) => true,
            Scalar::Bool(b) => value == 0.0 || (b && value == 1.0),
            other => other.cast(DType::F64) == Scalar::F64(value),
        };
        if exact {
            Ok(s)
        } else {
            Err(Error::ScalarOutOfRange {
                value: value.to_string(),
                dtype,
            })
        }
    }

    /// An integer literal converted to `dtype` only if exactly representable.
    #[inline]
    pub fn from_i64_lit(value: i64, dtype: DType) -> Result<Scalar> {
        let s = Scalar::I64(value).cast(dtype);
        let exact = match s {
            Scalar::F32(v) => v as f64 == value as f64 && (v as i64) == value,
            Scalar::F64(v) => v as i64 == value && value.unsigned_abs() <= 1 << 53,
            Scalar::C32(v) => v.re as i64 == value && value.unsigned_abs() <= 1 << 24,
            Scalar::C64(v) => v.re as i64 == value && value.unsigned_abs() <= 1 << 53,
            Scalar::Bool(_) => value == 0 || value == 1,
            other => {
                other.cast(DType::I64) == Scalar::I64(value)
                    && (value >= 0 || dtype.is_signed_integer())
            }
        };
        if exact {
            Ok(s)
        } else {
            Err(Error::ScalarOutOfRange {
                value: value.to_string(),
                dtype,
            })
        }
    }

    /// Little-endian bytes of the value, as kernels receive it (bool as one byte).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match *self {
            Scalar::Bool(v) => vec![v as u8],
            Scalar::U8(v) => vec![v],
            Scalar::I32(v) => v.to_le_bytes().to_vec(),
            Scalar::U32(v) => v.to_le_bytes().to_vec(),
            Scalar::I64(v) => v.to_le_bytes().to_vec(),
            Scalar::U64(v) => v.to_le_bytes().to_vec(),
            Scalar::F32(v) => v.to_le_bytes().to_vec(),
            Scalar::F64(v) => v.to_le_bytes().to_vec(),
            Scalar::C32(v) => [v.re.to_le_bytes(), v.im.to_le_bytes()].concat(),
            Scalar::C64(v) => [v.re.to_le_bytes(), v.im.to_le_bytes()].concat(),
        }
    }

    /// The value as f64 (real part for complex, 0/1 for bool): for printing and tolerances.
    pub fn to_f64_lossy(&self) -> f64 {
        match self.cast(DType::F64) {
            Scalar::F64(v) => v,
            _ => f64::NAN,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(v) => write!(f, "{v}"),
            Scalar::U8(v) => write!(f, "{v}"),
            Scalar::I32(v) => write!(f, "{v}"),
            Scalar::U32(v) => write!(f, "{v}"),
            Scalar::I64(v) => write!(f, "{v}"),
            Scalar::U64(v) => write!(f, "{v}"),
            Scalar::F32(v) => write!(f, "{v}"),
            Scalar::F64(v) => write!(f, "{v}"),
            Scalar::C32(v) => write!(f, "{v}"),
            Scalar::C64(v) => write!(f, "{v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_follow_rust_as() {
        assert_eq!(Scalar::F32(-1.7).cast(DType::I32), Scalar::I32(-1));
        assert_eq!(Scalar::F64(f64::NAN).cast(DType::I64), Scalar::I64(0));
        assert_eq!(Scalar::F64(1e20).cast(DType::I32), Scalar::I32(i32::MAX));
        assert_eq!(Scalar::I32(-1).cast(DType::U8), Scalar::U8(255));
        assert_eq!(Scalar::I32(300).cast(DType::Bool), Scalar::Bool(true));
        assert_eq!(Scalar::Bool(true).cast(DType::F64), Scalar::F64(1.0));
        assert_eq!(
            Scalar::C32(Complex32::new(2.5, 1.0)).cast(DType::I32),
            Scalar::I32(2)
        );
        assert_eq!(
            Scalar::C32(Complex32::new(0.0, 1.0)).cast(DType::Bool),
            Scalar::Bool(true)
        );
        assert_eq!(
            Scalar::F32(3.0).cast(DType::C64),
            Scalar::C64(Complex64::new(3.0, 0.0))
        );
        // i64 -> f32 rounds once (not through f64).
        let big = (1i64 << 53) + 1 + (1 << 29);
        assert_eq!(Scalar::I64(big).cast(DType::F32), Scalar::F32(big as f32));
    }

    #[test]
    fn literals_must_be_exact() {
        assert!(Scalar::from_f64_lit(2.5, DType::I32).is_err());
        assert_eq!(
            Scalar::from_f64_lit(2.0, DType::I32).unwrap(),
            Scalar::I32(2)
        );
        assert!(Scalar::from_i64_lit(-1, DType::U32).is_err());
        assert!(Scalar::from_i64_lit(256, DType::U8).is_err());
        assert_eq!(
            Scalar::from_i64_lit(7, DType::F32).unwrap(),
            Scalar::F32(7.0)
        );
        assert!(Scalar::from_f64_lit(0.5, DType::Bool).is_err());
    }
}
