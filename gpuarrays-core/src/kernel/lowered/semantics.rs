//! The rules of [`UnaryOp`], [`BinaryOp`] and casts ([`crate::scalar`]) as primitives.
//!
//! Each `*_into` function appends to a [`Builder`] (how a whole program is lowered); the
//! functions without the suffix return a [`Block`] of one operation whose arguments are its
//! operands (how a reduction's combining step or a matmul's accumulation is printed).

use super::builder::Builder;
use super::ir::{Block, MathFn, PBinary, PUnary, Value};
use super::{binary_functions, functions};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::operators::{BinaryOp, UnaryOp};

/// `op a` for `a` of type `d`, as a block with argument 0 the operand.
pub fn unary(op: UnaryOp, d: DType) -> Result<Block> {
    let mut b = Builder::new();
    let a = b.arg(0, d);
    let r = unary_into(&mut b, op, a)?;
    Ok(b.finish(vec![r]))
}

/// `a OP c` for operands of type `d`, as a block with arguments 0 and 1 the operands.
pub fn binary(op: BinaryOp, d: DType) -> Result<Block> {
    let mut b = Builder::new();
    let (x, y) = (b.arg(0, d), b.arg(1, d));
    let r = binary_into(&mut b, op, x, y)?;
    Ok(b.finish(vec![r]))
}

/// The conversion of argument 0 from `from` to `to`.
pub fn cast(from: DType, to: DType) -> Block {
    let mut b = Builder::new();
    let a = b.arg(0, from);
    let r = cast_into(&mut b, a, to);
    b.finish(vec![r])
}

/// Appends `op a` (the rules of [`UnaryOp`]); an operation the type has no meaning for is the
/// type-rule error.
pub fn unary_into(b: &mut Builder, op: UnaryOp, a: Value) -> Result<Value> {
    let d = b.ty(a);
    let want = op.result_dtype(d)?;
    if d.is_half() {
        let wide = b.convert(DType::F32, a);
        let r = unary_into(b, op, wide)?;
        return Ok(narrow_result(b, r, want));
    }
    Ok(match op {
        UnaryOp::Neg if d.is_complex() => {
            let (re, im) = (b.re(a), b.im(a));
            let (nr, ni) = (b.unary(PUnary::Neg, re), b.unary(PUnary::Neg, im));
            b.complex(nr, ni)
        }
        UnaryOp::Neg => b.unary(PUnary::Neg, a),
        // Signed integers wrap: abs(MIN) is MIN.
        UnaryOp::Abs if d.is_signed_integer() => {
            let zero = b.zero(d);
            let negative = b.binary(PBinary::Lt, a, zero);
            let n = b.unary(PUnary::Neg, a);
            b.select(negative, n, a)
        }
        UnaryOp::Abs if d.is_integer() => a,
        UnaryOp::Abs if d.is_complex() => {
            let (re, im) = (b.re(a), b.im(a));
            hypot(b, re, im)
        }
        UnaryOp::Abs => b.math(MathFn::Abs, a),
        UnaryOp::Not => b.unary(PUnary::Not, a),
        UnaryOp::Sqrt => b.math(MathFn::Sqrt, a),
        UnaryOp::Exp => b.math(MathFn::Exp, a),
        UnaryOp::Log => b.math(MathFn::Log, a),
        UnaryOp::Sin => b.math(MathFn::Sin, a),
        UnaryOp::Cos => b.math(MathFn::Cos, a),
        UnaryOp::Tanh => b.math(MathFn::Tanh, a),
        other => functions::unary_into(b, other, a).ok_or_else(|| unlowered(other.name(), d))?,
    })
}

/// The result `r` of an operation on halves computed in f32, as the type the operation
/// yields for halves: a half result rounded once; a bool (a comparison, a test) as it is.
fn narrow_result(b: &mut Builder, r: Value, want: DType) -> Value {
    if b.ty(r) == want {
        r
    } else {
        cast_into(b, r, want)
    }
}

