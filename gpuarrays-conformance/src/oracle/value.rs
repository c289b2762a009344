//! The oracle's arithmetic on single values: every value is widened exactly (integers and
//! bool to i128, reals to f64, complex to `Complex<f64>`), computed there, and narrowed with
//! Rust's `as` (integers wrap modulo 2^bits, reals round to nearest, floats to integers
//! truncate and saturate, NaN to 0). No code is shared with the backends.

use gpuarrays_core::{Complex32, Complex64, DType, Scalar};

use super::half_format::{bf16_value, f16_value, round_half, to_bf16, to_f16};

/// A value widened exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wide {
    Bool(bool),
    Int(i128),
    Real(f64),
    Complex(Complex64),
}

pub fn widen(s: Scalar) -> Wide {
    match s {
        Scalar::Bool(v) => Wide::Bool(v),
        Scalar::I8(v) => Wide::Int(v as i128),
        Scalar::U8(v) => Wide::Int(v as i128),
        Scalar::I16(v) => Wide::Int(v as i128),
        Scalar::U16(v) => Wide::Int(v as i128),
        Scalar::F16(v) => Wide::Real(f16_value(v)),
        Scalar::BF16(v) => Wide::Real(bf16_value(v)),
        Scalar::I32(v) => Wide::Int(v as i128),
        Scalar::U32(v) => Wide::Int(v as i128),
        Scalar::I64(v) => Wide::Int(v as i128),
        Scalar::U64(v) => Wide::Int(v as i128),
        Scalar::F32(v) => Wide::Real(v as f64),
        Scalar::F64(v) => Wide::Real(v),
        Scalar::C32(v) => Wide::Complex(Complex64::new(v.re as f64, v.im as f64)),
        Scalar::C64(v) => Wide::Complex(v),
    }
}

/// An integer taken modulo 2^bits of `to` (or converted, for non-integer targets).
pub fn from_int(x: i128, to: DType) -> Scalar {
    match to {
        DType::Bool => Scalar::Bool(x != 0),
        DType::I8 => Scalar::I8(x as i8),
        DType::U8 => Scalar::U8(x as u8),
        DType::I16 => Scalar::I16(x as i16),
        DType::U16 => Scalar::U16(x as u16),
        DType::F16 => Scalar::F16(to_f16(int_to_half(x, false))),
        DType::BF16 => Scalar::BF16(to_bf16(int_to_half(x, true))),
        DType::I32 => Scalar::I32(x as i32),
        DType::U32 => Scalar::U32(x as u32),
        DType::I64 => Scalar::I64(x as i64),
        DType::U64 => Scalar::U64(x as u64),
        DType::F32 => Scalar::F32(x as f32),
        DType::F64 => Scalar::F64(x as f64),
        DType::C32 => Scalar::C32(Complex32::new(x as f32, 0.0)),
        DType::C64 => Scalar::C64(Complex64::new(x as f64, 0.0)),
    }
}

