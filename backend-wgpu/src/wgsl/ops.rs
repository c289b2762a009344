//! Lowering of the expression operations to WGSL expressions with the exact semantics of
//! `gpuarrays_core::kernel::ops` and `gpuarrays_core::scalar`: wrapping integers (WGSL's
//! integer arithmetic wraps; u8 is masked to 8 bits), truncating integer division with
//! `x / 0 == 0` and `MIN / -1 == MIN`, NaN-propagating min/max, Rust `as` casts.
//!
//! Operands are always plain names (each instruction becomes one `let`), so repeating an
//! operand evaluates nothing twice. Transcendental functions come from [`super::math`].

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};

use super::helpers::Helpers;
use super::types::{lit, ty};
use super::{math, pow};
use crate::error::{Result, WgpuError};

fn unsupported(what: String) -> WgpuError {
    WgpuError::InvalidArgument(format!("no WGSL lowering for {what}"))
}

fn mask_u8(d: DType, e: String) -> String {
    if d == DType::U8 {
        format!("(({e}) & 0xffu)")
    } else {
        e
    }
}

/// The WGSL expression of `op a` for an operand of type `d`.
pub fn unary(h: &mut Helpers, op: UnaryOp, d: DType, a: &str) -> Result<String> {
    let s = match (op, d) {
        (UnaryOp::Neg, DType::Bool) | (UnaryOp::Abs, DType::Bool) => {
            return Err(unsupported(format!("{op} of {d}")));
        }
        (UnaryOp::Neg, _) if d.is_float() || d.is_complex() => format!("(-{a})"),
        (UnaryOp::Neg, _) => mask_u8(d, format!("({} - {a})", lit(d, 0))),
        (UnaryOp::Abs, DType::I32 | DType::I64) => {
            format!("select({a}, {} - {a}, {a} < {})", lit(d, 0), lit(d, 0))
        }
        (UnaryOp::Abs, DType::U8 | DType::U32 | DType::U64) => a.to_string(),
        (UnaryOp::Abs, DType::F32 | DType::F64) => format!("abs({a})"),
        (UnaryOp::Abs, DType::C32 | DType::C64) => format!("{}({a}.x, {a}.y)", h.hypot(d)),
        (UnaryOp::Not, DType::Bool) => format!("(!{a})"),
        (UnaryOp::Not, _) if d.is_integer() => mask_u8(d, format!("(~{a})")),
        (_, DType::F32 | DType::F64) if op.is_transcendental() => math::unary(h, op, d, a),
        _ => return Err(unsupported(format!("{op} of {d}"))),
    };
    Ok(s)
}

/// The WGSL expression of `a OP b`, both of type `d`.
pub fn binary(h: &mut Helpers, op: BinaryOp, d: DType, a: &str, b: &str) -> Result<String> {
    let complex = d.is_complex();
    let float = d.is_float();
    let bad = || unsupported(format!("{op} of {d}"));
    let s = match op {
        BinaryOp::Add | BinaryOp::Sub if d.is_numeric() => {
            let sym = if op == BinaryOp::Add { "+" } else { "-" };
            mask_u8(d, format!("({a} {sym} {b})"))
        }
        BinaryOp::Mul if complex => format!("{}({a}, {b})", h.cmul(d)),
        BinaryOp::Mul if d.is_numeric() => mask_u8(d, format!("({a} * {b})")),
        BinaryOp::Div if complex => format!("{}({a}, {b})", h.cdiv(d)),
        BinaryOp::Div if float => h.fdiv(d, a, b),
        BinaryOp::Div if d.is_integer() => format!("{}({a}, {b})", h.div_int(d)),
        BinaryOp::Pow if float => format!("{}({a}, {b})", pow::pow(h, d)),
        BinaryOp::Min | BinaryOp::Max if float => {
            format!("{}({a}, {b})", h.fminmax(d, op == BinaryOp::Max))
        }
        BinaryOp::Min if d.is_ordered() && d != DType::Bool => format!("min({a}, {b})"),
        BinaryOp::Max if d.is_ordered() && d != DType::Bool => format!("max({a}, {b})"),
        BinaryOp::Min if d == DType::Bool => format!("({a} && {b})"),
        BinaryOp::Max if d == DType::Bool => format!("({a} || {b})"),
        BinaryOp::Eq if complex => format!("all({a} == {b})"),
        // `!(a == b)`: WGSL's `!=` on floats may be an ordered comparison (false for NaN).
        BinaryOp::Ne if complex => format!("(!all({a} == {b}))"),
        BinaryOp::Eq => format!("({a} == {b})"),
        BinaryOp::Ne => format!("(!({a} == {b}))"),
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if d == DType::Bool => {
            // false < true: compare as integers.
            let sym = cmp_sym(op);
            format!("(select(0u, 1u, {a}) {sym} select(0u, 1u, {b}))")
        }
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if !complex => {
            format!("({a} {} {b})", cmp_sym(op))
        }
        BinaryOp::And if d == DType::Bool => format!("({a} && {b})"),
        BinaryOp::Or if d == DType::Bool => format!("({a} || {b})"),
        BinaryOp::Xor if d == DType::Bool => format!("({a} != {b})"),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor if d.is_integer() => {
            let sym = match op {
                BinaryOp::And => "&",
                BinaryOp::Or => "|",
                _ => "^",
            };
            format!("({a} {sym} {b})")
        }
        _ => return Err(bad()),
    };
    Ok(s)
}

