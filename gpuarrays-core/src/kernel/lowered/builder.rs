//! Appending primitives to a [`Block`]: one method per primitive, plus constants by value.
//! Result types follow the operands (comparisons give bool), so a lowering names only the
//! types it changes.

use super::ir::{Block, MathFn, PBinary, PInstr, PUnary, Prim, Value};
use crate::dtype::DType;
use crate::kernel::random::PhiloxOps;

/// A block under construction.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    instrs: Vec<PInstr>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Appends `op` with result type `ty`.
    pub fn push(&mut self, op: Prim, ty: DType) -> Value {
        self.instrs.push(PInstr { op, ty });
        (self.instrs.len() - 1) as Value
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> DType {
        self.instrs[v as usize].ty
    }

    /// The block yielding `results`.
    pub fn finish(self, results: Vec<Value>) -> Block {
        Block {
            instrs: self.instrs,
            results,
        }
    }

    pub fn arg(&mut self, k: u32, ty: DType) -> Value {
        self.push(Prim::Arg(k), ty)
    }

    /// The integer (or bool) constant `v` of type `ty`, wrapped to the type's width.
    pub fn int(&mut self, ty: DType, v: i128) -> Value {
        let bits = match ty {
            DType::Bool => (v != 0) as u64,
            DType::I8 | DType::U8 => v as u8 as u64,
            DType::I16 | DType::U16 => v as u16 as u64,
            DType::I32 | DType::U32 => v as u32 as u64,
            _ => v as u64,
        };
        self.push(Prim::Const(bits), ty)
    }

    /// The float constant `v` of type `ty`, rounded once to the type.
    pub fn float(&mut self, ty: DType, v: f64) -> Value {
        let bits = match ty {
            DType::F32 => (v as f32).to_bits() as u64,
            DType::F16 => crate::host::half_types::f16_from_f64(v).to_bits() as u64,
            DType::BF16 => crate::host::half_types::bf16_from_f64(v).to_bits() as u64,
            _ => v.to_bits(),
        };
        self.push(Prim::Const(bits), ty)
    }

    /// 0 (+0.0 for floats, `false` for bool) of a real type.
    pub fn zero(&mut self, ty: DType) -> Value {
        if ty.is_float() {
            self.float(ty, 0.0)
        } else {
            self.int(ty, 0)
        }
    }

    /// 1 of a real type.
    pub fn one(&mut self, ty: DType) -> Value {
        if ty.is_float() {
            self.float(ty, 1.0)
        } else {
            self.int(ty, 1)
        }
    }

    pub fn unary(&mut self, op: PUnary, a: Value) -> Value {
        let ty = match op {
            PUnary::IsNan => DType::Bool,
            PUnary::Math(MathFn::Cis | MathFn::TurnCis) => complex_of(self.ty(a)),
            _ => self.ty(a),
        };
        self.push(Prim::Unary(op, a), ty)
    }

    pub fn math(&mut self, f: MathFn, a: Value) -> Value {
        self.unary(PUnary::Math(f), a)
    }

    pub fn binary(&mut self, op: PBinary, a: Value, b: Value) -> Value {
        let ty = if op.is_comparison() {
            DType::Bool
        } else {
            self.ty(a)
        };
        self.push(Prim::Binary(op, a, b), ty)
    }

    /// `a OP c` with the constant `c` of `a`'s type.
    pub fn binary_int(&mut self, op: PBinary, a: Value, c: i128) -> Value {
        let ty = match op {
            PBinary::Shl | PBinary::Shr => DType::U32,
            _ => self.ty(a),
        };
        let c = self.int(ty, c);
        self.binary(op, a, c)
    }

    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.push(Prim::Select(c, a, b), ty)
    }

    pub fn convert(&mut self, to: DType, a: Value) -> Value {
        if self.ty(a) == to {
            return a;
        }
        self.push(Prim::Convert(a), to)
    }

    pub fn re(&mut self, z: Value) -> Value {
        let ty = self.ty(z).real();
        self.push(Prim::Re(z), ty)
    }

    pub fn im(&mut self, z: Value) -> Value {
        let ty = self.ty(z).real();
        self.push(Prim::Im(z), ty)
    }

    pub fn complex(&mut self, re: Value, im: Value) -> Value {
        let ty = complex_of(self.ty(re));
        self.push(Prim::Complex(re, im), ty)
    }
}

/// The complex type whose parts are `real`.
pub fn complex_of(real: DType) -> DType {
    if real == DType::F32 {
        DType::C32
    } else {
        DType::C64
    }
}

/// Philox's rounds recorded as primitives (the same code the CPU evaluates on `u32`s).
impl PhiloxOps for Builder {
    type W = Value;
    fn word(&mut self, v: u32) -> Value {
        self.int(DType::U32, v as i128)
    }
    fn add(&mut self, a: Value, b: Value) -> Value {
        self.binary(PBinary::Add, a, b)
    }
    fn xor(&mut self, a: Value, b: Value) -> Value {
        self.binary(PBinary::Xor, a, b)
    }
    fn mul_hi_lo(&mut self, a: Value, b: Value) -> (Value, Value) {
        let p = self.push(Prim::MulWide(a, b), DType::U64);
        let hi = self.push(Prim::Hi(p), DType::U32);
        let lo = self.push(Prim::Lo(p), DType::U32);
        (hi, lo)
    }
}
