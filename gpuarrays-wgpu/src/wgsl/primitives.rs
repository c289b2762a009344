//! WGSL for the primitives of `gpuarrays_core::kernel::lowered`. Every semantic rule (integer
//! division by zero, saturating casts, NaN-propagating min/max, complex formulas, Philox) is
//! expanded by core, so this only prints each primitive. What stays here is WGSL's own
//! business: u8, i8, i16 and u16 live in 32 bits and are wrapped back to their width, halves
//! live in an f32 and are rounded by [`half`], bool orders through 0/1, `!=`
//! and NaN tests are written so that no driver folds them ([`Helpers::isnan`]), f32 division
//! goes through [`Helpers::fdiv`], a float +0 is the opaque [`Helpers::zero`] (drivers fold
//! `x·0.0`), `MulWide` is a `vec2<u32>` (high, low) from 16-bit halves
//! ([`extended::mulhilo`]), and the library math is computed in software ([`super::math`]).
//!
//! A block prints as `let` statements (kernels, helper functions) or, for the one-operation
//! blocks of reductions, scans and matmul ([`binary`]), as one expression.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::lowered::ir::{const_float, const_int};
use gpuarrays_core::kernel::lowered::{self, Block, MathFn, PBinary, PUnary, Prim, Value};
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};

use super::helpers::Helpers;
use super::types::{f32_lit, f64_lit, int_bounds, lit, ty};
use super::{extended, fmod, half, math, pow, trig};
use crate::error::{Result, WgpuError};

/// A WGSL literal of `t` with the bits of a `Const`.
fn literal(h: &Helpers, t: DType, bits: u64) -> String {
    let min = (t == DType::I32 && bits as u32 == 1 << 31) || (t == DType::I64 && bits == 1 << 63);
    match t {
        DType::F32 | DType::F64 if bits == 0 => h.zero(t),
        DType::F16 | DType::BF16 if bits == 0 => h.zero(DType::F32),
        DType::F32 => f32_lit(f32::from_bits(bits as u32)),
        // A half constant is held as the f32 of the same value (exact).
        DType::F16 | DType::BF16 => f32_lit(const_float(t, bits) as f32),
        DType::F64 => f64_lit(const_float(t, bits)),
        _ if min => int_bounds(t).0,
        _ => lit(t, const_int(t, bits) as i64),
    }
}

/// `e` wrapped to the width of a narrow integer type `t` (held in 32 bits): the low bits,
/// sign-extended for i8 and i16.
fn wrap(t: DType, e: String) -> String {
    match t {
        DType::U8 => format!("(({e}) & 0xffu)"),
        DType::U16 => format!("(({e}) & 0xffffu)"),
        DType::I8 => format!("((({e}) << 24u) >> 24u)"),
        DType::I16 => format!("((({e}) << 16u) >> 16u)"),
        _ => e,
    }
}

/// Integer to integer with wrapping: to the target's width in the source's signedness, then
/// the bits reinterpreted.
fn int_to_int(from: DType, to: DType, a: &str) -> String {
    let step = match (to.is_64bit(), from.is_signed_integer()) {
        (false, true) => "i32",
        (false, false) => "u32",
        (true, true) => "i64",
        (true, false) => "u64",
    };
    let v = if from.is_64bit() == to.is_64bit() {
        a.to_string()
    } else {
        format!("{step}({a})")
    };
    let v = if step == ty(to) {
        v
    } else {
        format!("bitcast<{}>({v})", ty(to))
    };
    wrap(to, v)
}

fn math_fn(h: &mut Helpers, f: MathFn, t: DType, a: &str) -> String {
    let op = match f {
        MathFn::Abs => return format!("abs({a})"),
        // Exact operations (WGSL's `round` takes halves to even); f64 `round` from `floor`
        // ([`math::rint_f64`]).
        MathFn::Floor => return format!("floor({a})"),
        MathFn::Rint if t == DType::F64 => return format!("{}({a})", math::rint_f64(h)),
        MathFn::Rint => return format!("round({a})"),
        MathFn::Cis | MathFn::TurnCis => {
            let (c, s) = (trig::sin_cos(h, t, true), trig::sin_cos(h, t, false));
            return format!("vec2<{}>({c}({a}), {s}({a}))", ty(t));
        }
        MathFn::Sqrt => UnaryOp::Sqrt,
        MathFn::Exp => UnaryOp::Exp,
        MathFn::Log | MathFn::UnitLn => UnaryOp::Log,
        MathFn::Sin => UnaryOp::Sin,
        MathFn::Cos => UnaryOp::Cos,
        MathFn::Tanh => UnaryOp::Tanh,
    };
    math::unary(h, op, t, a)
}

