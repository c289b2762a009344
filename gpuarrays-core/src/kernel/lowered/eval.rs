//! A direct interpreter of primitives, for the tests of the lowering: each primitive with the
//! semantics of [`super::ir::Prim`]'s table, checked preconditions included (a lowering that
//! divides by zero or converts an out-of-range float fails the test).

use super::ir::{Block, MathFn, PBinary, PUnary, Prim, const_float, const_int};
use crate::dtype::DType;

/// A value: integers and bool as i128, reals as f64 (f32 values exactly), complex as a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum V {
    I(i128),
    F(f64),
    C(f64, f64),
}

impl V {
    pub fn i(self) -> i128 {
        match self {
            V::I(x) => x,
            other => panic!("not an integer: {other:?}"),
        }
    }
    pub fn f(self) -> f64 {
        match self {
            V::F(x) => x,
            other => panic!("not a real: {other:?}"),
        }
    }
}

/// `x` wrapped to integer type `t` (bool: 0 or 1).
fn wrap(t: DType, x: i128) -> i128 {
    match t {
        DType::Bool => (x != 0) as i128,
        DType::U8 => x as u8 as i128,
        DType::I8 => x as i8 as i128,
        DType::I16 => x as i16 as i128,
        DType::U16 => x as u16 as i128,
        DType::I32 => x as i32 as i128,
        DType::U32 => x as u32 as i128,
        DType::I64 => x as i64 as i128,
        _ => x as u64 as i128,
    }
}

/// `x` rounded to real type `t` (once: the half types through the host's single rounding).
fn round(t: DType, x: f64) -> f64 {
    match t {
        DType::F32 => x as f32 as f64,
        DType::F16 => crate::host::half_types::f16_from_f64(x).to_f64(),
        DType::BF16 => crate::host::half_types::bf16_from_f64(x).to_f64(),
        _ => x,
    }
}

/// The lowering computes on halves in f32 (`super::ir::Prim`): arithmetic, comparisons and
/// library functions never see them.
fn no_half(t: DType, what: &str) {
    assert!(
        !t.is_half(),
        "{what} of {t}: halves must be computed in f32"
    );
}

fn math(f: MathFn, t: DType, x: f64) -> V {
    no_half(t, "a library function");
    let r = |y: f64| V::F(round(t, y));
    match f {
        MathFn::Abs => r(x.abs()),
        MathFn::Sqrt => r(x.sqrt()),
        MathFn::Exp => r(x.exp()),
        MathFn::Log | MathFn::UnitLn => r(x.ln()),
        MathFn::Sin => r(x.sin()),
        MathFn::Cos => r(x.cos()),
        MathFn::Tanh => r(x.tanh()),
        MathFn::Floor => r(x.floor()),
        MathFn::Rint => r(x.round_ties_even()),
        MathFn::Cis | MathFn::TurnCis => V::C(round(t, x.cos()), round(t, x.sin())),
    }
}

fn compare(op: PBinary, x: V, y: V) -> bool {
    let o = match (x, y) {
        (V::I(a), V::I(b)) => a.partial_cmp(&b),
        (V::F(a), V::F(b)) => a.partial_cmp(&b),
        _ => panic!("compare of {x:?} and {y:?}"),
    };
    use std::cmp::Ordering::*;
    match op {
        PBinary::Eq => o == Some(Equal),
        PBinary::Ne => o != Some(Equal),
        PBinary::Lt => o == Some(Less),
        PBinary::Le => matches!(o, Some(Less | Equal)),
        PBinary::Gt => o == Some(Greater),
        _ => matches!(o, Some(Greater | Equal)),
    }
}

fn binary(op: PBinary, t: DType, x: V, y: V) -> V {
    no_half(t, "a binary primitive");
    if op.is_comparison() {
        return V::I(compare(op, x, y) as i128);
    }
    match (x, y) {
        (V::I(a), V::I(b)) => V::I(wrap(
            t,
            match op {
                PBinary::Add => a + b,
                PBinary::Sub => a - b,
                PBinary::Mul => a.wrapping_mul(b),
                PBinary::Div => {
                    assert!(
                        b != 0 && !(t.is_signed_integer() && b == -1),
                        "division by {b}"
                    );
                    a / b
                }
                PBinary::And => a & b,
                PBinary::Or => a | b,
                PBinary::Xor => a ^ b,
                PBinary::Shl => {
                    assert!((0..8 * t.size() as i128).contains(&b));
                    (a as u128).wrapping_shl(b as u32) as i128
                }
                PBinary::Shr => {
                    assert!((0..8 * t.size() as i128).contains(&b));
                    a >> b
                }
                _ => panic!("{op:?} of integers"),
            },
        )),
        (V::F(a), V::F(b)) => V::F(round(
            t,
            match op {
                PBinary::Add => a + b,
                PBinary::Sub => a - b,
                PBinary::Mul => a * b,
                PBinary::Div => a / b,
                PBinary::Pow => a.powf(b),
                // Rust's `%` of floats is C `fmod` (exact); f32 operands give an f32 result.
                PBinary::Fmod => a % b,
                _ => panic!("{op:?} of floats"),
            },
        )),
        _ => panic!("{op:?} of {x:?} and {y:?}"),
    }
}

