//! The instructions of the primitive IR and the semantics a printer must give each one.

use crate::dtype::DType;
use crate::kernel::random::Distribution;

/// An instruction's position in its [`Block`]; operands always name earlier instructions.
pub type Value = u32;

/// One primitive operation. The result type is [`PInstr::ty`]; operand types are those of
/// the operand instructions.
///
/// | primitive | types | semantics |
/// |---|---|---|
/// | `Arg(k)` | any | argument `k` of a block (what it is, the block's maker says) |
/// | `Input(k)`, `Scalar(k)`, `Index` | as in the program | the leaves of a lowered [`Program`](crate::kernel::Program) |
/// | `Random(dist, seed)` | f32, f64 | this element of a random leaf: a printer computes it with [`super::random`]'s blocks (it may share a Philox call between elements) |
/// | `Const(bits)` | bool, ints, floats | a literal: integers as two's-complement bits (zero-extended), floats as their IEEE bits, bool 0 or 1 |
/// | `Unary(Neg)` | ints, floats | integers wrap (`0 − x`); floats flip the sign |
/// | `Unary(Not)` | bool, ints | logical / bitwise not |
/// | `Unary(IsNan)` | floats → bool | true exactly for NaN (by bits: never folded away) |
/// | `Unary(Math(f))` | floats (see [`MathFn`]) | the C library's function |
/// | `Binary(Add, Sub, Mul)` | ints, floats | integers wrap modulo 2^bits (u8: 2⁸); floats IEEE, rounded once, never contracted |
/// | `Binary(Div)` | ints, floats | floats IEEE; integers truncate, **only** with a divisor that is neither 0 nor (signed) −1 |
/// | `Binary(Eq, Ne, Lt, Le, Gt, Ge)` | any → bool | IEEE: NaN is unordered (only `Ne` is true); bool: `false < true` |
/// | `Binary(And, Or, Xor)` | bool, ints | logical / bitwise |
/// | `Binary(Shl, Shr)` | ints (amount: u32 below the width) | `Shl` keeps the low bits (wraps); `Shr` is logical for unsigned types, arithmetic for signed ones |
/// | `Binary(Fmod)` | floats | C `fmod`: the exact remainder of truncating division, the sign of the dividend; NaN for an infinite dividend, a zero divisor or a NaN |
/// | `Binary(Pow)` | floats | C `pow` |
/// | `Select(c, a, b)` | `c` bool | `c ? a : b`, both arms already evaluated |
/// | `Convert(a)` | numeric → numeric real | int → int wraps (sign- or zero-extends by the source); to a float rounds to nearest **once**, from the exact source value (an i64 or f64 converted to f16 or bf16 must not round through f32 to nearest); float → int truncates, **only** for values whose truncation is in range |
/// | `Bitcast(a)` | same size | reinterprets the bits |
/// | `Re(z)`, `Im(z)` | complex → real | the parts |
/// | `Complex(re, im)` | reals → complex | the complex value |
/// | `MulWide(a, b)` | u32 × u32 → u64 | the full product; read only by `Hi`/`Lo`, so a target without 64-bit integers may hold it as two words |
/// | `Hi(p)`, `Lo(p)` | u64 → u32 | the high / low word of a `MulWide` |
///
/// **f16 and bf16** are storage types here: the lowering computes every operation on them in
/// f32 and rounds the result once (the CPU reference's rule), so their values appear only in
/// `Arg`, `Input`, `Scalar`, `Random`, `Const`, `Select` and `Convert` (a printer needs the
/// conversions, not half arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prim {
    Arg(u32),
    Input(u32),
    Scalar(u32),
    Index,
    Random(Distribution, u32),
    Const(u64),
    Unary(PUnary, Value),
    Binary(PBinary, Value, Value),
    Select(Value, Value, Value),
    Convert(Value),
    Bitcast(Value),
    Re(Value),
    Im(Value),
    Complex(Value, Value),
    MulWide(Value, Value),
    Hi(Value),
    Lo(Value),
}

/// Unary primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PUnary {
    Neg,
    Not,
    IsNan,
    Math(MathFn),
}

/// Library functions of a float (the printers' own implementations or the target's).
///
/// `UnitLn` and `TurnCis` promise a restricted argument, so that a printer may use a
/// shorter reduction (the general function is always a correct way to print them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathFn {
    Abs,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    /// Rounding down to an integer (exact).
    Floor,
    /// Rounding to the nearest integer, halves to even (exact; C `rint` in the default mode).
    Rint,
    /// `ln x` for a normal `x` in (0, 1].
    UnitLn,
    /// `cos θ + i·sin θ` (a complex result: one reduction for both).
    Cis,
    /// [`MathFn::Cis`] for `θ` in [0, 2π).
    TurnCis,
}

/// Binary primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PBinary {
    Add,
    Sub,
    Mul,
    Div,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Pow,
    Fmod,
}

impl PBinary {
    /// Comparisons produce bool.
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            PBinary::Eq | PBinary::Ne | PBinary::Lt | PBinary::Le | PBinary::Gt | PBinary::Ge
        )
    }
}

/// A primitive and the type of its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PInstr {
    pub op: Prim,
    pub ty: DType,
}

/// Straight-line primitives in evaluation order, and the values it yields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Block {
    pub instrs: Vec<PInstr>,
    pub results: Vec<Value>,
}

impl Block {
    /// The type of value `v`.
    #[inline]
    pub fn ty(&self, v: Value) -> DType {
        self.instrs[v as usize].ty
    }

    /// How many instructions read each value (a printer inlines values read once).
    pub fn uses(&self) -> Vec<u32> {
        let mut n = vec![0u32; self.instrs.len()];
        for i in &self.instrs {
            for v in i.op.operands() {
                n[v as usize] += 1;
            }
        }
        for &r in &self.results {
            n[r as usize] += 1;
        }
        n
    }
}

impl Prim {
    /// The values this primitive reads, in order.
    pub fn operands(self) -> impl Iterator<Item = Value> {
        let (n, v): (usize, [Value; 3]) = match self {
            Prim::Arg(_)
            | Prim::Input(_)
            | Prim::Scalar(_)
            | Prim::Index
            | Prim::Random(..)
            | Prim::Const(_) => (0, [0; 3]),
            Prim::Unary(_, a)
            | Prim::Convert(a)
            | Prim::Bitcast(a)
            | Prim::Re(a)
            | Prim::Im(a)
            | Prim::Hi(a)
            | Prim::Lo(a) => (1, [a, 0, 0]),
            Prim::Binary(_, a, b) | Prim::Complex(a, b) | Prim::MulWide(a, b) => (2, [a, b, 0]),
            Prim::Select(c, a, b) => (3, [c, a, b]),
        };
        v.into_iter().take(n)
    }
}

/// The literal value of a `Const` of integer type `ty`, sign-extended for signed types.
pub fn const_int(ty: DType, bits: u64) -> i128 {
    match ty {
        DType::I8 => bits as u8 as i8 as i128,
        DType::I16 => bits as u16 as i16 as i128,
        DType::I32 => bits as u32 as i32 as i128,
        DType::I64 => bits as i64 as i128,
        _ => bits as i128,
    }
}

/// The literal value of a `Const` of float type `ty` (f32, f16 and bf16 widened exactly).
pub fn const_float(ty: DType, bits: u64) -> f64 {
    match ty {
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        _ => f64::from_bits(bits),
    }
}
