//! The instructions of a fused program ([`gpuarrays_core::kernel::Node`]: unary, binary,
//! cast, select, index, random), each compiled to a [`Kernel`] for its operand types: the
//! operator and the type are matched here, once per call, and the kernel is one
//! monomorphised loop (see [`super::kernel`]) over the per-element functions of
//! [`gpuarrays_core::host::semantics`], which define the results.
//!
//! Each function returns the kernel and the type of its results, or the typed error for a
//! combination core's type rules exclude.
#![allow(clippy::bool_comparison)] // generic comparisons also instantiate for bool, where `a < b` is the definition

use gpuarrays_core::kernel::{BinaryOp, Distribution, UnaryOp, random};
use gpuarrays_core::{DType, Element, bf16, dispatch_dtype, f16};

use super::kernel::Kernel;
use super::multiversion::kernel;
use crate::error::{CpuError, invalid};
use gpuarrays_core::host::semantics::{Abs, Arith, Bits, Castable, FloatFns, Ordered};

/// A compiled instruction and the type of its results.
pub(crate) type Compiled = Result<(Kernel, DType), CpuError>;

/// `|x| body` over an operand of any of the listed types, giving results of type `$R`
/// (which may name the operand type as `T`).
macro_rules! map_arms {
    ($a:expr, $what:expr, [$($V:ident),*], $R:ty, |$x:ident| $body:expr) => {
        dispatch_dtype!($a, [$($V),*], T => Ok((kernel!(map T => $R, |$x| $body), <$R as Element>::DTYPE)),
            else other => Err(invalid(format!("{} on {}", $what, other))))
    };
}

/// `|x, y| body` over two operands of one of the listed types.
macro_rules! zip_arms {
    ($a:expr, $b:expr, $what:expr, [$($V:ident),*], $R:ty, |$x:ident, $y:ident| $body:expr) => {
        if $a != $b {
            Err(invalid(format!("{} on {} and {}", $what, $a, $b)))
        } else {
            dispatch_dtype!($a, [$($V),*], T => Ok((kernel!(zip T, T => $R, |$x, $y| $body), <$R as Element>::DTYPE)),
                else other => Err(invalid(format!("{} on {} and {}", $what, other, other))))
        }
    };
}

// After the macros, which it uses.
mod more;

/// `op(a)`.
pub(crate) fn unary(op: UnaryOp, a: DType) -> Compiled {
    match op {
        UnaryOp::Neg => map_arms!(
            a,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x| x.neg()
        ),
        UnaryOp::Abs => map_arms!(
            a,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            <T as Abs>::Out,
            |x| x.abs_()
        ),
        UnaryOp::Not => map_arms!(
            a,
            op,
            [Bool, I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x| x.not()
        ),
        UnaryOp::Sqrt => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.sqrt_()),
        UnaryOp::Exp => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.exp_()),
        UnaryOp::Log => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.ln_()),
        UnaryOp::Sin => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.sin_()),
        UnaryOp::Cos => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.cos_()),
        UnaryOp::Tanh => map_arms!(a, op, [F16, BF16, F32, F64], T, |x| x.tanh_()),
        other => more::unary(other, a),
    }
}

/// `op(a, b)`.
pub(crate) fn binary(op: BinaryOp, a: DType, b: DType) -> Compiled {
    match op {
        BinaryOp::Add => zip_arms!(
            a,
            b,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x, y| x.add(y)
        ),
        BinaryOp::Sub => zip_arms!(
            a,
            b,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x, y| x.sub(y)
        ),
        BinaryOp::Mul => zip_arms!(
            a,
            b,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x, y| x.mul(y)
        ),
        BinaryOp::Div => zip_arms!(
            a,
            b,
            op,
            [
                I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            T,
            |x, y| x.div(y)
        ),
        BinaryOp::Pow => zip_arms!(a, b, op, [F16, BF16, F32, F64], T, |x, y| x.pow_(y)),
        BinaryOp::Min => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            T,
            |x, y| x.min_(y)
        ),
        BinaryOp::Max => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            T,
            |x, y| x.max_(y)
        ),
        BinaryOp::Eq => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            bool,
            |x, y| x == y
        ),
        BinaryOp::Ne => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64
            ],
            bool,
            |x, y| x != y
        ),
        BinaryOp::Lt => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            bool,
            |x, y| x < y
        ),
        BinaryOp::Le => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            bool,
            |x, y| x <= y
        ),
        BinaryOp::Gt => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            bool,
            |x, y| x > y
        ),
        BinaryOp::Ge => zip_arms!(
            a,
            b,
            op,
            [
                Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
            ],
            bool,
            |x, y| x >= y
        ),
        BinaryOp::And => zip_arms!(
            a,
            b,
            op,
            [Bool, I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x, y| x.and(y)
        ),
        BinaryOp::Or => zip_arms!(
            a,
            b,
            op,
            [Bool, I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x, y| x.or(y)
        ),
        BinaryOp::Xor => zip_arms!(
            a,
            b,
            op,
            [Bool, I8, U8, I16, U16, I32, U32, I64, U64],
            T,
            |x, y| x.xor(y)
        ),
        other => more::binary(other, a, b),
    }
}