/// The error of an operation the type rules admit but no lowering handles (a bug).
fn unlowered(op: &str, d: DType) -> Error {
    Error::invalid_dtype(op, d, "the operation has no lowering for this type")
}

/// Appends `x OP y` (the rules of [`BinaryOp`]).
pub fn binary_into(b: &mut Builder, op: BinaryOp, x: Value, y: Value) -> Result<Value> {
    let d = b.ty(x);
    let want = op.result_dtype(d, b.ty(y))?;
    if d.is_half() {
        let (wx, wy) = (b.convert(DType::F32, x), b.convert(DType::F32, y));
        let r = binary_into(b, op, wx, wy)?;
        return Ok(narrow_result(b, r, want));
    }
    if d.is_complex() {
        return Ok(complex_binary(b, op, x, y));
    }
    if let Some(r) = binary_functions::binary_into(b, op, x, y, hypot) {
        return Ok(r);
    }
    let prim = match op {
        BinaryOp::Add => PBinary::Add,
        BinaryOp::Sub => PBinary::Sub,
        BinaryOp::Mul => PBinary::Mul,
        BinaryOp::Div => PBinary::Div,
        BinaryOp::Pow => PBinary::Pow,
        BinaryOp::Eq => PBinary::Eq,
        BinaryOp::Ne => PBinary::Ne,
        BinaryOp::Lt | BinaryOp::Min => PBinary::Lt,
        BinaryOp::Le => PBinary::Le,
        BinaryOp::Gt | BinaryOp::Max => PBinary::Gt,
        BinaryOp::Ge => PBinary::Ge,
        BinaryOp::And => PBinary::And,
        BinaryOp::Or => PBinary::Or,
        BinaryOp::Xor => PBinary::Xor,
        // The rest are `binary_functions`' (above).
        other => return Err(unlowered(other.name(), d)),
    };
    Ok(match op {
        BinaryOp::Div if d.is_integer() => int_div(b, x, y),
        BinaryOp::Min | BinaryOp::Max => {
            // `y` replaces `x` only when strictly beyond it (ties keep `x`); a NaN operand
            // is the result, `x` first (NumPy `minimum`/`maximum`).
            let beyond = b.binary(prim, y, x);
            let m = b.select(beyond, y, x);
            if d.is_float() {
                let (xn, yn) = (b.unary(PUnary::IsNan, x), b.unary(PUnary::IsNan, y));
                let m = b.select(yn, y, m);
                b.select(xn, x, m)
            } else {
                m
            }
        }
        _ => b.binary(prim, x, y),
    })
}

/// `|x + iy|` with C `hypot`'s special values (an infinite part gives +∞, even with a NaN;
/// otherwise a NaN part gives NaN) and without spurious overflow or underflow:
/// `m·sqrt(1 + r²)` with `m = max(|x|, |y|)`, `r = min/max` (within 2 units in the last
/// place; a library `hypot` is no instruction either: CUDA's f64 one rounds
/// `hypot(MAX, tiny)` up to ∞). Tests for ∞ compare with the largest finite value, so no
/// infinite constant is needed.
fn hypot(b: &mut Builder, x: Value, y: Value) -> Value {
    let t = b.ty(x);
    let (ax, ay) = (b.math(MathFn::Abs, x), b.math(MathFn::Abs, y));
    let max = b.float(
        t,
        if t == DType::F32 {
            f32::MAX as f64
        } else {
            f64::MAX
        },
    );
    let (xi, yi) = (
        b.binary(PBinary::Gt, ax, max),
        b.binary(PBinary::Gt, ay, max),
    );
    let gt = b.binary(PBinary::Gt, ax, ay);
    let (m, n) = (b.select(gt, ax, ay), b.select(gt, ay, ax));
    let r = b.binary(PBinary::Div, n, m);
    let rr = b.binary(PBinary::Mul, r, r);
    let one = b.one(t);
    let s = b.binary(PBinary::Add, one, rr);
    let s = b.math(MathFn::Sqrt, s);
    let h = b.binary(PBinary::Mul, m, s);
    let zero = b.zero(t);
    let m0 = b.binary(PBinary::Eq, m, zero);
    let h = b.select(m0, zero, h);
    let (xn, yn) = (b.unary(PUnary::IsNan, ax), b.unary(PUnary::IsNan, ay));
    let nan = b.binary(PBinary::Or, xn, yn);
    let sum = b.binary(PBinary::Add, ax, ay);
    let h = b.select(nan, sum, h);
    let h = b.select(yi, ay, h);
    b.select(xi, ax, h)
}

