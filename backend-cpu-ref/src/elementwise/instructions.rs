//! The instructions of a fused program ([`gpuarrays_core::kernel::Node`]: unary, binary,
//! cast, select, index, random), each evaluated over whole columns of one block and
//! dispatched on element type once per column rather than once per element. Each is one
//! monomorphised loop over slices (broadcast operands hoisted out of it), which the compiler
//! vectorises; results go into vectors reused from the task's [`Pool`].
#![allow(clippy::bool_comparison)] // generic comparisons also instantiate for bool, where `a < b` is the definition

use gpuarrays_core::kernel::{BinaryOp, Distribution, UnaryOp, random};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};

use super::column::{ColElem, ColRef, Produced, Sink};
use super::multiversion::multiversion;
use crate::error::{CpuError, invalid};
use crate::semantics::{Abs, Arith, Bits, Castable, FloatFns, Ordered};

/// `f(a[i], b[i])`, where a length-1 side is broadcast.
#[inline(always)]
fn zip_with<A: Copy, B: Copy, R: ColElem>(
    a: &[A],
    b: &[B],
    sink: Sink<'_, '_>,
    f: impl Fn(A, B) -> R,
) -> Result<Produced, CpuError> {
    match (a, b) {
        ([x], _) => sink.put(b.iter().map(|&y| f(*x, y))),
        (_, [y]) => sink.put(a.iter().map(|&x| f(x, *y))),
        _ => sink.put(a.iter().zip(b).map(|(&x, &y)| f(x, y))),
    }
}

macro_rules! map_col {
    ($col:expr, $sink:expr, $what:expr, [$($V:ident),*], |$x:ident| $body:expr) => {
        match $col {
            $(ColRef::$V(v) => $sink.put(v.iter().map(|&$x| $body)),)*
            other => Err(invalid(format!("{} on {}", $what, other.dtype()))),
        }
    };
}

macro_rules! zip_col {
    ($a:expr, $b:expr, $sink:expr, $what:expr, [$($V:ident),*], |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            $((ColRef::$V(a), ColRef::$V(b)) => zip_with(a, b, $sink, |$x, $y| $body),)*
            (a, b) => Err(invalid(format!("{} on {} and {}", $what, a.dtype(), b.dtype()))),
        }
    };
}

multiversion! {
/// `op(a)`.
pub(crate) fn unary(op: UnaryOp, a: ColRef<'_>, sink: Sink<'_, '_>) -> Result<Produced, CpuError> {
    match op {
        UnaryOp::Neg => map_col!(a, sink, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .neg()),
        UnaryOp::Abs => map_col!(a, sink, op, [U8, I32, U32, I64, U64, F32, F64, C32, C64], |x| x
            .abs_()),
        UnaryOp::Not => map_col!(a, sink, op, [Bool, U8, I32, U32, I64, U64], |x| x.not()),
        UnaryOp::Sqrt => map_col!(a, sink, op, [F32, F64], |x| x.sqrt_()),
        UnaryOp::Exp => map_col!(a, sink, op, [F32, F64], |x| x.exp_()),
        UnaryOp::Log => map_col!(a, sink, op, [F32, F64], |x| x.ln_()),
        UnaryOp::Sin => map_col!(a, sink, op, [F32, F64], |x| x.sin_()),
        UnaryOp::Cos => map_col!(a, sink, op, [F32, F64], |x| x.cos_()),
        UnaryOp::Tanh => map_col!(a, sink, op, [F32, F64], |x| x.tanh_()),
    }
}
}

multiversion! {
/// `op(a, b)`.
pub(crate) fn binary(
    op: BinaryOp,
    a: ColRef<'_>,
    b: ColRef<'_>,
    sink: Sink<'_, '_>,
) -> Result<Produced, CpuError> {
    match op {
        BinaryOp::Add => zip_col!(a, b, sink, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.add(y)
        ),
        BinaryOp::Sub => zip_col!(a, b, sink, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.sub(y)
        ),
        BinaryOp::Mul => zip_col!(a, b, sink, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.mul(y)
        ),
        BinaryOp::Div => zip_col!(a, b, sink, op,
            [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x.div(y)
        ),
        BinaryOp::Pow => zip_col!(a, b, sink, op, [F32, F64], |x, y| x.pow_(y)),
        BinaryOp::Min => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.min_(y)
        ),
        BinaryOp::Max => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x.max_(y)
        ),
        BinaryOp::Eq => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x == y
        ),
        BinaryOp::Ne => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64],
            |x, y| x != y
        ),
        BinaryOp::Lt => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x < y
        ),
        BinaryOp::Le => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x <= y
        ),
        BinaryOp::Gt => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x > y
        ),
        BinaryOp::Ge => zip_col!(a, b, sink, op,
            [Bool, U8, I32, U32, I64, U64, F32, F64],
            |x, y| x >= y
        ),
        BinaryOp::And => zip_col!(a, b, sink, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.and(y)),
        BinaryOp::Or => zip_col!(a, b, sink, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.or(y)),
        BinaryOp::Xor => zip_col!(a, b, sink, op, [Bool, U8, I32, U32, I64, U64], |x, y| x.xor(y)),
    }
}
}

