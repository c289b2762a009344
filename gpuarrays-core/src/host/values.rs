//! The unary and binary operations of `kernel::operators` on one [`Scalar`] at a time,
//! computed with the per-type functions of [`crate::host::semantics`] (the ones the CPU
//! reference's block evaluator uses), for the kit's elementwise interpreter.
//!
//! A value-at-a-time interpreter is slow next to a compiled kernel, but it is short, has one
//! code path per operation, and makes every program of every type run on a new backend
//! before that backend has a single kernel of its own.

use crate::error::{Error, Result};
use crate::host::semantics::{
    Abs, Angle, Arith, Bits, Classify, FloatFns, MoreFloatFns, Ordered, Parts, Remainder, Rounding,
    Shifts,
};
use crate::kernel::{BinaryOp, UnaryOp};
use crate::scalar::Scalar;

fn undefined(op: &str, x: Scalar) -> Error {
    Error::invalid_dtype(
        op,
        x.dtype(),
        "the host interpreter has no such operation for this type; core's type rules exclude it",
    )
}

/// `$body` over the numeric variants (every type but bool), the result in the same variant.
macro_rules! numeric {
    ($x:expr, $op:expr, |$a:ident| $body:expr) => {
        match $x {
            Scalar::I8($a) => Scalar::I8($body),
            Scalar::U8($a) => Scalar::U8($body),
            Scalar::I16($a) => Scalar::I16($body),
            Scalar::U16($a) => Scalar::U16($body),
            Scalar::I32($a) => Scalar::I32($body),
            Scalar::U32($a) => Scalar::U32($body),
            Scalar::I64($a) => Scalar::I64($body),
            Scalar::U64($a) => Scalar::U64($body),
            Scalar::F16($a) => Scalar::F16($body),
            Scalar::BF16($a) => Scalar::BF16($body),
            Scalar::F32($a) => Scalar::F32($body),
            Scalar::F64($a) => Scalar::F64($body),
            Scalar::C32($a) => Scalar::C32($body),
            Scalar::C64($a) => Scalar::C64($body),
            other => return Err(undefined($op, other)),
        }
    };
}

/// `$body` over two values of one numeric type.
macro_rules! numeric2 {
    ($x:expr, $y:expr, $op:expr, |$a:ident, $b:ident| $body:expr) => {
        match ($x, $y) {
            (Scalar::I8($a), Scalar::I8($b)) => Scalar::I8($body),
            (Scalar::U8($a), Scalar::U8($b)) => Scalar::U8($body),
            (Scalar::I16($a), Scalar::I16($b)) => Scalar::I16($body),
            (Scalar::U16($a), Scalar::U16($b)) => Scalar::U16($body),
            (Scalar::I32($a), Scalar::I32($b)) => Scalar::I32($body),
            (Scalar::U32($a), Scalar::U32($b)) => Scalar::U32($body),
            (Scalar::I64($a), Scalar::I64($b)) => Scalar::I64($body),
            (Scalar::U64($a), Scalar::U64($b)) => Scalar::U64($body),
            (Scalar::F16($a), Scalar::F16($b)) => Scalar::F16($body),
            (Scalar::BF16($a), Scalar::BF16($b)) => Scalar::BF16($body),
            (Scalar::F32($a), Scalar::F32($b)) => Scalar::F32($body),
            (Scalar::F64($a), Scalar::F64($b)) => Scalar::F64($body),
            (Scalar::C32($a), Scalar::C32($b)) => Scalar::C32($body),
            (Scalar::C64($a), Scalar::C64($b)) => Scalar::C64($body),
            (other, _) => return Err(undefined($op, other)),
        }
    };
}