fn cmp_sym(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        _ => ">=",
    }
}

/// Integer to integer with Rust `as` rules (wrap, sign- or zero-extend by the source).
fn int_to_int(from: DType, to: DType, a: &str) -> String {
    // Widen or narrow in the source's signedness, then reinterpret the bits.
    let wide = |d: DType| matches!(d, DType::I64 | DType::U64);
    let v = match (wide(from), wide(to)) {
        (false, false) => match (from, to) {
            (DType::I32, DType::U32 | DType::U8) => format!("bitcast<u32>({a})"),
            (DType::U32 | DType::U8, DType::I32) => format!("bitcast<i32>({a})"),
            _ => a.to_string(),
        },
        (true, true) => match (from, to) {
            (DType::I64, DType::U64) => format!("bitcast<u64>({a})"),
            (DType::U64, DType::I64) => format!("bitcast<i64>({a})"),
            _ => a.to_string(),
        },
        (false, true) => {
            let ext = if from == DType::I32 {
                format!("i64({a})")
            } else {
                format!("u64({a})")
            };
            match (from == DType::I32, to) {
                (true, DType::U64) => format!("bitcast<u64>({ext})"),
                (false, DType::I64) => format!("bitcast<i64>({ext})"),
                _ => ext,
            }
        }
        (true, false) => {
            let narrow = if from == DType::I64 {
                format!("i32({a})")
            } else {
                format!("u32({a})")
            };
            match (from == DType::I64, to) {
                (true, DType::U32 | DType::U8) => format!("bitcast<u32>({narrow})"),
                (false, DType::I32) => format!("bitcast<i32>({narrow})"),
                _ => narrow,
            }
        }
    };
    mask_u8(to, v)
}

/// The WGSL expression converting `a` of type `from` to `to` (rules of
/// `gpuarrays_core::scalar`).
pub fn cast(h: &mut Helpers, from: DType, to: DType, a: &str) -> String {
    if from == to {
        return a.to_string();
    }
    if to == DType::Bool {
        // NaN is true: written as `!(x == 0)` (see `Ne`).
        return if from.is_complex() {
            format!("(!all({a} == {}))", lit(from, 0))
        } else {
            format!("(!({a} == {}))", lit(from, 0))
        };
    }
    if from == DType::Bool && to.is_complex() {
        let r = to.real();
        return format!(
            "{}(select({}, {}, {a}), {})",
            ty(to),
            lit(r, 0),
            lit(r, 1),
            h.zero(r)
        );
    }
    if from == DType::Bool {
        return format!("select({}, {}, {a})", lit(to, 0), lit(to, 1));
    }
    if from.is_complex() {
        if to.is_complex() {
            return format!("{}({a})", ty(to));
        }
        return cast(h, from.real(), to, &format!("{a}.x"));
    }
    if to.is_complex() {
        let r = cast(h, from, to.real(), a);
        return format!("{}({r}, {})", ty(to), h.zero(to.real()));
    }
    match (from.is_float(), to.is_float()) {
        (true, true) => format!("{}({a})", ty(to)),
        (true, false) => format!("{}({a})", h.f2i(from, to)),
        (false, true) => format!("{}({a})", ty(to)),
        (false, false) => int_to_int(from, to, a),
    }
}