fn binary_prim(h: &mut Helpers, op: PBinary, t: DType, a: &str, b: &str) -> String {
    let sym = match op {
        PBinary::Div if t.is_float() => return h.fdiv(t, a, b),
        PBinary::Pow => return format!("{}({a}, {b})", pow::pow(h, t)),
        PBinary::Fmod => return format!("{}({a}, {b})", fmod::fmod(h, t)),
        // `!(a == b)`: WGSL's `!=` on floats may be an ordered comparison (false for NaN).
        PBinary::Ne if t.is_float() => return format!("(!({a} == {b}))"),
        _ if t == DType::Bool && op.is_comparison() && !matches!(op, PBinary::Eq | PBinary::Ne) => {
            let (x, y) = (
                format!("select(0u, 1u, {a})"),
                format!("select(0u, 1u, {b})"),
            );
            return binary_prim(h, op, DType::U32, &x, &y);
        }
        PBinary::Add => "+",
        PBinary::Sub => "-",
        PBinary::Mul => "*",
        PBinary::Div => "/",
        PBinary::Eq => "==",
        PBinary::Ne => "!=",
        PBinary::Lt => "<",
        PBinary::Le => "<=",
        PBinary::Gt => ">",
        PBinary::Ge => ">=",
        PBinary::And if t == DType::Bool => "&&",
        PBinary::Or if t == DType::Bool => "||",
        PBinary::Xor if t == DType::Bool => "!=",
        PBinary::And => "&",
        PBinary::Or => "|",
        PBinary::Xor => "^",
        PBinary::Shl => "<<",
        PBinary::Shr => ">>",
    };
    let e = format!("({a} {sym} {b})");
    match op {
        // `Div`: i8 -128 / -1 is 128 in 32 bits, -128 in the type.
        PBinary::Add | PBinary::Sub | PBinary::Mul | PBinary::Shl | PBinary::Div => wrap(t, e),
        _ => e,
    }
}

/// The WGSL expression of instruction `v` of `b` with operand expressions `o`.
fn expr(h: &mut Helpers, b: &Block, v: Value, o: &[String]) -> String {
    let (op, t) = (b.instrs[v as usize].op, b.instrs[v as usize].ty);
    let a = o.first().map_or("", String::as_str);
    match op {
        Prim::Const(bits) => literal(h, t, bits),
        Prim::Unary(PUnary::Neg, _) if t.is_float() => format!("(-{a})"),
        Prim::Unary(PUnary::Neg, _) => wrap(t, format!("({} - {a})", lit(t, 0))),
        Prim::Unary(PUnary::Not, _) if t == DType::Bool => format!("(!{a})"),
        Prim::Unary(PUnary::Not, _) => wrap(t, format!("(~{a})")),
        Prim::Unary(PUnary::IsNan, x) => format!("{}({a})", h.isnan(b.ty(x))),
        Prim::Unary(PUnary::Math(f), x) => math_fn(h, f, b.ty(x), a),
        Prim::Binary(op, x, _) => binary_prim(h, op, b.ty(x), a, &o[1]),
        Prim::Select(..) => format!("select({}, {}, {a})", o[2], o[1]),
        Prim::Convert(x) if b.ty(x).is_integer() && t.is_integer() => int_to_int(b.ty(x), t, a),
        // A half is held as the f32 of its value: widening it is the value itself.
        Prim::Convert(x) if b.ty(x).is_half() && t == DType::F32 => a.to_string(),
        Prim::Convert(x) if t.is_half() && b.ty(x) == DType::Bool => {
            format!("select(0.0, 1.0, {a})")
        }
        Prim::Convert(x) if t.is_half() => half::round_into(b.ty(x), t, a),
        Prim::Bitcast(_) => format!("bitcast<{}>({a})", ty(t)),
        Prim::Convert(_) => format!("{}({a})", ty(t)),
        Prim::Re(z) | Prim::Im(z) if reads(b, op) != [z] => {
            let cos = matches!(op, Prim::Re(_));
            format!("{}({a})", trig::sin_cos(h, t, cos))
        }
        Prim::Re(_) | Prim::Hi(_) => format!("{a}.x"),
        Prim::Im(_) | Prim::Lo(_) => format!("{a}.y"),
        Prim::Complex(..) => format!("{}({a}, {})", ty(t), o[1]),
        Prim::MulWide(..) => format!("{}({a}, {})", extended::mulhilo(h), o[1]),
        leaf => format!("/* unbound {leaf:?} */"),
    }
}

