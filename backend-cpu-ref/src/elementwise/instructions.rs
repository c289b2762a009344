//! The instructions of a fused program ([`gpuarrays_core::kernel::Node`]: unary, binary,
//! cast, select, index, random), each evaluated over whole columns of one block and
//! dispatched on element type once per column rather than once per element. Each is one
//! monomorphised loop over slices (broadcast operands hoisted out of it), which the compiler
//! vectorises; results go into vectors reused from the task's [`Pool`].
#![allow(clippy::bool_comparison)] // generic comparisons also instantiate for bool, where `a < b` is the definition

use gpuarrays_core::kernel::{BinaryOp, Distribution, UnaryOp, random};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};

use super::column::{Col, ColElem, ColRef, Pool};
use crate::error::{CpuError, invalid};
use crate::semantics::{Abs, Arith, Bits, Castable, FloatFns, Ordered};

/// `f(a[i], b[i])`, where a length-1 side is broadcast.
#[inline(always)]
fn zip_with<A: Copy, B: Copy, R: ColElem>(
    a: &[A],
    b: &[B],
    pool: &mut Pool,
    f: impl Fn(A, B) -> R,
) -> Col {
    match (a, b) {
        ([x], _) => pool.collect(b.iter().map(|&y| f(*x, y))),
        (_, [y]) => pool.collect(a.iter().map(|&x| f(x, *y))),
        _ => pool.collect(a.iter().zip(b).map(|(&x, &y)| f(x, y))),
    }
}

macro_rules! map_col {
    ($col:expr, $pool:expr, $what:expr, [$($V:ident),*], |$x:ident| $body:expr) => {
        match $col {
            $(ColRef::$V(v) => Ok($pool.collect(v.iter().map(|&$x| $body))),)*
            other => Err(invalid(format!("{} on {}", $what, other.dtype()))),
        }
    };
}

macro_rules! zip_col {
    ($a:expr, $b:expr, $pool:expr, $what:expr, [$($V:ident),*], |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            $((ColRef::$V(a), ColRef::$V(b)) => Ok(zip_with(a, b, $pool, |$x, $y| $body)),)*
            (a, b) => Err(invalid(format!("{} on {} and {}", $what, a.dtype(), b.dtype()))),
        }
    };
}

pub(crate) fn unary(op: UnaryOp, a: ColRef<'_>, pool: &mut Pool) -> Result<Col, CpuError> {
    match op {
        UnaryOp::Neg => map_col!(a, pool, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .neg()),
        UnaryOp::Abs => map_col!(a, pool, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .abs_()),
        UnaryOp::Not => map_col!(a, pool, op, [Bool, U8, I32, U32, I64, U64], |x| x.not()),
        UnaryOp::Sqrt => map_col!(a, pool, op, [F32, F64], |x| x.sqrt_()),
        UnaryOp::Exp => map_col!(a, pool, op, [F32, F64], |x| x.exp_()),
        UnaryOp::Log => map_col!(a, pool, op, [F32, F64], |x| x.ln_()),
        UnaryOp::Sin => map_col!(a, pool, op, [F32, F64], |x| x.sin_()),
        UnaryOp::Cos => map_col!(a, pool, op, [F32, F64], |x| x.cos_()),
        UnaryOp::Tanh => map_col!(a, pool, op, [F32, F64], |x| x.tanh_()),
    }
}

pub(crate) fn binary(
    op: BinaryOp,
    a: ColRef<'_>,
    b: ColRef<'_>,
    pool: &mut Pool,
) -> Result<Col, CpuError> {
    match op {
        BinaryOp::Add => zip_col!(a, b, pool, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.add(y)
        ),
        BinaryOp::Sub => zip_col!(a, b, pool, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.sub(y)
        ),
        BinaryOp::Mul => zip_col!(a, b, pool, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.mul(y)
        ),
        BinaryOp::Div => zip_col!(a, b, pool, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.div(y)
        ),
        BinaryOp::Pow => zip_col!(a, b, pool, op, [F32, F64], |x, y| x.pow_(y)),
        BinaryOp::Min => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.min_(y)
        ),
        BinaryOp::Max => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.max_(y)
        ),
        BinaryOp::Eq => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x == y
        ),
        BinaryOp::Ne => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x != y
        ),
        BinaryOp::Lt => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x < y
        ),
        BinaryOp::Le => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x <= y
        ),
        BinaryOp::Gt => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x > y
        ),
        BinaryOp::Ge => zip_col!(a, b, pool, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x >= y
        ),
        BinaryOp::And => zip_col!(a, b, pool, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.and(y)),
        BinaryOp::Or => zip_col!(a, b, pool, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.or(y)),
        BinaryOp::Xor => zip_col!(a, b, pool, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.xor(y)),
    }
}