/// An integer rounded once to f16 (`bf` false) or bf16, as an f64: beyond 2^53, where the
/// integer is no f64, its top bits are rounded in integer arithmetic first (to the format's
/// precision, so the second rounding only checks the range).
fn int_to_half(x: i128, bf: bool) -> f64 {
    let m = x.unsigned_abs();
    let bits = 128 - m.leading_zeros() as i32;
    if bits <= 53 {
        return round_half(bf, x as f64);
    }
    let shift = bits - if bf { 8 } else { 11 };
    let (q, rem, tie) = (m >> shift, m & ((1 << shift) - 1), 1u128 << (shift - 1));
    let q = if rem > tie || (rem == tie && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    let v = q as f64 * 2f64.powi(shift);
    round_half(bf, if x < 0 { -v } else { v })
}

/// A real converted to `to` with `as` (to f16 and bf16: rounded once to nearest).
pub fn from_real(x: f64, to: DType) -> Scalar {
    match to {
        DType::Bool => Scalar::Bool(x != 0.0),
        DType::I8 => Scalar::I8(x as i8),
        DType::U8 => Scalar::U8(x as u8),
        DType::I16 => Scalar::I16(x as i16),
        DType::U16 => Scalar::U16(x as u16),
        DType::F16 => Scalar::F16(to_f16(x)),
        DType::BF16 => Scalar::BF16(to_bf16(x)),
        DType::I32 => Scalar::I32(x as i32),
        DType::U32 => Scalar::U32(x as u32),
        DType::I64 => Scalar::I64(x as i64),
        DType::U64 => Scalar::U64(x as u64),
        DType::F32 => Scalar::F32(x as f32),
        DType::F64 => Scalar::F64(x),
        DType::C32 => Scalar::C32(Complex32::new(x as f32, 0.0)),
        DType::C64 => Scalar::C64(Complex64::new(x, 0.0)),
    }
}

/// A complex value converted to `to`: both parts for complex targets, `re != 0 || im != 0`
/// for bool, the real part otherwise.
pub fn from_complex(z: Complex64, to: DType) -> Scalar {
    match to {
        DType::Bool => Scalar::Bool(z.re != 0.0 || z.im != 0.0),
        DType::C32 => Scalar::C32(Complex32::new(z.re as f32, z.im as f32)),
        DType::C64 => Scalar::C64(z),
        other => from_real(z.re, other),
    }
}

/// The cast rules of gpuarrays, restated: numeric casts are Rust's `as`; bool is 0/1 one
/// way and `!= 0` the other.
pub fn cast(s: Scalar, to: DType) -> Scalar {
    narrow(widen(s), to)
}

/// Narrows a wide value to `to` with the cast rules.
pub fn narrow(w: Wide, to: DType) -> Scalar {
    match w {
        Wide::Bool(b) => from_int(b as i128, to),
        Wide::Int(x) => from_int(x, to),
        Wide::Real(x) => from_real(x, to),
        Wide::Complex(z) => from_complex(z, to),
    }
}

/// Whether a value is "true" (non-zero; NaN is non-zero).
pub fn truthy(s: Scalar) -> bool {
    match widen(s) {
        Wide::Bool(b) => b,
        Wide::Int(x) => x != 0,
        Wide::Real(x) => x != 0.0,
        Wide::Complex(z) => z.re != 0.0 || z.im != 0.0,
    }
}

/// The value as f64 for ordering (bool 0/1, integers may round: only used on reals).
pub fn real(s: Scalar) -> f64 {
    match widen(s) {
        Wide::Bool(b) => b as u8 as f64,
        Wide::Int(x) => x as f64,
        Wide::Real(x) => x,
        Wide::Complex(z) => z.re,
    }
}

/// Neumaier's compensated sum: an f64 sum whose error does not grow with the length.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompensatedSum {
    sum: f64,
    carry: f64,
}

impl CompensatedSum {
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.carry += (self.sum - t) + x;
        } else {
            self.carry += (x - t) + self.sum;
        }
        self.sum = t;
    }

    pub fn value(&self) -> f64 {
        let v = self.sum + self.carry;
        // Infinities and NaN make the carry NaN; the plain sum is then the answer.
        if v.is_nan() { self.sum } else { v }
    }
}

/// A wide accumulator for sums of any numeric type.
#[derive(Debug, Clone, Copy)]
pub enum Accumulator {
    Int(i128),
    Real(CompensatedSum),
    Complex(CompensatedSum, CompensatedSum),
}

impl Accumulator {
    pub fn new(dtype: DType) -> Self {
        if dtype.is_complex() {
            Accumulator::Complex(CompensatedSum::default(), CompensatedSum::default())
        } else if dtype.is_float() {
            Accumulator::Real(CompensatedSum::default())
        } else {
            Accumulator::Int(0)
        }
    }

    pub fn add(&mut self, s: Scalar) {
        match (self, widen(s)) {
            (Accumulator::Int(acc), Wide::Int(x)) => *acc = acc.wrapping_add(x),
            (Accumulator::Real(acc), Wide::Real(x)) => acc.add(x),
            (Accumulator::Complex(re, im), Wide::Complex(z)) => {
                re.add(z.re);
                im.add(z.im);
            }
            _ => {}
        }
    }

    /// The sum narrowed to `dtype` (integers wrap, reals round once).
    pub fn value(&self, dtype: DType) -> Scalar {
        match self {
            Accumulator::Int(x) => from_int(*x, dtype),
            Accumulator::Real(s) => from_real(s.value(), dtype),
            Accumulator::Complex(re, im) => {
                from_complex(Complex64::new(re.value(), im.value()), dtype)
            }
        }
    }
}