/// Truncating division with `x / 0 == 0` and (signed) `MIN / -1 == MIN`: the division
/// itself sees divisor 1 in those cases, so it is defined on every target, and a select
/// picks 0 or the wrapping negation.
fn int_div(b: &mut Builder, x: Value, y: Value) -> Value {
    let d = b.ty(x);
    let zero = b.zero(d);
    let by_zero = b.binary(PBinary::Eq, y, zero);
    let one = b.one(d);
    if d.is_signed_integer() {
        let minus_one = b.int(d, -1);
        let by_m1 = b.binary(PBinary::Eq, y, minus_one);
        let special = b.binary(PBinary::Or, by_zero, by_m1);
        let safe = b.select(special, one, y);
        let q = b.binary(PBinary::Div, x, safe);
        let neg = b.unary(PUnary::Neg, x);
        let q = b.select(by_m1, neg, q);
        b.select(by_zero, zero, q)
    } else {
        let safe = b.select(by_zero, one, y);
        let q = b.binary(PBinary::Div, x, safe);
        b.select(by_zero, zero, q)
    }
}

/// Complex operations term by term, in the CPU reference's order of rounding.
fn complex_binary(b: &mut Builder, op: BinaryOp, x: Value, y: Value) -> Value {
    let (a, bi) = (b.re(x), b.im(x));
    let (c, di) = (b.re(y), b.im(y));
    let mul = |b: &mut Builder, p: Value, q: Value| b.binary(PBinary::Mul, p, q);
    match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let p = if op == BinaryOp::Add {
                PBinary::Add
            } else {
                PBinary::Sub
            };
            let (re, im) = (b.binary(p, a, c), b.binary(p, bi, di));
            b.complex(re, im)
        }
        // (ac − bd) + i(ad + bc), with no recovery of infinities.
        BinaryOp::Mul => {
            let (ac, bd) = (mul(b, a, c), mul(b, bi, di));
            let re = b.binary(PBinary::Sub, ac, bd);
            let (ad, bc) = (mul(b, a, di), mul(b, bi, c));
            let im = b.binary(PBinary::Add, ad, bc);
            b.complex(re, im)
        }
        // ((ac + bd) + i(bc − ad)) / (c² + d²).
        BinaryOp::Div => {
            let (cc, dd) = (mul(b, c, c), mul(b, di, di));
            let n = b.binary(PBinary::Add, cc, dd);
            let (ac, bd) = (mul(b, a, c), mul(b, bi, di));
            let re = b.binary(PBinary::Add, ac, bd);
            let re = b.binary(PBinary::Div, re, n);
            let (bc, ad) = (mul(b, bi, c), mul(b, a, di));
            let im = b.binary(PBinary::Sub, bc, ad);
            let im = b.binary(PBinary::Div, im, n);
            b.complex(re, im)
        }
        // Eq or Ne (the type rules admit nothing else): both parts compared.
        _ => {
            let (re, im) = (b.binary(PBinary::Eq, a, c), b.binary(PBinary::Eq, bi, di));
            let eq = b.binary(PBinary::And, re, im);
            if op == BinaryOp::Ne {
                b.unary(PUnary::Not, eq)
            } else {
                eq
            }
        }
    }
}