fn convert(to: DType, x: V) -> V {
    match x {
        V::I(a) if to.is_integer() => V::I(wrap(to, a)),
        V::I(a) if to.is_half() => V::F(round(to, crate::host::half_types::int_to_f64_odd(a))),
        V::I(a) => V::F(round(to, a as f64)),
        V::F(a) if to.is_float() => V::F(round(to, a)),
        V::F(a) => {
            let t = a.trunc();
            assert!(
                !a.is_nan() && t == wrap(to, t as i128) as f64,
                "conversion of {a} to {to}"
            );
            V::I(t as i128)
        }
        V::C(..) => panic!("conversion of a complex value"),
    }
}

/// Evaluates `block`; `leaf` gives the value of every `Arg`, `Input`, `Scalar`, `Index` and
/// `Random` primitive.
pub fn eval(block: &Block, leaf: &dyn Fn(Prim) -> V) -> Vec<V> {
    let mut vals: Vec<V> = Vec::with_capacity(block.instrs.len());
    for ins in &block.instrs {
        let at = |v: u32| vals[v as usize];
        let t = ins.ty;
        let v = match ins.op {
            Prim::Const(bits) if t.is_float() => V::F(const_float(t, bits)),
            Prim::Const(bits) => V::I(const_int(t, bits)),
            Prim::Unary(_, a) if b_ty(block, a).is_half() => {
                panic!(
                    "a unary primitive of {}: halves must be computed in f32",
                    b_ty(block, a)
                )
            }
            Prim::Unary(PUnary::Neg, a) => match at(a) {
                V::I(x) => V::I(wrap(t, -x)),
                other => V::F(-other.f()),
            },
            Prim::Unary(PUnary::Not, a) if t == DType::Bool => V::I((at(a).i() == 0) as i128),
            Prim::Unary(PUnary::Not, a) => V::I(wrap(t, !at(a).i())),
            Prim::Unary(PUnary::IsNan, a) => V::I(at(a).f().is_nan() as i128),
            Prim::Unary(PUnary::Math(f), a) => math(f, b_ty(block, a), at(a).f()),
            Prim::Binary(op, a, c) => binary(op, b_ty(block, a), at(a), at(c)),
            Prim::Select(c, a, e) => {
                if at(c).i() != 0 {
                    at(a)
                } else {
                    at(e)
                }
            }
            Prim::Convert(a) => convert(t, at(a)),
            Prim::Bitcast(a) => match (at(a), t) {
                (V::I(x), DType::F32) => V::F(f32::from_bits(x as u32) as f64),
                (V::I(x), DType::F64) => V::F(f64::from_bits(x as u64)),
                (V::F(x), DType::U32) => V::I((x as f32).to_bits() as i128),
                (V::F(x), _) => V::I(x.to_bits() as i128),
                (V::I(x), _) => V::I(wrap(t, x)),
                other => panic!("bitcast {other:?}"),
            },
            Prim::Re(z) | Prim::Im(z) => match at(z) {
                V::C(re, im) => V::F(if matches!(ins.op, Prim::Re(_)) {
                    re
                } else {
                    im
                }),
                other => panic!("part of {other:?}"),
            },
            Prim::Complex(r, i) => V::C(at(r).f(), at(i).f()),
            Prim::MulWide(a, c) => V::I(at(a).i() * at(c).i()),
            Prim::Hi(p) => V::I(at(p).i() >> 32),
            Prim::Lo(p) => V::I(wrap(DType::U32, at(p).i())),
            leaf_op => leaf(leaf_op),
        };
        vals.push(v);
    }
    block.results.iter().map(|&r| vals[r as usize]).collect()
}

fn b_ty(block: &Block, v: u32) -> DType {
    block.ty(v)
}