#[inline(always)]
fn cast_slice<T: Castable>(v: &[T], to: DType, sink: Sink<'_, '_>) -> Result<Produced, CpuError> {
    match to {
        DType::Bool => sink.put(v.iter().map(|x| x.to_bool())),
        DType::U8 => sink.put(v.iter().map(|x| x.to_u8())),
        DType::I32 => sink.put(v.iter().map(|x| x.to_i32())),
        DType::U32 => sink.put(v.iter().map(|x| x.to_u32())),
        DType::I64 => sink.put(v.iter().map(|x| x.to_i64())),
        DType::U64 => sink.put(v.iter().map(|x| x.to_u64())),
        DType::F32 => sink.put(v.iter().map(|x| x.to_f32())),
        DType::F64 => sink.put(v.iter().map(|x| x.to_f64())),
        DType::C32 => sink.put(v.iter().map(|x| x.to_c32())),
        DType::C64 => sink.put(v.iter().map(|x| x.to_c64())),
    }
}

multiversion! {
/// `a` converted to `to`.
pub(crate) fn cast(a: ColRef<'_>, to: DType, sink: Sink<'_, '_>) -> Result<Produced, CpuError> {
    dispatch_dtype!(a, ColRef(v: T) => cast_slice(v, to, sink))
}
}

#[inline(always)]
fn pick<T: ColElem>(
    c: &[bool],
    a: &[T],
    b: &[T],
    len: usize,
    sink: Sink<'_, '_>,
) -> Result<Produced, CpuError> {
    if c.len() == len && a.len() == len && b.len() == len {
        sink.put(
            c.iter()
                .zip(a.iter().zip(b))
                .map(|(&c, (&x, &y))| if c { x } else { y }),
        )
    } else {
        sink.put((0..len).map(|i| if at(c, i) { at(a, i) } else { at(b, i) }))
    }
}

/// Element `i` of a column, where a length-1 column is broadcast.
#[inline(always)]
fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 { v[0] } else { v[i] }
}

multiversion! {
/// `c ? a : b`.
pub(crate) fn select(
    c: ColRef<'_>,
    a: ColRef<'_>,
    b: ColRef<'_>,
    sink: Sink<'_, '_>,
) -> Result<Produced, CpuError> {
    let ColRef::Bool(c) = c else {
        return Err(invalid(format!("select on a {} condition", c.dtype())));
    };
    let len = c.len().max(a.len()).max(b.len());
    macro_rules! arms {
        ($($V:ident),*) => {
            match (a, b) {
                $((ColRef::$V(x), ColRef::$V(y)) => pick(c, x, y, len, sink),)*
                (x, y) => Err(invalid(format!("select between {} and {}", x.dtype(), y.dtype()))),
            }
        };
    }
    arms!(Bool, U8, I32, U32, I64, U64, F32, F64, C32, C64)
}
}

/// The output indices `start..start + len` as i64.
pub(crate) fn index(start: usize, len: usize, sink: Sink<'_, '_>) -> Result<Produced, CpuError> {
    sink.put((start..start + len).map(|i| i as i64))
}

/// Random draws for output indices `start..start + len`.
pub(crate) fn random(
    dist: Distribution,
    dtype: DType,
    seed: Scalar,
    (start, len): (usize, usize),
    sink: Sink<'_, '_>,
) -> Result<Produced, CpuError> {
    let Scalar::U64(seed) = seed else {
        return Err(invalid(format!("a {} random seed", seed.dtype())));
    };
    let per = random::words_per_draw(dist, dtype);
    let at = start as u64;
    match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => {
            sink.put(random::elements(seed, per, at, len, |r| {
                [random::uniform_f32(r)]
            }))
        }
        (Distribution::Uniform, DType::F64) => {
            sink.put(random::elements(seed, per, at, len, |r| {
                [random::uniform_f64(r)]
            }))
        }
        (Distribution::Normal, DType::F32) => {
            sink.put(random::elements(seed, per, at, len, random::normal_f32))
        }
        (Distribution::Normal, DType::F64) => {
            sink.put(random::elements(seed, per, at, len, random::normal_f64))
        }
        _ => Err(invalid(format!(
            "{} random numbers of type {dtype}",
            dist.name()
        ))),
    }
}