/// A product accumulator: i128 modulo 2^128 for integers (whose residue modulo 2^bits is
/// the wrapped product); for floats and complex numbers, the product both in f64 (its value)
/// and rounded in the element type operation by operation (where it overflows, and which
/// parts are NaN or infinite). A product starts from its first factor, never from the
/// identity: for complex values `(1 + 0i)·z` is not `z` when a part of `z` is infinite
/// (`0·∞` is NaN), and the documented product of one element is that element. The identity
/// is only the value of an empty product. Half products (reductions and cumulative ones)
/// accumulate in f32 by the documented rule, so their operation-by-operation product is
/// rounded to f32, and only the result to the half type.
#[derive(Debug, Clone, Copy)]
pub struct Product {
    /// The type each operation of the typed product rounds to.
    dtype: DType,
    acc: Option<(Wide, Wide)>,
}

impl Product {
    pub fn new(dtype: DType) -> Self {
        let dtype = if dtype.is_half() { DType::F32 } else { dtype };
        Product { dtype, acc: None }
    }

    pub fn mul(&mut self, s: Scalar) {
        let x = widen(s);
        let t = self.dtype;
        self.acc = Some(match self.acc {
            None => (x, x),
            Some((wide, typed)) => match (wide, typed, x) {
                (Wide::Int(a), _, Wide::Int(b)) => {
                    let p = Wide::Int(a.wrapping_mul(b));
                    (p, p)
                }
                (Wide::Real(a), Wide::Real(n), Wide::Real(b)) => {
                    (Wide::Real(a * b), Wide::Real(round_to(t, n * b)))
                }
                (Wide::Complex(a), Wide::Complex(n), Wide::Complex(b)) => (
                    Wide::Complex(complex_mul(a, b, DType::C64)),
                    Wide::Complex(complex_mul(n, b, t)),
                ),
                _ => (wide, typed),
            },
        });
    }

    /// The product narrowed to `dtype`: the element type's product where that is not finite,
    /// otherwise the (more accurate) wide one; 1 for an empty product.
    pub fn value(&self, dtype: DType) -> Scalar {
        match self.acc {
            None => from_int(1, dtype),
            Some((wide, typed)) => {
                let special = match typed {
                    Wide::Real(x) => !x.is_finite(),
                    Wide::Complex(z) => !z.re.is_finite() || !z.im.is_finite(),
                    _ => false,
                };
                narrow(if special { typed } else { wide }, dtype)
            }
        }
    }
}

/// `x` rounded to the real type of `t` (f32 for f32 and c32, f16 and bf16 for themselves;
/// f64 unchanged).
pub fn round_to(t: DType, x: f64) -> f64 {
    match t.real() {
        DType::F32 => x as f32 as f64,
        DType::F16 => round_half(false, x),
        DType::BF16 => round_half(true, x),
        _ => x,
    }
}

/// `(a + bi)(c + di) = (ac - bd) + (ad + bc)i`, every operation rounded in the real type of
/// `t` (so c32 products overflow, and cancel infinities, where f32 arithmetic does; f64
/// arithmetic rounded to f32 after each operation is f32 arithmetic).
pub fn complex_mul(x: Complex64, y: Complex64, t: DType) -> Complex64 {
    let r = |v: f64| round_to(t, v);
    Complex64::new(
        r(r(x.re * y.re) - r(x.im * y.im)),
        r(r(x.re * y.im) + r(x.im * y.re)),
    )
}

/// `(a + bi)/(c + di) = (ac + bd)/(c² + d²) + i(bc - ad)/(c² + d²)` (the documented formula),
/// every operation rounded in the real type of `t`.
pub fn complex_div(x: Complex64, y: Complex64, t: DType) -> Complex64 {
    let r = |v: f64| round_to(t, v);
    let den = r(r(y.re * y.re) + r(y.im * y.im));
    Complex64::new(
        r(r(r(x.re * y.re) + r(x.im * y.im)) / den),
        r(r(r(x.im * y.re) - r(x.re * y.im)) / den),
    )
}
