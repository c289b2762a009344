//! Lowering of the expression operations to C++ expressions with the exact semantics of
//! `gpuarrays_core::kernel::ops` and `gpuarrays_core::scalar`: wrapping integers (computed in
//! the unsigned type, where C++ defines wrap-around), truncating integer division with
//! `x / 0 == 0` and `MIN / -1 == MIN`, NaN-propagating min/max, Rust `as` casts.
//!
//! Operands are always plain variable names (each instruction becomes one statement), so
//! repeating an operand in an expression evaluates nothing twice.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};

use super::element_types::{cty, wrapping};
use crate::error::{HipError, Result};

fn unsupported(what: String) -> HipError {
    HipError::InvalidArgument(format!("no kernel lowering for {what}"))
}

/// `a OP b` with integer wrap-around for `+ - *`.
fn wrap_arith(d: DType, sym: &str, a: &str, b: &str) -> String {
    match (d, wrapping(d)) {
        (DType::U8, _) => format!("((u8)({a} {sym} {b}))"),
        (_, Some(u)) => format!("(({t})(({u}){a} {sym} ({u}){b}))", t = cty(d)),
        _ => format!("({a} {sym} {b})"),
    }
}

/// The C++ expression of `op a` for an operand of type `d`.
pub fn unary(op: UnaryOp, d: DType, a: &str) -> Result<String> {
    let f32f = |f: &str| format!("{f}f({a})");
    let f64f = |f: &str| format!("{f}({a})");
    let s = match (op, d) {
        (UnaryOp::Neg, DType::C32 | DType::C64) => format!("ga_cneg({a})"),
        (UnaryOp::Neg, DType::F32 | DType::F64) => format!("(-{a})"),
        (UnaryOp::Neg, DType::U8) => format!("((u8)(0u - (u32){a}))"),
        (UnaryOp::Neg, DType::U32) => format!("(0u - {a})"),
        (UnaryOp::Neg, DType::U64) => format!("(0ULL - {a})"),
        (UnaryOp::Neg, DType::I32) => format!("((i32)(0u - (u32){a}))"),
        (UnaryOp::Neg, DType::I64) => format!("((i64)(0ULL - (u64){a}))"),
        (UnaryOp::Abs, DType::I32) => format!("({a} < 0 ? (i32)(0u - (u32){a}) : {a})"),
        (UnaryOp::Abs, DType::I64) => format!("({a} < 0 ? (i64)(0ULL - (u64){a}) : {a})"),
        (UnaryOp::Abs, DType::U8 | DType::U32 | DType::U64) => a.to_string(),
        (UnaryOp::Abs, DType::F32) => format!("fabsf({a})"),
        (UnaryOp::Abs, DType::F64) => format!("fabs({a})"),
        (UnaryOp::Abs, DType::C32) => format!("hypotf({a}.re, {a}.im)"),
        (UnaryOp::Abs, DType::C64) => format!("ga_hypot({a}.re, {a}.im)"),
        (UnaryOp::Not, DType::Bool) => format!("(!{a})"),
        (UnaryOp::Not, DType::U8) => format!("((u8)~{a})"),
        (UnaryOp::Not, DType::I32 | DType::U32 | DType::I64 | DType::U64) => format!("(~{a})"),
        (UnaryOp::Sqrt, DType::F32) => f32f("sqrt"),
        (UnaryOp::Exp, DType::F32) => f32f("exp"),
        (UnaryOp::Log, DType::F32) => f32f("log"),
        (UnaryOp::Sin, DType::F32) => f32f("sin"),
        (UnaryOp::Cos, DType::F32) => f32f("cos"),
        (UnaryOp::Tanh, DType::F32) => f32f("tanh"),
        (UnaryOp::Sqrt, DType::F64) => f64f("sqrt"),
        (UnaryOp::Exp, DType::F64) => f64f("exp"),
        (UnaryOp::Log, DType::F64) => f64f("log"),
        (UnaryOp::Sin, DType::F64) => f64f("sin"),
        (UnaryOp::Cos, DType::F64) => f64f("cos"),
        (UnaryOp::Tanh, DType::F64) => f64f("tanh"),
        _ => return Err(unsupported(format!("{op} of {d}"))),
    };
    Ok(s)
}