/// `$body` (of result variant `$out`, or the operands' own with `same`) over two values of
/// one ordered type (bool, integers, real floats).
macro_rules! ordered2 {
    ($x:expr, $y:expr, $op:expr, $wrap:ident, |$a:ident, $b:ident| $body:expr) => {
        match ($x, $y) {
            (Scalar::Bool($a), Scalar::Bool($b)) => ordered2!(@wrap $wrap, Bool, $body),
            (Scalar::I8($a), Scalar::I8($b)) => ordered2!(@wrap $wrap, I8, $body),
            (Scalar::U8($a), Scalar::U8($b)) => ordered2!(@wrap $wrap, U8, $body),
            (Scalar::I16($a), Scalar::I16($b)) => ordered2!(@wrap $wrap, I16, $body),
            (Scalar::U16($a), Scalar::U16($b)) => ordered2!(@wrap $wrap, U16, $body),
            (Scalar::I32($a), Scalar::I32($b)) => ordered2!(@wrap $wrap, I32, $body),
            (Scalar::U32($a), Scalar::U32($b)) => ordered2!(@wrap $wrap, U32, $body),
            (Scalar::I64($a), Scalar::I64($b)) => ordered2!(@wrap $wrap, I64, $body),
            (Scalar::U64($a), Scalar::U64($b)) => ordered2!(@wrap $wrap, U64, $body),
            (Scalar::F16($a), Scalar::F16($b)) => ordered2!(@wrap $wrap, F16, $body),
            (Scalar::BF16($a), Scalar::BF16($b)) => ordered2!(@wrap $wrap, BF16, $body),
            (Scalar::F32($a), Scalar::F32($b)) => ordered2!(@wrap $wrap, F32, $body),
            (Scalar::F64($a), Scalar::F64($b)) => ordered2!(@wrap $wrap, F64, $body),
            (other, _) => return Err(undefined($op, other)),
        }
    };
    (@wrap same, $v:ident, $body:expr) => { Scalar::$v($body) };
    (@wrap bool, $v:ident, $body:expr) => { Scalar::Bool($body) };
}

/// `$body` over two values of one bool or integer type.
macro_rules! bits2 {
    ($x:expr, $y:expr, $op:expr, |$a:ident, $b:ident| $body:expr) => {
        match ($x, $y) {
            (Scalar::Bool($a), Scalar::Bool($b)) => Scalar::Bool($body),
            (Scalar::I8($a), Scalar::I8($b)) => Scalar::I8($body),
            (Scalar::U8($a), Scalar::U8($b)) => Scalar::U8($body),
            (Scalar::I16($a), Scalar::I16($b)) => Scalar::I16($body),
            (Scalar::U16($a), Scalar::U16($b)) => Scalar::U16($body),
            (Scalar::I32($a), Scalar::I32($b)) => Scalar::I32($body),
            (Scalar::U32($a), Scalar::U32($b)) => Scalar::U32($body),
            (Scalar::I64($a), Scalar::I64($b)) => Scalar::I64($body),
            (Scalar::U64($a), Scalar::U64($b)) => Scalar::U64($body),
            (other, _) => return Err(undefined($op, other)),
        }
    };
}

/// `$body` over one real float.
macro_rules! float {
    ($x:expr, $op:expr, |$a:ident| $body:expr) => {
        match $x {
            Scalar::F16($a) => Scalar::F16($body),
            Scalar::BF16($a) => Scalar::BF16($body),
            Scalar::F32($a) => Scalar::F32($body),
            Scalar::F64($a) => Scalar::F64($body),
            other => return Err(undefined($op, other)),
        }
    };
}

/// `$body` over integers and real floats, the result in the same variant.
macro_rules! int_or_float {
    ($x:expr, $op:expr, |$a:ident| $body:expr) => {
        match $x {
            Scalar::I8($a) => Scalar::I8($body),
            Scalar::U8($a) => Scalar::U8($body),
            Scalar::I16($a) => Scalar::I16($body),
            Scalar::U16($a) => Scalar::U16($body),
            Scalar::I32($a) => Scalar::I32($body),
            Scalar::U32($a) => Scalar::U32($body),
            Scalar::I64($a) => Scalar::I64($body),
            Scalar::U64($a) => Scalar::U64($body),
            Scalar::F16($a) => Scalar::F16($body),
            Scalar::BF16($a) => Scalar::BF16($body),
            Scalar::F32($a) => Scalar::F32($body),
            Scalar::F64($a) => Scalar::F64($body),
            other => return Err(undefined($op, other)),
        }
    };
}