/// Appends the conversion of `a` to `to` with the rules of [`crate::scalar`].
pub fn cast_into(b: &mut Builder, a: Value, to: DType) -> Value {
    let from = b.ty(a);
    if from == to {
        return a;
    }
    if from.is_half() {
        // Widening is exact, so the conversion from f32 is the conversion from the half.
        let wide = b.convert(DType::F32, a);
        return cast_into(b, wide, to);
    }
    if to == DType::Bool {
        // Nonzero is true (NaN too: `Ne` is unordered); complex: either part.
        if from.is_complex() {
            let (re, im) = (b.re(a), b.im(a));
            let z = b.zero(from.real());
            let (r, i) = (b.binary(PBinary::Ne, re, z), b.binary(PBinary::Ne, im, z));
            return b.binary(PBinary::Or, r, i);
        }
        let z = b.zero(from);
        return b.binary(PBinary::Ne, a, z);
    }
    if from.is_complex() {
        let re = b.re(a);
        if to.is_complex() {
            let im = b.im(a);
            let (r, i) = (b.convert(to.real(), re), b.convert(to.real(), im));
            return b.complex(r, i);
        }
        return cast_into(b, re, to);
    }
    if to.is_complex() {
        let re = cast_into(b, a, to.real());
        let im = b.zero(to.real());
        return b.complex(re, im);
    }
    if from == DType::Bool {
        let (one, zero) = (b.one(to), b.zero(to));
        return b.select(a, one, zero);
    }
    if from.is_float() && to.is_integer() {
        return float_to_int(b, a, to);
    }
    b.convert(to, a)
}

/// Rust `as` from a float to an integer: truncate toward zero, saturate, NaN to 0. The
/// conversion only sees values whose truncation is in range (others are replaced by 0 first),
/// so it is defined on every target.
fn float_to_int(b: &mut Builder, x: Value, to: DType) -> Value {
    let f = b.ty(x);
    // The range whose truncation fits: (lo, hi) for unsigned (lo = -1), [lo, hi) for signed
    // (lo = MIN); both bounds are exact powers of two (or -1) in every float type.
    let (lo, hi, min, max): (f64, f64, i128, i128) = match to {
        DType::U8 => (-1.0, 256.0, 0, u8::MAX as i128),
        DType::I8 => (-128.0, 128.0, i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (-32768.0, 32768.0, i16::MIN as i128, i16::MAX as i128),
        DType::U16 => (-1.0, 65536.0, 0, u16::MAX as i128),
        DType::I32 => (
            -2147483648.0,
            2147483648.0,
            i32::MIN as i128,
            i32::MAX as i128,
        ),
        DType::U32 => (-1.0, 4294967296.0, 0, u32::MAX as i128),
        DType::I64 => (
            -(2f64.powi(63)),
            2f64.powi(63),
            i64::MIN as i128,
            i64::MAX as i128,
        ),
        _ => (-1.0, 2f64.powi(64), 0, u64::MAX as i128),
    };
    let signed = to.is_signed_integer();
    let (lo_v, hi_v) = (b.float(f, lo), b.float(f, hi));
    let above_lo = if signed {
        b.binary(PBinary::Ge, x, lo_v)
    } else {
        b.binary(PBinary::Gt, x, lo_v)
    };
    let below_hi = b.binary(PBinary::Lt, x, hi_v);
    let in_range = b.binary(PBinary::And, above_lo, below_hi);
    let zero_f = b.zero(f);
    let safe = b.select(in_range, x, zero_f);
    let q = b.convert(to, safe);
    let over = b.binary(PBinary::Ge, x, hi_v);
    let (max_v, zero) = (b.int(to, max), b.zero(to));
    // Below the range: MIN for signed types (0 for unsigned ones); NaN: 0.
    let under = if signed {
        let below = b.binary(PBinary::Lt, x, lo_v);
        let min_v = b.int(to, min);
        b.select(below, min_v, zero)
    } else {
        zero
    };
    let sat = b.select(over, max_v, under);
    b.select(in_range, q, sat)
}