/// The C++ expression of `a OP b`, both of type `d`.
pub fn binary(op: BinaryOp, d: DType, a: &str, b: &str) -> Result<String> {
    let complex = d.is_complex();
    let float = d.is_float();
    let s = match op {
        BinaryOp::Add if complex => format!("ga_cadd({a}, {b})"),
        BinaryOp::Sub if complex => format!("ga_csub({a}, {b})"),
        BinaryOp::Mul if complex => format!("ga_cmul({a}, {b})"),
        BinaryOp::Div if complex => format!("ga_cdiv({a}, {b})"),
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul if d.is_numeric() => {
            let sym = match op {
                BinaryOp::Add => "+",
                BinaryOp::Sub => "-",
                _ => "*",
            };
            wrap_arith(d, sym, a, b)
        }
        BinaryOp::Div if float => format!("({a} / {b})"),
        BinaryOp::Div if d.is_signed_integer() => {
            // b == -1 is negation (wrapping), which also covers MIN / -1 == MIN without the
            // hardware trap/UB of the C division.
            let neg = unary(UnaryOp::Neg, d, a)?;
            format!(
                "({b} == 0 ? ({t})0 : ({b} == -1 ? {neg} : ({t})({a} / {b})))",
                t = cty(d)
            )
        }
        BinaryOp::Div if d.is_integer() => {
            format!("({b} == 0 ? ({t})0 : ({t})({a} / {b}))", t = cty(d))
        }
        BinaryOp::Pow if d == DType::F32 => format!("powf({a}, {b})"),
        BinaryOp::Pow if d == DType::F64 => format!("pow({a}, {b})"),
        BinaryOp::Min if float => format!("ga_fmin({a}, {b})"),
        BinaryOp::Max if float => format!("ga_fmax({a}, {b})"),
        BinaryOp::Min if d.is_ordered() => format!("({b} < {a} ? {b} : {a})"),
        BinaryOp::Max if d.is_ordered() => format!("({b} > {a} ? {b} : {a})"),
        BinaryOp::Eq if complex => format!("ga_ceq({a}, {b})"),
        BinaryOp::Ne if complex => format!("(!ga_ceq({a}, {b}))"),
        BinaryOp::Eq => format!("({a} == {b})"),
        BinaryOp::Ne => format!("({a} != {b})"),
        BinaryOp::Lt if !complex => format!("({a} < {b})"),
        BinaryOp::Le if !complex => format!("({a} <= {b})"),
        BinaryOp::Gt if !complex => format!("({a} > {b})"),
        BinaryOp::Ge if !complex => format!("({a} >= {b})"),
        BinaryOp::And if d == DType::Bool => format!("({a} && {b})"),
        BinaryOp::Or if d == DType::Bool => format!("({a} || {b})"),
        BinaryOp::Xor if d == DType::Bool => format!("({a} != {b})"),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor if d.is_integer() => {
            let sym = match op {
                BinaryOp::And => "&",
                BinaryOp::Or => "|",
                _ => "^",
            };
            format!("(({t})({a} {sym} {b}))", t = cty(d))
        }
        _ => return Err(unsupported(format!("{op} of {d}"))),
    };
    Ok(s)
}

/// Float-to-integer conversion with Rust `as` semantics, from a float expression of type
/// `from` (F32 or F64) to the integer type `to`.
fn float_to_int(from: DType, to: DType, x: &str) -> String {
    // (MIN, MAX + 1) as exact powers of two, and the integer extremes.
    let (lo, hi, imin, imax) = match to {
        DType::U8 => ("0.0", "256.0", "(u8)0", "(u8)255"),
        DType::I32 => (
            "-2147483648.0",
            "2147483648.0",
            "(-2147483647 - 1)",
            "2147483647",
        ),
        DType::U32 => ("0.0", "4294967296.0", "0u", "4294967295u"),
        DType::I64 => (
            "-9223372036854775808.0",
            "9223372036854775808.0",
            "(-9223372036854775807LL - 1)",
            "9223372036854775807LL",
        ),
        _ => (
            "0.0",
            "18446744073709551616.0",
            "0ULL",
            "18446744073709551615ULL",
        ),
    };
    let (f, suffix) = if from == DType::F32 {
        ("f32", "f")
    } else {
        ("f64", "")
    };
    format!(
        "ga_f2i<{i}, {f}>({x}, {lo}{suffix}, {hi}{suffix}, {imin}, {imax})",
        i = cty(to)
    )
}

/// The C++ expression converting `a` of type `from` to `to` (rules of `gpuarrays_core::scalar`).
pub fn cast(from: DType, to: DType, a: &str) -> String {
    if from == to {
        return a.to_string();
    }
    if to == DType::Bool {
        return if from.is_complex() {
            format!("({a}.re != 0 || {a}.im != 0)")
        } else {
            format!("({a} != 0)")
        };
    }
    if from.is_complex() {
        if to.is_complex() {
            let (mk, c) = if to == DType::C32 {
                ("ga_c32", "f32")
            } else {
                ("ga_c64", "f64")
            };
            return format!("{mk}(({c}){a}.re, ({c}){a}.im)");
        }
        return cast(from.real(), to, &format!("{a}.re"));
    }
    match to {
        DType::C32 => format!("ga_c32((f32){a}, 0.0f)"),
        DType::C64 => format!("ga_c64((f64){a}, 0.0)"),
        _ if from.is_float() && to.is_integer() => float_to_int(from, to, a),
        // int <-> int wraps (C conversions to unsigned are modular; to signed, two's
        // complement on every compiler we target); int -> float rounds to nearest once;
        // f64 -> f32 rounds to nearest; bool -> 0/1.
        _ => format!("(({t}){a})", t = cty(to)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_operation_lowers() {
        for d in DType::ALL {
            for op in UnaryOp::ALL {
                assert_eq!(
                    op.result_dtype(d).is_ok(),
                    unary(op, d, "x").is_ok(),
                    "{op} {d}"
                );
            }
            for op in BinaryOp::ALL {
                assert_eq!(
                    op.result_dtype(d, d).is_ok(),
                    binary(op, d, "x", "y").is_ok(),
                    "{op} {d}"
                );
            }
        }
    }

    #[test]
    fn integer_semantics_are_explicit() {
        assert_eq!(
            binary(BinaryOp::Add, DType::I32, "a", "b").unwrap(),
            "((i32)((u32)a + (u32)b))"
        );
        let div = binary(BinaryOp::Div, DType::I64, "a", "b").unwrap();
        assert!(div.contains("b == 0") && div.contains("b == -1"), "{div}");
        assert!(cast(DType::F32, DType::U8, "x").starts_with("ga_f2i<u8, f32>"));
        assert_eq!(cast(DType::C64, DType::F32, "z"), "((f32)z.re)");
        assert_eq!(
            cast(DType::C32, DType::Bool, "z"),
            "(z.re != 0 || z.im != 0)"
        );
    }
}