fn cast_slice<T: Castable>(v: &[T], to: DType, pool: &mut Pool) -> Col {
    match to {
        DType::Bool => pool.collect(v.iter().map(|x| x.to_bool())),
        DType::U8 => pool.collect(v.iter().map(|x| x.to_u8())),
        DType::I32 => pool.collect(v.iter().map(|x| x.to_i32())),
        DType::U32 => pool.collect(v.iter().map(|x| x.to_u32())),
        DType::I64 => pool.collect(v.iter().map(|x| x.to_i64())),
        DType::U64 => pool.collect(v.iter().map(|x| x.to_u64())),
        DType::F32 => pool.collect(v.iter().map(|x| x.to_f32())),
        DType::F64 => pool.collect(v.iter().map(|x| x.to_f64())),
        DType::C32 => pool.collect(v.iter().map(|x| x.to_c32())),
        DType::C64 => pool.collect(v.iter().map(|x| x.to_c64())),
    }
}

pub(crate) fn cast(a: ColRef<'_>, to: DType, pool: &mut Pool) -> Col {
    dispatch_dtype!(a, ColRef(v: T) => cast_slice(v, to, pool))
}

fn pick<T: ColElem>(c: &[bool], a: &[T], b: &[T], len: usize, pool: &mut Pool) -> Col {
    if c.len() == len && a.len() == len && b.len() == len {
        pool.collect(
            c.iter()
                .zip(a.iter().zip(b))
                .map(|(&c, (&x, &y))| if c { x } else { y }),
        )
    } else {
        pool.collect((0..len).map(|i| if at(c, i) { at(a, i) } else { at(b, i) }))
    }
}

/// Element `i` of a column, where a length-1 column is broadcast.
fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 { v[0] } else { v[i] }
}

pub(crate) fn select(
    c: ColRef<'_>,
    a: ColRef<'_>,
    b: ColRef<'_>,
    pool: &mut Pool,
) -> Result<Col, CpuError> {
    let ColRef::Bool(c) = c else {
        return Err(invalid(format!("select on a {} condition", c.dtype())));
    };
    let len = c.len().max(a.len()).max(b.len());
    macro_rules! arms {
        ($($V:ident),*) => {
            match (a, b) {
                $((ColRef::$V(x), ColRef::$V(y)) => Ok(pick(c, x, y, len, pool)),)*
                (x, y) => Err(invalid(format!("select between {} and {}", x.dtype(), y.dtype()))),
            }
        };
    }
    arms!(Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64)
}

pub(crate) fn index(start: usize, len: usize, pool: &mut Pool) -> Col {
    pool.collect((start..start + len).map(|i| i as i64))
}

pub(crate) fn random(
    dist: Distribution,
    dtype: DType,
    seed: Scalar,
    start: usize,
    len: usize,
    pool: &mut Pool,
) -> Result<Col, CpuError> {
    let Scalar::U64(seed) = seed else {
        return Err(invalid(format!("a {} random seed", seed.dtype())));
    };
    let words = (start..start + len).map(|i| random::philox_words(seed, i as u64));
    Ok(match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => pool.collect(words.map(random::uniform_f32)),
        (Distribution::Uniform, DType::F64) => pool.collect(words.map(random::uniform_f64)),
        (Distribution::Normal, DType::F32) => pool.collect(words.map(random::normal_f32)),
        (Distribution::Normal, DType::F64) => pool.collect(words.map(random::normal_f64)),
        _ => {
            return Err(invalid(format!(
                "{} random numbers of type {dtype}",
                dist.name()
            )));
        }
    })
}