/// `$body` over every variant, giving a result of variant `$out` (or the real variant of
/// the operand's type with `real`).
macro_rules! any_type {
    ($x:expr, bool, |$a:ident| $body:expr) => {
        match $x {
            Scalar::Bool($a) => Scalar::Bool($body),
            Scalar::I8($a) => Scalar::Bool($body),
            Scalar::U8($a) => Scalar::Bool($body),
            Scalar::I16($a) => Scalar::Bool($body),
            Scalar::U16($a) => Scalar::Bool($body),
            Scalar::I32($a) => Scalar::Bool($body),
            Scalar::U32($a) => Scalar::Bool($body),
            Scalar::I64($a) => Scalar::Bool($body),
            Scalar::U64($a) => Scalar::Bool($body),
            Scalar::F16($a) => Scalar::Bool($body),
            Scalar::BF16($a) => Scalar::Bool($body),
            Scalar::F32($a) => Scalar::Bool($body),
            Scalar::F64($a) => Scalar::Bool($body),
            Scalar::C32($a) => Scalar::Bool($body),
            Scalar::C64($a) => Scalar::Bool($body),
        }
    };
    ($x:expr, real, |$a:ident| $body:expr) => {
        match $x {
            Scalar::Bool($a) => Scalar::Bool($body),
            Scalar::I8($a) => Scalar::I8($body),
            Scalar::U8($a) => Scalar::U8($body),
            Scalar::I16($a) => Scalar::I16($body),
            Scalar::U16($a) => Scalar::U16($body),
            Scalar::I32($a) => Scalar::I32($body),
            Scalar::U32($a) => Scalar::U32($body),
            Scalar::I64($a) => Scalar::I64($body),
            Scalar::U64($a) => Scalar::U64($body),
            Scalar::F16($a) => Scalar::F16($body),
            Scalar::BF16($a) => Scalar::BF16($body),
            Scalar::F32($a) => Scalar::F32($body),
            Scalar::F64($a) => Scalar::F64($body),
            Scalar::C32($a) => Scalar::F32($body),
            Scalar::C64($a) => Scalar::F64($body),
        }
    };
}

/// The operations of [`UnaryOp`] beyond the C basics.
fn unary_more(op: UnaryOp, x: Scalar) -> Result<Scalar> {
    let name = op.name();
    Ok(match op {
        UnaryOp::Log1p => float!(x, name, |a| a.ln_1p_()),
        UnaryOp::Expm1 => float!(x, name, |a| a.exp_m1_()),
        UnaryOp::Tan => float!(x, name, |a| a.tan_()),
        UnaryOp::Atan => float!(x, name, |a| a.atan_()),
        UnaryOp::Asin => float!(x, name, |a| a.asin_()),
        UnaryOp::Acos => float!(x, name, |a| a.acos_()),
        UnaryOp::Sinh => float!(x, name, |a| a.sinh_()),
        UnaryOp::Cosh => float!(x, name, |a| a.cosh_()),
        UnaryOp::Sigmoid => float!(x, name, |a| a.sigmoid_()),
        UnaryOp::Floor => int_or_float!(x, name, |a| a.floor_()),
        UnaryOp::Ceil => int_or_float!(x, name, |a| a.ceil_()),
        UnaryOp::Round => int_or_float!(x, name, |a| a.round_()),
        UnaryOp::Trunc => int_or_float!(x, name, |a| a.trunc_()),
        UnaryOp::Sign => int_or_float!(x, name, |a| a.sign_()),
        UnaryOp::IsNan => any_type!(x, bool, |a| a.is_nan_()),
        UnaryOp::IsInf => any_type!(x, bool, |a| a.is_inf_()),
        UnaryOp::IsFinite => any_type!(x, bool, |a| a.is_finite_()),
        UnaryOp::Real => any_type!(x, real, |a| a.re_()),
        UnaryOp::Imag => any_type!(x, real, |a| a.im_()),
        UnaryOp::Conj => match x {
            Scalar::C32(a) => Scalar::C32(a.conj_()),
            Scalar::C64(a) => Scalar::C64(a.conj_()),
            other => other,
        },
        UnaryOp::Angle => match x {
            Scalar::F16(a) => Scalar::F16(a.angle_()),
            Scalar::BF16(a) => Scalar::BF16(a.angle_()),
            Scalar::F32(a) => Scalar::F32(a.angle_()),
            Scalar::F64(a) => Scalar::F64(a.angle_()),
            Scalar::C32(a) => Scalar::F32(a.angle_()),
            Scalar::C64(a) => Scalar::F64(a.angle_()),
            other => return Err(undefined(name, other)),
        },
        _ => return Err(undefined(name, x)),
    })
}

