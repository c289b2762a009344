//! The instructions of a fused program ([`gpuarrays_core::kernel::Node`]: unary, binary,
//! cast, select, index, random), each evaluated over whole columns of one chunk and
//! dispatched on element type once per column rather than once per element.
#![allow(clippy::bool_comparison)] // generic comparisons also instantiate for bool, where `a < b` is the definition

use gpuarrays_core::kernel::{BinaryOp, Distribution, UnaryOp, random};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};

use super::column::Col;
use crate::error::{CpuError, invalid};
use crate::semantics::{Abs, Arith, Bits, Castable, FloatFns, Ordered};

/// `f(a[i], b[i])`, where a length-1 side is broadcast.
fn zip_with<A: Copy, B: Copy, R>(a: &[A], b: &[B], f: impl Fn(A, B) -> R) -> Vec<R> {
    match (a.len(), b.len()) {
        (1, _) => b.iter().map(|&y| f(a[0], y)).collect(),
        (_, 1) => a.iter().map(|&x| f(x, b[0])).collect(),
        _ => a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect(),
    }
}

macro_rules! map_col {
    ($col:expr, $what:expr, [$($V:ident),*], |$x:ident| $body:expr) => {
        match $col {
            $(Col::$V(v) => Ok(Col::from(v.iter().map(|&$x| $body).collect::<Vec<_>>())),)*
            other => Err(invalid(format!("{} on {}", $what, other.dtype()))),
        }
    };
}

macro_rules! zip_col {
    ($a:expr, $b:expr, $what:expr, [$($V:ident),*], |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            $((Col::$V(a), Col::$V(b)) => Ok(Col::from(zip_with(a, b, |$x, $y| $body))),)*
            (a, b) => Err(invalid(format!("{} on {} and {}", $what, a.dtype(), b.dtype()))),
        }
    };
}

pub(crate) fn unary(op: UnaryOp, a: &Col) -> Result<Col, CpuError> {
    match op {
        UnaryOp::Neg => map_col!(a, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .neg()),
        UnaryOp::Abs => map_col!(a, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .abs_()),
        UnaryOp::Not => map_col!(a, op, [Bool, U8, I32, U32, I64, U64], |x| x.not()),
        UnaryOp::Sqrt => map_col!(a, op, [F32, F64], |x| x.sqrt_()),
        UnaryOp::Exp => map_col!(a, op, [F32, F64], |x| x.exp_()),
        UnaryOp::Log => map_col!(a, op, [F32, F64], |x| x.ln_()),
        UnaryOp::Sin => map_col!(a, op, [F32, F64], |x| x.sin_()),
        UnaryOp::Cos => map_col!(a, op, [F32, F64], |x| x.cos_()),
        UnaryOp::Tanh => map_col!(a, op, [F32, F64], |x| x.tanh_()),
    }
}

pub(crate) fn binary(op: BinaryOp, a: &Col, b: &Col) -> Result<Col, CpuError> {
    match op {
        BinaryOp::Add => zip_col!(
            a,
            b,
            op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.add(y)
        ),
        BinaryOp::Sub => zip_col!(
            a,
            b,
            op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.sub(y)
        ),
        BinaryOp::Mul => zip_col!(
            a,
            b,
            op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.mul(y)
        ),
        BinaryOp::Div => zip_col!(
            a,
            b,
            op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.div(y)
        ),
        BinaryOp::Pow => zip_col!(a, b, op, [F32, F64], |x, y| x.pow_(y)),
        BinaryOp::Min => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.min_(y)
        ),
        BinaryOp::Max => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.max_(y)
        ),
        BinaryOp::Eq => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x == y
        ),
        BinaryOp::Ne => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x != y
        ),
        BinaryOp::Lt => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x < y
        ),
        BinaryOp::Le => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x <= y
        ),
        BinaryOp::Gt => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x > y
        ),
        BinaryOp::Ge => zip_col!(
            a,
            b,
            op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x >= y
        ),
        BinaryOp::And => zip_col!(a, b, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.and(y)),
        BinaryOp::Or => zip_col!(a, b, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.or(y)),
        BinaryOp::Xor => zip_col!(a, b, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.xor(y)),
    }
}

fn cast_slice<T: Castable>(v: &[T], to: DType) -> Col {
    match to {
        DType::Bool => Col::Bool(v.iter().map(|x| x.to_bool()).collect()),
        DType::U8 => Col::U8(v.iter().map(|x| x.to_u8()).collect()),
        DType::I32 => Col::I32(v.iter().map(|x| x.to_i32()).collect()),
        DType::U32 => Col::U32(v.iter().map(|x| x.to_u32()).collect()),
        DType::I64 => Col::I64(v.iter().map(|x| x.to_i64()).collect()),
        DType::U64 => Col::U64(v.iter().map(|x| x.to_u64()).collect()),
        DType::F32 => Col::F32(v.iter().map(|x| x.to_f32()).collect()),
        DType::F64 => Col::F64(v.iter().map(|x| x.to_f64()).collect()),
        DType::C32 => Col::C32(v.iter().map(|x| x.to_c32()).collect()),
        DType::C64 => Col::C64(v.iter().map(|x| x.to_c64()).collect()),
    }
}

pub(crate) fn cast(a: &Col, to: DType) -> Col {
    dispatch_dtype!(a, Col(v: T) => cast_slice(v, to))
}

fn pick<T: Copy>(c: &[bool], a: &[T], b: &[T], len: usize) -> Vec<T> {
    (0..len)
        .map(|i| if at(c, i) { at(a, i) } else { at(b, i) })
        .collect()
}

/// Element `i` of a column, where a length-1 column is broadcast.
fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 { v[0] } else { v[i] }
}

pub(crate) fn select(c: &Col, a: &Col, b: &Col) -> Result<Col, CpuError> {
    let Col::Bool(c) = c else {
        return Err(invalid(format!("select on a {} condition", c.dtype())));
    };
    let len = c.len().max(a.len()).max(b.len());
    macro_rules! arms {
        ($($V:ident),*) => {
            match (a, b) {
                $((Col::$V(x), Col::$V(y)) => Ok(Col::$V(pick(c, x, y, len))),)*
                (x, y) => Err(invalid(format!("select between {} and {}", x.dtype(), y.dtype()))),
            }
        };
    }
    arms!(Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64)
}

pub(crate) fn index(start: usize, len: usize) -> Col {
    Col::I64((start..start + len).map(|i| i as i64).collect())
}

pub(crate) fn random(
    dist: Distribution,
    dtype: DType,
    seed: Scalar,
    start: usize,
    len: usize,
) -> Result<Col, CpuError> {
    let Scalar::U64(seed) = seed else {
        return Err(invalid(format!("a {} random seed", seed.dtype())));
    };
    let per = random::words_per_element(dist, dtype);
    let words = (start..start + len).map(|i| random::element_words(seed, i as u64, per));
    Ok(match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => Col::F32(words.map(random::uniform_f32).collect()),
        (Distribution::Uniform, DType::F64) => Col::F64(words.map(random::uniform_f64).collect()),
        (Distribution::Normal, DType::F32) => Col::F32(words.map(random::normal_f32).collect()),
        (Distribution::Normal, DType::F64) => Col::F64(words.map(random::normal_f64).collect()),
        _ => {
            return Err(invalid(format!(
                "{} random numbers of type {dtype}",
                dist.name()
            )));
        }
    })
}
