//! The instructions of the operations beyond the C basics (rounding, `log1p` ... `sigmoid`,
//! `sign`, classification, complex parts, remainder, shifts, `atan2`, `hypot`,
//! `fmin`/`fmax`), over the per-element functions of `gpuarrays_core::host::semantics`.

use gpuarrays_core::host::semantics::{
    Angle, Classify, MoreFloatFns, Ordered, Parts, Remainder, Rounding, Shifts,
};
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};
use gpuarrays_core::{DType, Element, dispatch_dtype};

use super::super::multiversion::kernel;
use super::Compiled;
use crate::error::invalid;

/// `op(a)` for the operations of this module.
pub(super) fn unary(op: UnaryOp, a: DType) -> Compiled {
    match op {
        UnaryOp::Log1p => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.ln_1p_()),
        UnaryOp::Expm1 => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.exp_m1_()),
        UnaryOp::Tan => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.tan_()),
        UnaryOp::Atan => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.atan_()),
        UnaryOp::Asin => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.asin_()),
        UnaryOp::Acos => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.acos_()),
        UnaryOp::Sinh => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.sinh_()),
        UnaryOp::Cosh => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.cosh_()),
        UnaryOp::Sigmoid => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.sigmoid_()),
        UnaryOp::Floor => map_arms!(
            a,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x| x.floor_()
        ),
        UnaryOp::Ceil => map_arms!(
            a,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x| x.ceil_()
        ),
        UnaryOp::Round => map_arms!(
            a,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x| x.round_()
        ),
        UnaryOp::Trunc => map_arms!(
            a,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x| x.trunc_()
        ),
        UnaryOp::Sign => map_arms!(
            a,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x| x.sign_()
        ),
        UnaryOp::IsNan => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            bool,
            |x| x.is_nan_()
        ),
        UnaryOp::IsInf => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            bool,
            |x| x.is_inf_()
        ),
        UnaryOp::IsFinite => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            bool,
            |x| x.is_finite_()
        ),
        UnaryOp::Real => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            <T as Parts>::Real,
            |x| x.re_()
        ),
        UnaryOp::Imag => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            <T as Parts>::Real,
            |x| x.im_()
        ),
        UnaryOp::Conj => map_arms!(
            a,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x| x.conj_()
        ),
        UnaryOp::Angle => map_arms!(
            a,
            op,
            [F16, BF16, F32, F64, C32, C64],
            <T as Angle>::Real,
            |x| x.angle_()
        ),
        other => Err(invalid(format!("{other} on {a}"))),
    }
}

/// `op(a, b)` for the operations of this module.
pub(super) fn binary(op: BinaryOp, a: DType, b: DType) -> Compiled {
    match op {
        BinaryOp::Rem => zip_arms!(
            a,
            b,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T,
            |x, y| x.rem_(y)
        ),
        BinaryOp::Shl => zip_arms!(
            a,
            b,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x, y| x.shl_(y)
        ),
        BinaryOp::Shr => zip_arms!(
            a,
            b,
            op,
            [I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x, y| x.shr_(y)
        ),
        BinaryOp::Atan2 => zip_arms!(a, b, op, [F16, BF16, F32, F64], T, |x, y| x.atan2_(y)),
        BinaryOp::Hypot => zip_arms!(a, b, op, [F16, BF16, F32, F64], T, |x, y| x.hypot_(y)),
        BinaryOp::Fmin => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            T,
            |x, y| x.fmin_(y)
        ),
        BinaryOp::Fmax => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            T,
            |x, y| x.fmax_(y)
        ),
        other => Err(invalid(format!("{other} on {a} and {b}"))),
    }
}
