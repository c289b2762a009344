//! C++ for the primitives of `gpuarrays_core::kernel::lowered`. Every semantic rule (integer
//! division by zero, saturating casts, NaN-propagating min/max, complex formulas, Philox) is
//! expanded by core, so this only prints each primitive in the HIP dialect. What stays here is
//! C++'s own business: signed arithmetic wraps in the unsigned type (signed overflow is
//! undefined), `u8` is cut back to 8 bits after integer promotion, literals are written so
//! that no conversion changes them, and the library math (`sqrtf`, `expf`, ..., and for f32
//! the short `ga_unit_ln`/`ga_cis_turn` of the restricted-argument functions).
//!
//! A block prints as statements (one `const` per primitive: kernels, device functions) or,
//! for the one-operation blocks of reductions, scans and matmul ([`unary`], [`binary`],
//! [`cast`]), as one expression.

use std::fmt::Write;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::lowered::ir::{const_float, const_int};
use gpuarrays_core::kernel::lowered::{self, Block, MathFn, PBinary, PUnary, Prim, Value};
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};

use super::element_types::cty;
use crate::error::{HipError, Result};

/// A C++ literal of `t` with the bits of a `Const`.
pub fn literal(t: DType, bits: u64) -> String {
    let x = const_float(t, bits);
    match t {
        // A half constant is held as the f32 of its value (exact), like every half register.
        DType::F16 | DType::BF16 => literal(DType::F32, (x as f32).to_bits() as u64),
        DType::Bool => (bits != 0).to_string(),
        DType::U8 => format!("((u8){bits})"),
        DType::U16 => format!("((u16){bits})"),
        DType::I8 | DType::I16 => format!("(({}){})", cty(t), const_int(t, bits)),
        DType::U32 => format!("{bits}u"),
        DType::U64 => format!("{bits}ULL"),
        DType::I32 if bits as u32 == 1 << 31 => "(-2147483647 - 1)".into(),
        DType::I64 if bits == 1 << 63 => "(-9223372036854775807LL - 1)".into(),
        DType::I32 => format!("({})", const_int(t, bits)),
        DType::I64 => format!("({}LL)", const_int(t, bits)),
        DType::F32 if x.is_finite() => format!("({:e}f)", x as f32),
        DType::F64 if x.is_finite() => format!("({x:e})"),
        DType::F32 => format!("__uint_as_float({bits:#x}u)"),
        _ => format!("__longlong_as_double({bits:#x}LL)"),
    }
}

fn math(f: MathFn, t: DType, a: &str) -> String {
    let f32 = t == DType::F32;
    let name = match f {
        MathFn::UnitLn if f32 => return format!("ga_unit_ln({a})"),
        MathFn::TurnCis if f32 => return format!("ga_cis_turn({a})"),
        MathFn::TurnCis => return format!("ga_cis({a})"),
        // (The random draws' `ga_cis` is emitted only with them; the compiler pairs the two.)
        MathFn::Cis if f32 => return format!("ga_c32(cosf({a}), sinf({a}))"),
        MathFn::Cis => return format!("ga_c64(cos({a}), sin({a}))"),
        MathFn::Abs => "fabs",
        MathFn::Sqrt => "sqrt",
        MathFn::Exp => "exp",
        MathFn::Log | MathFn::UnitLn => "log",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Tanh => "tanh",
        MathFn::Floor => "floor",
        // The default rounding mode: halves to even.
        MathFn::Rint => "rint",
    };
    format!("{name}{}({a})", if f32 { "f" } else { "" })
}

