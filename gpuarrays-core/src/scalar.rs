//! `Scalar`: one value of any element type, and the cast rules every backend implements.
//!
//! Cast semantics (identical on every backend, checked by the conformance suite):
//! - between numeric types: Rust's `as` — integers wrap (two's complement truncation),
//!   floats to integers truncate toward zero and saturate, NaN becomes 0, f64 to f32 rounds
//!   to nearest;
//! - to f16 and bf16: the exact source value rounded once to nearest (ties to even), beyond
//!   the range to ±infinity (never through f32, which would round twice); from f16 and bf16:
//!   the exact value widened to f32, then the rule for f32;
//! - to bool: `x != 0` (a complex value is true if either part is non-zero);
//! - from bool: 0 or 1;
//! - complex to real or integer: the real part, then the rule above;
//! - real to complex: `(x, 0)`.

use std::fmt;

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::host::half_types::{bf16_from_f64, f16_from_f64, int_to_f64_odd};

/// One value of any element type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
    C32(Complex32),
    C64(Complex64),
}

/// `v` (a primitive number, the value of the scalar `src`) cast to `to`; to f16 and bf16,
/// `src` is rounded from its exact value instead.
macro_rules! from_prim {
    ($src:expr, $v:expr, $to:expr) => {{
        let v = $v;
        match $to {
            DType::Bool => Scalar::Bool(v != (0 as _)),
            DType::I8 => Scalar::I8(v as i8),
            DType::U8 => Scalar::U8(v as u8),
            DType::I16 => Scalar::I16(v as i16),
            DType::U16 => Scalar::U16(v as u16),
            DType::I32 => Scalar::I32(v as i32),
            DType::U32 => Scalar::U32(v as u32),
            DType::I64 => Scalar::I64(v as i64),
            DType::U64 => Scalar::U64(v as u64),
            DType::F16 | DType::BF16 => $src.to_half($to),
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
            Scalar::I8(_) => DType::I8,
            Scalar::U8(_) => DType::U8,
            Scalar::I16(_) => DType::I16,
            Scalar::U16(_) => DType::U16,
            Scalar::I32(_) => DType::I32,
            Scalar::U32(_) => DType::U32,
            Scalar::I64(_) => DType::I64,
            Scalar::U64(_) => DType::U64,
            Scalar::F16(_) => DType::F16,
            Scalar::BF16(_) => DType::BF16,
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
            Scalar::Bool(v) => from_prim!(self, v as u8, to),
            Scalar::I8(v) => from_prim!(self, v, to),
            Scalar::U8(v) => from_prim!(self, v, to),
            Scalar::I16(v) => from_prim!(self, v, to),
            Scalar::U16(v) => from_prim!(self, v, to),
            Scalar::I32(v) => from_prim!(self, v, to),
            Scalar::U32(v) => from_prim!(self, v, to),
            Scalar::I64(v) => from_prim!(self, v, to),
            Scalar::U64(v) => from_prim!(self, v, to),
            Scalar::F16(v) => from_prim!(self, v.to_f32(), to),
            Scalar::BF16(v) => from_prim!(self, v.to_f32(), to),
            Scalar::F32(v) => from_prim!(self, v, to),
            Scalar::F64(v) => from_prim!(self, v, to),
            Scalar::C32(v) => match to {
                DType::Bool => Scalar::Bool(v.re != 0.0 || v.im != 0.0),
                DType::C32 => Scalar::C32(v),
                DType::C64 => Scalar::C64(Complex64::new(v.re as f64, v.im as f64)),
                _ => from_prim!(self, v.re, to),
            },
            Scalar::C64(v) => match to {
                DType::Bool => Scalar::Bool(v.re != 0.0 || v.im != 0.0),
                DType::C32 => Scalar::C32(Complex32::new(v.re as f32, v.im as f32)),
                DType::C64 => Scalar::C64(v),
                _ => from_prim!(self, v.re, to),
            },
        }
    }

    /// The cast to f16 or bf16 (`to`): the exact value (an f64 that is exact, or rounded to
    /// odd for 64-bit integers), rounded once.
    fn to_half(self, to: DType) -> Scalar {
        let exact = match self {
            Scalar::Bool(v) => f64::from(u8::from(v)),
            Scalar::I8(v) => f64::from(v),
            Scalar::U8(v) => f64::from(v),
            Scalar::I16(v) => f64::from(v),
            Scalar::U16(v) => f64::from(v),
            Scalar::I32(v) => f64::from(v),
            Scalar::U32(v) => f64::from(v),
            Scalar::I64(v) => int_to_f64_odd(i128::from(v)),
            Scalar::U64(v) => int_to_f64_odd(i128::from(v)),
            Scalar::F16(v) => v.to_f64(),
            Scalar::BF16(v) => v.to_f64(),
            Scalar::F32(v) => f64::from(v),
            Scalar::F64(v) => v,
            Scalar::C32(v) => f64::from(v.re),
            Scalar::C64(v) => v.re,
        };
        if to == DType::F16 {
            Scalar::F16(f16_from_f64(exact))
        } else {
            Scalar::BF16(bf16_from_f64(exact))
        }
    }

    /// A literal written as f64 (what `expr * 2.5` passes), converted to `dtype` only if it
    /// is in range and represented exactly: an integer type takes only whole numbers
    /// within its range (`2.5`, `2^64` for u64 and `2^63` for i64 are errors, not a
    /// truncation or saturation); bool takes 0 and 1; f32 (and c32) accept rounding but not
    /// a finite value beyond its range (`1e300` would silently become infinity); NaN and
    /// infinities convert to every float type.
    #[inline]
    pub fn from_f64_lit(value: f64, dtype: DType) -> Result<Scalar> {
        Self::float_lit(value, dtype, || shown_f64(value))
    }

    /// A literal written as f32: the rules of [`from_f64_lit`](Self::from_f64_lit) for its
    /// exact value (every f32 is an f64), reported as the f32 the user wrote.
    #[inline]
    pub fn from_f32_lit(value: f32, dtype: DType) -> Result<Scalar> {
        if dtype == DType::F32 {
            return Ok(Scalar::F32(value));
        }
        Self::float_lit(value as f64, dtype, || {
            if shown_f64(value as f64).contains('e') {
                format!("{value:e}")
            } else {
                value.to_string()
            }
        })
    }

    fn float_lit(value: f64, dtype: DType, shown: impl FnOnce() -> String) -> Result<Scalar> {
        let fits = match dtype {
            DType::F64 | DType::C64 => true,
            DType::F32 | DType::C32 => !value.is_finite() || (value as f32).is_finite(),
            DType::F16 => !value.is_finite() || f16_from_f64(value).is_finite(),
            DType::BF16 => !value.is_finite() || bf16_from_f64(value).is_finite(),
            DType::Bool => value == 0.0 || value == 1.0,
            _ => match int_range(dtype) {
                // Both bounds are powers of two (or zero), exact in f64.
                Some((lo, hi)) => value.fract() == 0.0 && value >= lo as f64 && value < hi as f64,
                None => false,
            },
        };
        if fits {
            Ok(Scalar::F64(value).cast(dtype))
        } else {
            Err(Error::ScalarOutOfRange {
                value: shown(),
                dtype,
            })
        }
    }

    /// An integer literal converted to `dtype` only if exactly representable (checked in
    /// i128, so no value near a type's bound passes by rounding or saturation).
    #[inline]
    pub fn from_i64_lit(value: i64, dtype: DType) -> Result<Scalar> {
        Self::from_int_lit(value as i128, dtype)
    }

    /// An integer literal of any Rust integer type up to 64 bits (as i128), converted to
    /// `dtype` only if exactly representable: within an integer type's range; 0 or 1 for
    /// bool; for floats (and the real part of complex), only if the float holds exactly
    /// that integer (`2^53 + 2` is an f64, `2^53 + 1` is not).
    pub fn from_int_lit(value: i128, dtype: DType) -> Result<Scalar> {
        let exact_in = |as_float: f64| as_float.is_finite() && as_float as i128 == value;
        let fits = match dtype {
            DType::Bool => value == 0 || value == 1,
            DType::F32 | DType::C32 => exact_in(value as f32 as f64),
            DType::F16 => exact_in(f16_from_f64(int_to_f64_odd(value)).to_f64()),
            DType::BF16 => exact_in(bf16_from_f64(int_to_f64_odd(value)).to_f64()),
            DType::F64 | DType::C64 => exact_in(value as f64),
            _ => int_range(dtype).is_some_and(|(lo, hi)| value >= lo && value < hi),
        };
        if !fits {
            return Err(Error::ScalarOutOfRange {
                value: value.to_string(),
                dtype,
            });
        }
        // In range: the casts below are exact.
        Ok(match dtype {
            DType::Bool => Scalar::Bool(value == 1),
            DType::I8 => Scalar::I8(value as i8),
            DType::U8 => Scalar::U8(value as u8),
            DType::I16 => Scalar::I16(value as i16),
            DType::U16 => Scalar::U16(value as u16),
            DType::I32 => Scalar::I32(value as i32),
            DType::U32 => Scalar::U32(value as u32),
            DType::I64 => Scalar::I64(value as i64),
            DType::U64 => Scalar::U64(value as u64),
            DType::F16 => Scalar::F16(f16_from_f64(value as f64)),
            DType::BF16 => Scalar::BF16(bf16_from_f64(value as f64)),
            DType::F32 => Scalar::F32(value as f32),
            DType::F64 => Scalar::F64(value as f64),
            DType::C32 => Scalar::C32(Complex32::new(value as f32, 0.0)),
            DType::C64 => Scalar::C64(Complex64::new(value as f64, 0.0)),
        })
    }

    /// Little-endian bytes of the value, as kernels receive it (bool as one byte).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match *self {
            Scalar::Bool(v) => vec![v as u8],
            Scalar::I8(v) => v.to_le_bytes().to_vec(),
            Scalar::U8(v) => vec![v],
            Scalar::I16(v) => v.to_le_bytes().to_vec(),
            Scalar::U16(v) => v.to_le_bytes().to_vec(),
            Scalar::F16(v) => v.to_le_bytes().to_vec(),
            Scalar::BF16(v) => v.to_le_bytes().to_vec(),
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

/// A float as a message shows it: as written for ordinary magnitudes (`0.1`, `2.5`), in
/// exponent form beyond them (`1e300`, not three hundred digits).
fn shown_f64(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// The range `lo..hi` (half-open) of an integer type, in i128; `None` for other types.
fn int_range(dtype: DType) -> Option<(i128, i128)> {
    Some(match dtype {
        DType::I8 => (-(1 << 7), 1 << 7),
        DType::U8 => (0, 1 << 8),
        DType::I16 => (-(1 << 15), 1 << 15),
        DType::U16 => (0, 1 << 16),
        DType::I32 => (-(1 << 31), 1 << 31),
        DType::U32 => (0, 1 << 32),
        DType::I64 => (-(1 << 63), 1 << 63),
        DType::U64 => (0, 1 << 64),
        _ => return None,
    })
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(v) => write!(f, "{v}"),
            Scalar::I8(v) => write!(f, "{v}"),
            Scalar::U8(v) => write!(f, "{v}"),
            Scalar::I16(v) => write!(f, "{v}"),
            Scalar::U16(v) => write!(f, "{v}"),
            Scalar::F16(v) => write!(f, "{v}"),
            Scalar::BF16(v) => write!(f, "{v}"),
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

    /// Casts to the half types round once from the exact value; from them, widen to f32.
    #[test]
    fn half_casts_round_once() {
        // 1 + 2^-11 + 2^-40 is above the f16 tie 1 + 2^-11: nearest is 1 + 2^-10 (through
        // f32 it would round to the tie, then to even, 1).
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(
            Scalar::F64(x).cast(DType::F16),
            Scalar::F16(f16::from_f32(1.0 + 2f32.powi(-10)))
        );
        // An i64 just above a bf16 tie, whose f64 (or f32) rounding is the tie itself.
        let v = (1i64 << 60) + (1 << 52) + 1;
        assert_eq!(
            Scalar::I64(v).cast(DType::BF16),
            Scalar::BF16(bf16::from_f32(((1u64 << 60) + (1 << 53)) as f32))
        );
        assert_eq!(
            Scalar::I64(-v).cast(DType::BF16),
            Scalar::BF16(bf16::from_f32(-(((1u64 << 60) + (1 << 53)) as f32)))
        );
        assert_eq!(
            Scalar::U64(u64::MAX).cast(DType::F16),
            Scalar::F16(f16::INFINITY)
        );
        assert_eq!(
            Scalar::F16(f16::from_f32(-2.5)).cast(DType::I8),
            Scalar::I8(-2)
        );
        assert_eq!(
            Scalar::F16(f16::INFINITY).cast(DType::I16),
            Scalar::I16(i16::MAX)
        );
        assert_eq!(Scalar::BF16(bf16::NAN).cast(DType::U16), Scalar::U16(0));
        assert_eq!(Scalar::I32(-129).cast(DType::I8), Scalar::I8(127));
        assert_eq!(Scalar::I32(70_000).cast(DType::U16), Scalar::U16(4464));
        assert!(Scalar::from_f64_lit(70_000.0, DType::F16).is_err());
        assert!(Scalar::from_int_lit(2049, DType::F16).is_err());
        assert_eq!(
            Scalar::from_int_lit(2048, DType::F16).unwrap(),
            Scalar::F16(f16::from_f32(2048.0))
        );
        assert!(Scalar::from_int_lit(128, DType::I8).is_err());
        assert!(Scalar::from_int_lit(-1, DType::U16).is_err());
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

    /// Literals at and beyond each integer type's bounds, and floats beyond f32's range:
    /// refused, never saturated or turned into infinity; exact values accepted.
    #[test]
    fn literals_near_the_bounds_are_exact_or_refused() {
        let two_64 = 18_446_744_073_709_551_616.0_f64;
        let two_63 = 9_223_372_036_854_775_808.0_f64;
        assert!(Scalar::from_f64_lit(two_64, DType::U64).is_err());
        assert!(Scalar::from_f64_lit(two_63, DType::I64).is_err());
        assert_eq!(
            Scalar::from_f64_lit(-two_63, DType::I64).unwrap(),
            Scalar::I64(i64::MIN)
        );
        assert_eq!(
            Scalar::from_f64_lit(two_63, DType::U64).unwrap(),
            Scalar::U64(1 << 63)
        );
        assert!(Scalar::from_f64_lit(4_294_967_296.0, DType::U32).is_err());
        assert!(Scalar::from_f64_lit(-1.0, DType::U8).is_err());
        assert!(Scalar::from_f64_lit(f64::NAN, DType::I32).is_err());
        assert!(Scalar::from_f64_lit(f64::INFINITY, DType::I64).is_err());
        // f32: rounding is fine, overflow to infinity is not; infinities and NaN pass.
        assert!(Scalar::from_f64_lit(1e300, DType::F32).is_err());
        assert!(Scalar::from_f64_lit(-1e39, DType::C32).is_err());
        assert_eq!(
            Scalar::from_f64_lit(0.1, DType::F32).unwrap(),
            Scalar::F32(0.1)
        );
        assert_eq!(
            Scalar::from_f64_lit(f64::INFINITY, DType::F32).unwrap(),
            Scalar::F32(f32::INFINITY)
        );
        assert!(matches!(
            Scalar::from_f64_lit(f64::NAN, DType::F32).unwrap(),
            Scalar::F32(v) if v.is_nan()
        ));
        // Integers as floats: exact ones pass, whatever their size.
        let big = (1i64 << 53) + 2;
        assert_eq!(
            Scalar::from_i64_lit(big, DType::F64).unwrap(),
            Scalar::F64(big as f64)
        );
        assert!(Scalar::from_i64_lit((1 << 53) + 1, DType::F64).is_err());
        assert!(Scalar::from_i64_lit(i64::MAX, DType::F32).is_err());
        assert!(Scalar::from_i64_lit(i64::MAX, DType::F64).is_err());
        assert_eq!(
            Scalar::from_i64_lit(i64::MIN, DType::F32).unwrap(),
            Scalar::F32(i64::MIN as f32)
        );
        assert_eq!(
            Scalar::from_int_lit(u64::MAX as i128, DType::U64).unwrap(),
            Scalar::U64(u64::MAX)
        );
        assert!(Scalar::from_int_lit(u64::MAX as i128, DType::I64).is_err());
        assert!(Scalar::from_int_lit(1 << 64, DType::U64).is_err());
        // An f32 literal is reported as written, not as its f64 expansion.
        let e = Scalar::from_f32_lit(0.1, DType::I32).unwrap_err();
        assert!(e.to_string().contains("scalar 0.1 "), "{e}");
    }
}