/// The operands a primitive is printed from: `Re`/`Im` of a sine–cosine pair read the angle
/// and print their own function, so an element that keeps one of the pair computes one.
fn reads(b: &Block, op: Prim) -> Vec<Value> {
    match op {
        Prim::Re(z) | Prim::Im(z) => match b.instrs[z as usize].op {
            Prim::Unary(PUnary::Math(MathFn::Cis | MathFn::TurnCis), t) => vec![t],
            _ => vec![z],
        },
        _ => op.operands().collect(),
    }
}

/// Marks in `need` every instruction `v` is computed from.
fn mark(b: &Block, v: Value, need: &mut [bool]) {
    if !need[v as usize] {
        need[v as usize] = true;
        for a in reads(b, b.instrs[v as usize].op) {
            mark(b, a, need);
        }
    }
}

/// Which instructions of `b` the values `roots` are computed from (themselves included).
pub(super) fn needed(b: &Block, roots: &[Value]) -> Vec<bool> {
    let mut need = vec![false; b.instrs.len()];
    for &r in roots {
        mark(b, r, &mut need);
    }
    need
}

/// The instructions marked in `print` (and not yet in `done`) as statements
/// `let {prefix}{v} = ...;`, value `v` named `{prefix}{v}`; `leaf` prints the leaves
/// (`Arg`, `Input`, `Scalar`, `Index`, `Random`).
pub(super) fn print_marked(
    h: &mut Helpers,
    b: &Block,
    (prefix, print, done): (&str, &[bool], &mut [bool]),
    leaf: &mut dyn FnMut(&mut Helpers, Value, Prim) -> String,
) -> String {
    let mut s = String::new();
    for (v, ins) in b.instrs.iter().enumerate() {
        if !print[v] || std::mem::replace(&mut done[v], true) {
            continue;
        }
        let e = match ins.op {
            Prim::Arg(_) | Prim::Input(_) | Prim::Scalar(_) | Prim::Index | Prim::Random(..) => {
                leaf(h, v as Value, ins.op)
            }
            op => {
                let o: Vec<String> = reads(b, op)
                    .iter()
                    .map(|a| format!("{prefix}{a}"))
                    .collect();
                expr(h, b, v as Value, &o)
            }
        };
        s.push_str(&format!("  let {prefix}{v} = {e};\n"));
    }
    s
}

/// The statements `let {prefix}{v} = ...;` computing the block's results, value `v` named
/// `{prefix}{v}`; `leaf` prints the leaves (`Arg`, `Input`, `Scalar`, `Index`, `Random`).
pub fn statements(
    h: &mut Helpers,
    b: &Block,
    prefix: &str,
    leaf: &mut dyn FnMut(&mut Helpers, Value, Prim) -> String,
) -> String {
    let mut done = vec![false; b.instrs.len()];
    print_marked(h, b, (prefix, &needed(b, &b.results), &mut done), leaf)
}

/// The block's first result as one expression of the arguments `args` (plain names, so an
/// argument read twice is evaluated once).
pub fn inline(h: &mut Helpers, b: &Block, args: &[&str]) -> String {
    fn go(h: &mut Helpers, b: &Block, v: Value, args: &[&str]) -> String {
        match b.instrs[v as usize].op {
            Prim::Arg(k) => args[k as usize].to_string(),
            op => {
                let o: Vec<String> = op.operands().map(|a| go(h, b, a, args)).collect();
                expr(h, b, v, &o)
            }
        }
    }
    go(h, b, b.results[0], args)
}

/// `a OP b`, both of type `d`, as one expression.
pub fn binary(h: &mut Helpers, op: BinaryOp, d: DType, a: &str, b: &str) -> Result<String> {
    let block = lowered::binary(op, d)
        .map_err(|e| WgpuError::InvalidArgument(format!("no WGSL lowering: {e}")))?;
    Ok(inline(h, &block, &[a, b]))
}