/// The operations of [`BinaryOp`] beyond arithmetic and comparisons.
fn binary_more(op: BinaryOp, x: Scalar, y: Scalar) -> Result<Scalar> {
    let name = op.name();
    macro_rules! int_or_float2 {
        (|$a:ident, $b:ident| $body:expr) => {
            match (x, y) {
                (Scalar::I8($a), Scalar::I8($b)) => Scalar::I8($body),
                (Scalar::U8($a), Scalar::U8($b)) => Scalar::U8($body),
                (Scalar::I16($a), Scalar::I16($b)) => Scalar::I16($body),
                (Scalar::U16($a), Scalar::U16($b)) => Scalar::U16($body),
                (Scalar::I32($a), Scalar::I32($b)) => Scalar::I32($body),
                (Scalar::U32($a), Scalar::U32($b)) => Scalar::U32($body),
                (Scalar::I64($a), Scalar::I64($b)) => Scalar::I64($body),
                (Scalar::U64($a), Scalar::U64($b)) => Scalar::U64($body),
                (Scalar::F16($a), Scalar::F16($b)) => Scalar::F16($body),
                (Scalar::BF16($a), Scalar::BF16($b)) => Scalar::BF16($body),
                (Scalar::F32($a), Scalar::F32($b)) => Scalar::F32($body),
                (Scalar::F64($a), Scalar::F64($b)) => Scalar::F64($body),
                (other, _) => return Err(undefined(name, other)),
            }
        };
    }
    macro_rules! ints2 {
        (|$a:ident, $b:ident| $body:expr) => {
            match (x, y) {
                (Scalar::I8($a), Scalar::I8($b)) => Scalar::I8($body),
                (Scalar::U8($a), Scalar::U8($b)) => Scalar::U8($body),
                (Scalar::I16($a), Scalar::I16($b)) => Scalar::I16($body),
                (Scalar::U16($a), Scalar::U16($b)) => Scalar::U16($body),
                (Scalar::I32($a), Scalar::I32($b)) => Scalar::I32($body),
                (Scalar::U32($a), Scalar::U32($b)) => Scalar::U32($body),
                (Scalar::I64($a), Scalar::I64($b)) => Scalar::I64($body),
                (Scalar::U64($a), Scalar::U64($b)) => Scalar::U64($body),
                (other, _) => return Err(undefined(name, other)),
            }
        };
    }
    macro_rules! floats2 {
        (|$a:ident, $b:ident| $body:expr) => {
            match (x, y) {
                (Scalar::F16($a), Scalar::F16($b)) => Scalar::F16($body),
                (Scalar::BF16($a), Scalar::BF16($b)) => Scalar::BF16($body),
                (Scalar::F32($a), Scalar::F32($b)) => Scalar::F32($body),
                (Scalar::F64($a), Scalar::F64($b)) => Scalar::F64($body),
                (other, _) => return Err(undefined(name, other)),
            }
        };
    }
    Ok(match op {
        BinaryOp::Rem => int_or_float2!(|a, b| a.rem_(b)),
        BinaryOp::Shl => ints2!(|a, b| a.shl_(b)),
        BinaryOp::Shr => ints2!(|a, b| a.shr_(b)),
        BinaryOp::Atan2 => floats2!(|a, b| a.atan2_(b)),
        BinaryOp::Hypot => floats2!(|a, b| a.hypot_(b)),
        BinaryOp::Fmin => ordered2!(x, y, name, same, |a, b| a.fmin_(b)),
        BinaryOp::Fmax => ordered2!(x, y, name, same, |a, b| a.fmax_(b)),
        _ => return Err(undefined(name, x)),
    })
}