/// `a` converted to `to`.
pub(crate) fn cast(a: DType, to: DType) -> Compiled {
    macro_rules! to_arms {
        ($T:ty) => {
            match to {
                DType::Bool => kernel!(map $T => bool, |x| x.to_bool()),
                DType::I8 => kernel!(map $T => i8, |x| x.to_i8()),
                DType::U8 => kernel!(map $T => u8, |x| x.to_u8()),
                DType::I16 => kernel!(map $T => i16, |x| x.to_i16()),
                DType::U16 => kernel!(map $T => u16, |x| x.to_u16()),
                DType::I32 => kernel!(map $T => i32, |x| x.to_i32()),
                DType::U32 => kernel!(map $T => u32, |x| x.to_u32()),
                DType::I64 => kernel!(map $T => i64, |x| x.to_i64()),
                DType::U64 => kernel!(map $T => u64, |x| x.to_u64()),
                DType::F16 => kernel!(map $T => gpuarrays_core::f16, |x| x.to_f16()),
                DType::BF16 => kernel!(map $T => gpuarrays_core::bf16, |x| x.to_bf16()),
                DType::F32 => kernel!(map $T => f32, |x| x.to_f32()),
                DType::F64 => kernel!(map $T => f64, |x| x.to_f64()),
                DType::C32 => kernel!(map $T => gpuarrays_core::Complex32, |x| x.to_c32()),
                DType::C64 => kernel!(map $T => gpuarrays_core::Complex64, |x| x.to_c64()),
            }
        };
    }
    Ok((dispatch_dtype!(a, T => to_arms!(T)), to))
}

/// A copy of `a` (a program whose result is one of its inputs, read in place).
pub(crate) fn copy(a: DType) -> Compiled {
    Ok((dispatch_dtype!(a, T => kernel!(map T => T, |x| x)), a))
}

/// `c ? a : b`.
pub(crate) fn select(c: DType, a: DType, b: DType) -> Compiled {
    if c != DType::Bool {
        return Err(invalid(format!("select on a {c} condition")));
    }
    if a != b {
        return Err(invalid(format!("select between {a} and {b}")));
    }
    Ok((dispatch_dtype!(a, T => kernel!(select T)), a))
}

/// The output index, as i64.
pub(crate) fn index() -> Compiled {
    Ok((kernel!(index i64, |i, _seed| i as i64), DType::I64))
}

/// Random draws of `dist` in `dtype` for each output index, from the u64 seed (operand 0):
/// the shared recipe of `gpuarrays_core::kernel::random`, each draw (a Box–Muller pair for
/// normals) computed once per block even when the block starts or ends inside a pair.
pub(crate) fn random(dist: Distribution, dtype: DType, seed: DType) -> Compiled {
    if seed != DType::U64 {
        return Err(invalid(format!("a {seed} random seed")));
    }
    macro_rules! draw {
        ($R:ty, $D:ident, $T:ident, $f:expr) => {
            kernel!(draws $R, |seed, start, len| {
                let per = random::words_per_draw(Distribution::$D, DType::$T);
                random::elements(seed, per, start as u64, len, $f)
            })
        };
    }
    let k = match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => {
            draw!(f32, Uniform, F32, |r| [random::uniform_f32(r)])
        }
        (Distribution::Uniform, DType::F64) => {
            draw!(f64, Uniform, F64, |r| [random::uniform_f64(r)])
        }
        (Distribution::Normal, DType::F32) => draw!(f32, Normal, F32, random::normal_f32),
        (Distribution::Uniform, DType::F16) => {
            draw!(f16, Uniform, F16, |r| [f16::from_f32(
                random::uniform_half(r, 11)
            )])
        }
        (Distribution::Uniform, DType::BF16) => {
            draw!(bf16, Uniform, BF16, |r| [bf16::from_f32(
                random::uniform_half(r, 8)
            )])
        }
        (Distribution::Normal, DType::F16) => draw!(f16, Normal, F16, |r| {
            random::normal_f32(r).map(f16::from_f32)
        }),
        (Distribution::Normal, DType::BF16) => draw!(bf16, Normal, BF16, |r| {
            random::normal_f32(r).map(bf16::from_f32)
        }),
        (Distribution::Normal, DType::F64) => draw!(f64, Normal, F64, random::normal_f64),
        _ => {
            return Err(invalid(format!(
                "{} random numbers of type {dtype}",
                dist.name()
            )));
        }
    };
    Ok((k, dtype))
}