fn binary_prim(op: PBinary, t: DType, a: &str, b: &str) -> String {
    let sym = match op {
        PBinary::Pow if t == DType::F32 => return format!("powf({a}, {b})"),
        PBinary::Pow => return format!("pow({a}, {b})"),
        PBinary::Fmod if t == DType::F32 => return format!("fmodf({a}, {b})"),
        PBinary::Fmod => return format!("fmod({a}, {b})"),
        PBinary::Add => "+",
        PBinary::Sub => "-",
        PBinary::Mul => "*",
        PBinary::Div => "/",
        PBinary::Eq => "==",
        PBinary::Ne | PBinary::Xor if t == DType::Bool => "!=",
        PBinary::Ne => "!=",
        PBinary::Lt => "<",
        PBinary::Le => "<=",
        PBinary::Gt => ">",
        PBinary::Ge => ">=",
        PBinary::And if t == DType::Bool => "&&",
        PBinary::Or if t == DType::Bool => "||",
        PBinary::And => "&",
        PBinary::Or => "|",
        PBinary::Xor => "^",
        PBinary::Shl => "<<",
        PBinary::Shr => ">>",
    };
    match (op, t) {
        (PBinary::Add | PBinary::Sub | PBinary::Mul, DType::I32) => {
            format!("((i32)((u32){a} {sym} (u32){b}))")
        }
        (PBinary::Add | PBinary::Sub | PBinary::Mul, DType::I64) => {
            format!("((i64)((u64){a} {sym} (u64){b}))")
        }
        // A left shift of a negative signed value is undefined before C++20: shift the bits.
        (PBinary::Shl, DType::I32) => format!("((i32)((u32){a} << {b}))"),
        (PBinary::Shl, DType::I64) => format!("((i64)((u64){a} << {b}))"),
        // The narrow integers are promoted to int: wrapping arithmetic and left shifts go
        // through u32 (a u16 product overflows int), every result is cut back to the width.
        (PBinary::Add | PBinary::Sub | PBinary::Mul | PBinary::Shl, _) if is_narrow_int(t) => {
            format!("(({})((u32){a} {sym} (u32){b}))", cty(t))
        }
        _ if is_narrow_int(t) && !op.is_comparison() => format!("(({})({a} {sym} {b}))", cty(t)),
        _ => format!("({a} {sym} {b})"),
    }
}

/// The integers narrower than C++'s `int` (promoted before every operation).
fn is_narrow_int(t: DType) -> bool {
    matches!(t, DType::I8 | DType::U8 | DType::I16 | DType::U16)
}

/// The C++ expression of instruction `v` of `b` with operand expressions `o`.
fn expr(b: &Block, v: Value, o: &[String]) -> String {
    let (op, t) = (b.instrs[v as usize].op, b.instrs[v as usize].ty);
    let a = o.first().map_or("", String::as_str);
    match op {
        Prim::Const(bits) => literal(t, bits),
        Prim::Unary(PUnary::Neg, _) if t.is_float() => format!("(-{a})"),
        Prim::Unary(PUnary::Neg, _) => binary_prim(PBinary::Sub, t, &literal(t, 0), a),
        Prim::Unary(PUnary::Not, _) if t == DType::Bool => format!("(!{a})"),
        Prim::Unary(PUnary::Not, _) => format!("(({})~{a})", cty(t)),
        Prim::Unary(PUnary::IsNan, _) => format!("ga_isnan({a})"),
        Prim::Unary(PUnary::Math(f), x) => math(f, b.ty(x), a),
        Prim::Binary(op, x, _) => binary_prim(op, b.ty(x), a, &o[1]),
        Prim::Select(..) => format!("({a} ? {} : {})", o[1], o[2]),
        // A half register already holds the f32 of its value; into a half, round once.
        Prim::Convert(x) if b.ty(x).is_half() => a.to_string(),
        Prim::Convert(_) if t == DType::F16 => format!("ga_round_f16({a})"),
        Prim::Convert(_) if t == DType::BF16 => format!("ga_round_bf16({a})"),
        Prim::Convert(_) => format!("(({}){a})", cty(t)),
        Prim::Bitcast(x) => match (b.ty(x), t) {
            (DType::U32, DType::F32) => format!("__uint_as_float({a})"),
            (DType::F32, DType::U32) => format!("__float_as_uint({a})"),
            (DType::U64, DType::F64) => format!("__longlong_as_double((i64){a})"),
            (DType::F64, DType::U64) => format!("((u64)__double_as_longlong({a}))"),
            _ => format!("(({}){a})", cty(t)),
        },
        Prim::Re(_) => format!("{a}.re"),
        Prim::Im(_) => format!("{a}.im"),
        Prim::Complex(..) => format!("ga_{}({a}, {})", cty(t), o[1]),
        Prim::MulWide(..) => format!("ga_mul_wide({a}, {})", o[1]),
        Prim::Hi(_) => format!("((u32)({a} >> 32))"),
        Prim::Lo(_) => format!("((u32){a})"),
        leaf => format!("/* unbound {leaf:?} */"),
    }
}

/// The block as statements `const T {prefix}{v} = ...;`, one per primitive, value `v` named
/// `{prefix}{v}`; `leaf` prints the leaves (`Arg`, `Input`, `Scalar`, `Index`, `Random`).
pub fn statements(b: &Block, prefix: &str, leaf: &dyn Fn(Value, Prim) -> String) -> String {
    let mut s = String::new();
    for (v, ins) in b.instrs.iter().enumerate() {
        let o: Vec<String> = ins.op.operands().map(|a| format!("{prefix}{a}")).collect();
        let e = match ins.op {
            Prim::Arg(_) | Prim::Input(_) | Prim::Scalar(_) | Prim::Index | Prim::Random(..) => {
                leaf(v as Value, ins.op)
            }
            _ => expr(b, v as Value, &o),
        };
        let _ = writeln!(s, "  const {} {prefix}{v} = {e};", cty(ins.ty));
    }
    s
}