/// `op x` with the semantics of [`UnaryOp`].
pub(crate) fn unary(op: UnaryOp, x: Scalar) -> Result<Scalar> {
    let name = op.name();
    Ok(match op {
        UnaryOp::Neg => numeric!(x, name, |a| a.neg()),
        UnaryOp::Abs => match x {
            Scalar::C32(a) => Scalar::F32(a.abs_()),
            Scalar::C64(a) => Scalar::F64(a.abs_()),
            _ => match x {
                Scalar::I8(a) => Scalar::I8(a.abs_()),
                Scalar::U8(a) => Scalar::U8(a.abs_()),
                Scalar::I16(a) => Scalar::I16(a.abs_()),
                Scalar::U16(a) => Scalar::U16(a.abs_()),
                Scalar::I32(a) => Scalar::I32(a.abs_()),
                Scalar::U32(a) => Scalar::U32(a.abs_()),
                Scalar::I64(a) => Scalar::I64(a.abs_()),
                Scalar::U64(a) => Scalar::U64(a.abs_()),
                Scalar::F16(a) => Scalar::F16(a.abs_()),
                Scalar::BF16(a) => Scalar::BF16(a.abs_()),
                Scalar::F32(a) => Scalar::F32(a.abs_()),
                Scalar::F64(a) => Scalar::F64(a.abs_()),
                other => return Err(undefined(name, other)),
            },
        },
        UnaryOp::Not => bits2!(x, x, name, |a, _b| a.not()),
        UnaryOp::Sqrt => float!(x, name, |a| a.sqrt_()),
        UnaryOp::Exp => float!(x, name, |a| a.exp_()),
        UnaryOp::Log => float!(x, name, |a| a.ln_()),
        UnaryOp::Sin => float!(x, name, |a| a.sin_()),
        UnaryOp::Cos => float!(x, name, |a| a.cos_()),
        UnaryOp::Tanh => float!(x, name, |a| a.tanh_()),
        other => return unary_more(other, x),
    })
}

/// `x op y` with the semantics of [`BinaryOp`]; both operands have one type.
// One comparison expression serves every ordered type, bool included (`false < true`).
#[allow(clippy::bool_comparison)]
pub(crate) fn binary(op: BinaryOp, x: Scalar, y: Scalar) -> Result<Scalar> {
    let name = op.name();
    Ok(match op {
        BinaryOp::Add => numeric2!(x, y, name, |a, b| a.add(b)),
        BinaryOp::Sub => numeric2!(x, y, name, |a, b| a.sub(b)),
        BinaryOp::Mul => numeric2!(x, y, name, |a, b| a.mul(b)),
        BinaryOp::Div => numeric2!(x, y, name, |a, b| a.div(b)),
        BinaryOp::Pow => match (x, y) {
            (Scalar::F16(a), Scalar::F16(b)) => Scalar::F16(a.pow_(b)),
            (Scalar::BF16(a), Scalar::BF16(b)) => Scalar::BF16(a.pow_(b)),
            (Scalar::F32(a), Scalar::F32(b)) => Scalar::F32(a.pow_(b)),
            (Scalar::F64(a), Scalar::F64(b)) => Scalar::F64(a.pow_(b)),
            (other, _) => return Err(undefined(name, other)),
        },
        BinaryOp::Min => ordered2!(x, y, name, same, |a, b| a.min_(b)),
        BinaryOp::Max => ordered2!(x, y, name, same, |a, b| a.max_(b)),
        // `Scalar`'s `PartialEq` compares values of one variant as the type does: NaN is
        // unequal to everything, complex values compare both parts.
        BinaryOp::Eq => Scalar::Bool(x == y),
        BinaryOp::Ne => Scalar::Bool(x != y),
        BinaryOp::Lt => ordered2!(x, y, name, bool, |a, b| a < b),
        BinaryOp::Le => ordered2!(x, y, name, bool, |a, b| a <= b),
        BinaryOp::Gt => ordered2!(x, y, name, bool, |a, b| a > b),
        BinaryOp::Ge => ordered2!(x, y, name, bool, |a, b| a >= b),
        BinaryOp::And => bits2!(x, y, name, |a, b| a.and(b)),
        BinaryOp::Or => bits2!(x, y, name, |a, b| a.or(b)),
        BinaryOp::Xor => bits2!(x, y, name, |a, b| a.xor(b)),
        other => return binary_more(other, x, y),
    })
}
