//! Literal operands (`x.ex() * 2.0`): typed from the other operand of the operation, and
//! refused unless that type holds the value exactly (a silently rounded or saturated
//! literal would change results without a word).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// A literal operand, typed from the other operand of the operation.
#[derive(Debug, Clone, Copy)]
pub enum Literal {
    /// An f64 (Rust `2.5` with no suffix is one).
    Float(f64),
    /// An f32, kept as written so that messages show it (not its f64 expansion) and it is
    /// f32 where nothing else gives a type.
    Float32(f32),
    /// Any Rust integer up to 64 bits, signed or not.
    Int(i128),
    Bool(bool),
    /// A value of an exact type (no conversion).
    Typed(Scalar),
}

impl Literal {
    /// The literal as a scalar of type `dtype`, if it is represented exactly.
    #[inline]
    pub fn to_scalar(self, dtype: DType) -> Result<Scalar> {
        match self {
            Literal::Float(v) => Scalar::from_f64_lit(v, dtype),
            Literal::Float32(v) => Scalar::from_f32_lit(v, dtype),
            Literal::Int(v) => Scalar::from_int_lit(v, dtype),
            Literal::Bool(v) if dtype == DType::Bool => Ok(Scalar::Bool(v)),
            Literal::Bool(v) => Err(Error::ScalarOutOfRange {
                value: v.to_string(),
                dtype,
            }),
            Literal::Typed(s) if s.dtype() == dtype => Ok(s),
            Literal::Typed(s) => Err(Error::DTypeMismatch {
                op: "a typed scalar operand".into(),
                lhs: dtype,
                rhs: s.dtype(),
            }),
        }
    }

    /// The literal's own type when nothing gives it one: f64, f32, i64 (u64 beyond it).
    pub(crate) fn natural(self) -> Scalar {
        match self {
            Literal::Float(v) => Scalar::F64(v),
            Literal::Float32(v) => Scalar::F32(v),
            Literal::Int(v) => match i64::try_from(v) {
                Ok(v) => Scalar::I64(v),
                Err(_) => Scalar::U64(v as u64),
            },
            Literal::Bool(v) => Scalar::Bool(v),
            Literal::Typed(s) => s,
        }
    }
}
