//! The oracle of elementwise operations: unary and binary operations, casts, select,
//! the fused expression, and broadcasting.

use gpuarrays_core::kernel::{BinaryOp, UnaryOp};
use gpuarrays_core::{DType, Scalar};

use super::index::{broadcast_source, numel, unravel};
use super::rules::Expected;
use super::value::{
    Wide, complex_div, complex_mul, from_complex, from_int, from_real, truthy, widen,
};
use crate::host::{HostArray, HostData};

mod more;

/// `op(x)`, the result narrowed to `out`.
pub fn unary_value(op: UnaryOp, x: Scalar, out: DType) -> Scalar {
    if let Some(v) = more::unary_value(op, x, out) {
        return v;
    }
    match (op, widen(x)) {
        (UnaryOp::Neg, Wide::Int(v)) => from_int(-v, out),
        (UnaryOp::Neg, Wide::Real(v)) => from_real(-v, out),
        (UnaryOp::Neg, Wide::Complex(z)) => from_complex(-z, out),
        (UnaryOp::Abs, Wide::Int(v)) => from_int(v.abs(), out),
        (UnaryOp::Abs, Wide::Real(v)) => from_real(v.abs(), out),
        (UnaryOp::Abs, Wide::Complex(z)) => from_real(z.re.hypot(z.im), out),
        (UnaryOp::Not, Wide::Bool(b)) => Scalar::Bool(!b),
        (UnaryOp::Not, Wide::Int(v)) => from_int(!v, out),
        (UnaryOp::Sqrt, Wide::Real(v)) => from_real(v.sqrt(), out),
        (UnaryOp::Exp, Wide::Real(v)) => from_real(v.exp(), out),
        (UnaryOp::Log, Wide::Real(v)) => from_real(v.ln(), out),
        (UnaryOp::Sin, Wide::Real(v)) => from_real(v.sin(), out),
        (UnaryOp::Cos, Wide::Real(v)) => from_real(v.cos(), out),
        (UnaryOp::Tanh, Wide::Real(v)) => from_real(v.tanh(), out),
        // Unreachable after the type rules; NaN marks an oracle gap loudly.
        _ => from_real(f64::NAN, out),
    }
}

/// `a op b` (same type), the result narrowed to `out`.
pub fn binary_value(op: BinaryOp, a: Scalar, b: Scalar, out: DType) -> Scalar {
    use BinaryOp::*;
    if let Some(v) = more::binary_value(op, a, b, out) {
        return v;
    }
    match (widen(a), widen(b)) {
        (Wide::Bool(x), Wide::Bool(y)) => Scalar::Bool(match op {
            Eq => x == y,
            Ne => x != y,
            Lt => !x & y,
            Le => !x | y,
            Gt => x & !y,
            Ge => x | !y,
            And | Min => x & y,
            Or | Max => x | y,
            Xor => x ^ y,
            _ => false,
        }),
        (Wide::Int(x), Wide::Int(y)) => match op {
            Add => from_int(x + y, out),
            Sub => from_int(x - y, out),
            // Modulo 2^128, whose residue modulo 2^bits is the wrapped product.
            Mul => from_int(x.wrapping_mul(y), out),
            Div if y == 0 => from_int(0, out),
            Div => from_int(x / y, out),
            Min => from_int(x.min(y), out),
            Max => from_int(x.max(y), out),
            And => from_int(x & y, out),
            Or => from_int(x | y, out),
            Xor => from_int(x ^ y, out),
            cmp => Scalar::Bool(compare(cmp, x.partial_cmp(&y))),
        },
        (Wide::Real(x), Wide::Real(y)) => match op {
            Add => from_real(x + y, out),
            Sub => from_real(x - y, out),
            Mul => from_real(x * y, out),
            Div => from_real(x / y, out),
            Pow => from_real(x.powf(y), out),
            Min | Max if x.is_nan() || y.is_nan() => from_real(f64::NAN, out),
            Min => from_real(if y < x { y } else { x }, out),
            Max => from_real(if y > x { y } else { x }, out),
            cmp => Scalar::Bool(compare(cmp, x.partial_cmp(&y))),
        },
        (Wide::Complex(x), Wide::Complex(y)) => match op {
            Add => from_complex(x + y, out),
            Sub => from_complex(x - y, out),
            Mul => from_complex(complex_mul(x, y, out), out),
            Div => from_complex(complex_div(x, y, out), out),
            Eq => Scalar::Bool(x.re == y.re && x.im == y.im),
            Ne => Scalar::Bool(!(x.re == y.re && x.im == y.im)),
            _ => from_real(f64::NAN, out),
        },
        _ => from_real(f64::NAN, out),
    }
}

/// The value of a comparison given the order of the operands (`None`: unordered, NaN).
fn compare(op: BinaryOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, ord) {
        (_, None) => op == BinaryOp::Ne,
        (BinaryOp::Eq, Some(o)) => o == Equal,
        (BinaryOp::Ne, Some(o)) => o != Equal,
        (BinaryOp::Lt, Some(o)) => o == Less,
        (BinaryOp::Le, Some(o)) => o != Greater,
        (BinaryOp::Gt, Some(o)) => o == Greater,
        (BinaryOp::Ge, Some(o)) => o != Less,
        _ => false,
    }
}

/// Evaluates `f` at every element of the broadcast of `inputs`.
pub fn broadcast_map(
    inputs: &[&HostArray],
    out_dtype: DType,
    f: impl Fn(&[Scalar]) -> Scalar,
) -> Result<HostArray, Expected> {
    let mut dims: Vec<usize> = Vec::new();
    for a in inputs {
        dims = super::rules::broadcast(&dims, &a.dims)?;
    }
    let n = numel(&dims);
    let mut out = HostData::with_capacity(out_dtype, n);
    let mut args = Vec::with_capacity(inputs.len());
    // Operands of the output's own shape are read at the output position.
    let same: Vec<bool> = inputs.iter().map(|a| a.dims == dims).collect();
    for i in 0..n {
        let idx = if same.iter().all(|&s| s) {
            Vec::new()
        } else {
            unravel(i, &dims)
        };
        args.clear();
        args.extend(inputs.iter().zip(&same).map(|(a, &s)| {
            let p = if s {
                i
            } else {
                broadcast_source(&idx, &a.dims)
            };
            a.data.get(p)
        }));
        out.push(f(&args));
    }
    Ok(HostArray::new(dims, out))
}

/// `cond ? a : b` with broadcasting; `cond` is read as a truth value.
pub fn select(cond: &HostArray, a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    broadcast_map(&[cond, a, b], a.dtype(), |v| {
        if truthy(v[0]) { v[1] } else { v[2] }
    })
}