/// The block's first result as one expression of the arguments `args` (plain names, so an
/// argument read twice is evaluated once).
pub fn inline(b: &Block, args: &[&str]) -> String {
    fn go(b: &Block, v: Value, args: &[&str]) -> String {
        match b.instrs[v as usize].op {
            Prim::Arg(k) => args[k as usize].to_string(),
            op => expr(
                b,
                v,
                &op.operands().map(|a| go(b, a, args)).collect::<Vec<_>>(),
            ),
        }
    }
    go(b, b.results[0], args)
}

fn unsupported(e: gpuarrays_core::Error) -> HipError {
    HipError::InvalidArgument(format!("no kernel lowering: {e}"))
}

/// `op a` for an operand of type `d`, as one expression.
pub fn unary(op: UnaryOp, d: DType, a: &str) -> Result<String> {
    Ok(inline(&lowered::unary(op, d).map_err(unsupported)?, &[a]))
}

/// `a OP b`, both of type `d`, as one expression.
pub fn binary(op: BinaryOp, d: DType, a: &str, b: &str) -> Result<String> {
    Ok(inline(
        &lowered::binary(op, d).map_err(unsupported)?,
        &[a, b],
    ))
}

/// `a` of type `from` converted to `to`, as one expression.
pub fn cast(from: DType, to: DType, a: &str) -> String {
    inline(&lowered::cast(from, to), &[a])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_operation_lowers() {
        for d in DType::ALL {
            for op in UnaryOp::ALL {
                let ok = op.result_dtype(d).is_ok();
                assert_eq!(ok, unary(op, d, "x").is_ok(), "{op} {d}");
            }
            for op in BinaryOp::ALL {
                let ok = op.result_dtype(d, d).is_ok();
                assert_eq!(ok, binary(op, d, "x", "y").is_ok(), "{op} {d}");
            }
        }
    }

    #[test]
    fn integer_semantics_are_explicit() {
        let add = binary(BinaryOp::Add, DType::I32, "a", "b").unwrap();
        assert_eq!(add, "((i32)((u32)a + (u32)b))");
        // Division sees divisor 1 where the rule decides (0 and -1), then selects.
        let div = binary(BinaryOp::Div, DType::I64, "a", "b").unwrap();
        for part in ["(b == (0LL))", "(b == (-1LL))", "(a / ("] {
            assert!(div.contains(part), "{div}");
        }
        let f2i = cast(DType::F32, DType::U8, "x");
        assert!(
            f2i.contains("(x < (2.56e2f))") && f2i.contains("((u8)"),
            "{f2i}"
        );
        assert_eq!(cast(DType::C64, DType::F32, "z"), "((f32)z.re)");
        let to_bool = cast(DType::C32, DType::Bool, "z");
        assert_eq!(to_bool, "((z.re != (0e0f)) || (z.im != (0e0f)))");
        let min = binary(BinaryOp::Min, DType::F32, "a", "b").unwrap();
        assert_eq!(
            min,
            "(ga_isnan(a) ? a : (ga_isnan(b) ? b : ((b < a) ? b : a)))"
        );
    }

    #[test]
    fn library_functions_print_defined_cpp() {
        // A left shift of a signed value shifts the unsigned bits (no undefined behaviour),
        // with the amount made safe first.
        let shl = binary(BinaryOp::Shl, DType::I32, "a", "b").unwrap();
        assert!(shl.contains("((i32)((u32)a << ((u32)"), "{shl}");
        let rem = binary(BinaryOp::Rem, DType::F32, "a", "b").unwrap();
        assert!(rem.contains("fmodf(a, b)"), "{rem}");
        assert_eq!(unary(UnaryOp::Round, DType::F64, "x").unwrap(), "rint(x)");
        assert_eq!(unary(UnaryOp::Floor, DType::I32, "x").unwrap(), "x");
        let tan = unary(UnaryOp::Tan, DType::F32, "x").unwrap();
        assert_eq!(
            tan,
            "(ga_c32(cosf(x), sinf(x)).im / ga_c32(cosf(x), sinf(x)).re)"
        );
    }
}
