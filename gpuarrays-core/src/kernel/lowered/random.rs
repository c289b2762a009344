//! The random-number recipe of [`crate::kernel::random`] as primitives: the Philox block
//! function (recorded from [`philox_rounds`], the same code the CPU runs), the four draws,
//! and one element of a random leaf from its index.
//!
//! A printer either computes each element on its own ([`element`]: the element's draw,
//! Philox call and word selection inline), or, to share one Philox call between the elements
//! of a vector, calls [`philox`] once and [`draw`] once per draw, selecting the draw's words
//! as [`element`] does (word `k` of draw `d` is word `(w·d + k) mod 4` of call
//! `⌊(w·d + k) / 4⌋`, never crossing a call because `w` divides 4).

use smallvec::SmallVec;

use super::builder::Builder;
use super::ir::{Block, MathFn, PBinary, Value};
use crate::dtype::DType;
use crate::kernel::random::{Distribution, elements_per_draw, philox_rounds, words_per_draw};

const TWO_POW_M24: f64 = 1.0 / 16_777_216.0;
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Philox call `(c0, c1)` for key `(k0, k1)`: arguments 0–3 those u32 words (counter words 2
/// and 3 are zero), results the four output words.
pub fn philox() -> Block {
    let mut b = Builder::new();
    let a: Vec<Value> = (0..4).map(|k| b.arg(k, DType::U32)).collect();
    let r = philox_into(&mut b, [a[0], a[1]], [a[2], a[3]]);
    b.finish(r.to_vec())
}

fn philox_into(b: &mut Builder, counter: [Value; 2], key: [Value; 2]) -> [Value; 4] {
    let zero = b.int(DType::U32, 0);
    philox_rounds(b, [counter[0], counter[1], zero, zero], key)
}

/// One draw of `dist` in `dtype` (f32 or f64): arguments 0–3 the draw's words (u32; the ones
/// past [`words_per_draw`] unused), results its [`elements_per_draw`] elements.
pub fn draw(dist: Distribution, dtype: DType) -> Block {
    let mut b = Builder::new();
    let r: Vec<Value> = (0..4).map(|k| b.arg(k, DType::U32)).collect();
    let z = draw_into(&mut b, dist, dtype, [r[0], r[1], r[2], r[3]]);
    b.finish(z.to_vec())
}

/// `(a >> 5) · 2²⁶ + (b >> 6)` scaled by 2⁻⁵³: 53 random bits in [0, 1).
fn unit_f64(b: &mut Builder, x: Value, y: Value) -> Value {
    let (hi, lo) = (
        b.binary_int(PBinary::Shr, x, 5),
        b.binary_int(PBinary::Shr, y, 6),
    );
    let (hi, lo) = (b.convert(DType::F64, hi), b.convert(DType::F64, lo));
    let scale = b.float(DType::F64, 67_108_864.0);
    let hi = b.binary(PBinary::Mul, hi, scale);
    let sum = b.binary(PBinary::Add, hi, lo);
    let m53 = b.float(DType::F64, TWO_POW_M53);
    b.binary(PBinary::Mul, sum, m53)
}

/// `(r >> 8) + plus` as an f32 multiple of 2⁻²⁴.
fn unit_f32(b: &mut Builder, r: Value, plus: i128) -> Value {
    let mut top = b.binary_int(PBinary::Shr, r, 8);
    if plus != 0 {
        top = b.binary_int(PBinary::Add, top, plus);
    }
    let f = b.convert(DType::F32, top);
    let m24 = b.float(DType::F32, TWO_POW_M24);
    b.binary(PBinary::Mul, f, m24)
}

fn draw_into(b: &mut Builder, dist: Distribution, t: DType, r: [Value; 4]) -> SmallVec<[Value; 2]> {
    if t.is_half() {
        return half_draw_into(b, dist, t, r);
    }
    let mut z = SmallVec::new();
    let (u1, u2) = match (dist, t) {
        (Distribution::Uniform, DType::F64) => {
            z.push(unit_f64(b, r[0], r[1]));
            return z;
        }
        (Distribution::Uniform, _) => {
            z.push(unit_f32(b, r[0], 0));
            return z;
        }
        (Distribution::Normal, DType::F64) => {
            let u = unit_f64(b, r[0], r[1]);
            let m53 = b.float(DType::F64, TWO_POW_M53);
            (b.binary(PBinary::Add, u, m53), unit_f64(b, r[2], r[3]))
        }
        (Distribution::Normal, _) => (unit_f32(b, r[0], 1), unit_f32(b, r[1], 0)),
    };
    // Box–Muller: ρ = sqrt(−2 ln u1), θ = 2π·u2 (one rounded product), (ρ cos θ, ρ sin θ).
    let ln = b.math(MathFn::UnitLn, u1);
    let m2 = b.float(t, -2.0);
    let l = b.binary(PBinary::Mul, m2, ln);
    let rho = b.math(MathFn::Sqrt, l);
    let tau = b.float(t, std::f64::consts::TAU);
    let theta = b.binary(PBinary::Mul, tau, u2);
    let cis = b.math(MathFn::TurnCis, theta);
    let (c, s) = (b.re(cis), b.im(cis));
    z.push(b.binary(PBinary::Mul, rho, c));
    z.push(b.binary(PBinary::Mul, rho, s));
    z
}

/// A draw of f16 or bf16: a uniform takes the word's top 11 (f16) or 8 (bf16) bits as a
/// multiple of 2^-bits (exact in the type); a normal is the f32 pair, each rounded once.
fn half_draw_into(
    b: &mut Builder,
    dist: Distribution,
    t: DType,
    r: [Value; 4],
) -> SmallVec<[Value; 2]> {
    let z: SmallVec<[Value; 2]> = match dist {
        Distribution::Uniform => {
            let bits: i128 = if t == DType::F16 { 11 } else { 8 };
            let top = b.binary_int(PBinary::Shr, r[0], 32 - bits);
            let f = b.convert(DType::F32, top);
            let scale = b.float(DType::F32, 1.0 / (1u32 << bits) as f64);
            smallvec::smallvec![b.binary(PBinary::Mul, f, scale)]
        }
        Distribution::Normal => draw_into(b, dist, DType::F32, r),
    };
    z.into_iter().map(|v| b.convert(t, v)).collect()
}

/// Element `index` of a random leaf of `dist` in `dtype` for `seed`: arguments 0–3 the low
/// and high words of the element's linear index and of the seed (u32), result the element.
pub fn element(dist: Distribution, dtype: DType) -> Block {
    let mut b = Builder::new();
    let a: Vec<Value> = (0..4).map(|k| b.arg(k, DType::U32)).collect();
    let z = element_into(&mut b, dist, dtype, [a[0], a[1]], [a[2], a[3]]);
    b.finish(vec![z])
}

/// The 64-bit value `(lo, hi)` shifted right by `s` (0 < s < 32), as words.
fn shr64(b: &mut Builder, (lo, hi): (Value, Value), s: i128) -> (Value, Value) {
    let l = b.binary_int(PBinary::Shr, lo, s);
    let carry = b.binary_int(PBinary::Shl, hi, 32 - s);
    (
        b.binary(PBinary::Or, l, carry),
        b.binary_int(PBinary::Shr, hi, s),
    )
}

/// `(lo, hi)` shifted left by `s` (0 < s < 32), as words.
fn shl64(b: &mut Builder, (lo, hi): (Value, Value), s: i128) -> (Value, Value) {
    let h = b.binary_int(PBinary::Shl, hi, s);
    let carry = b.binary_int(PBinary::Shr, lo, 32 - s);
    (
        b.binary_int(PBinary::Shl, lo, s),
        b.binary(PBinary::Or, h, carry),
    )
}

/// Word `o` (a u32 in 0..4) of `r`.
fn pick(b: &mut Builder, r: [Value; 4], o: Value) -> Value {
    let (o1, o2) = (
        b.binary_int(PBinary::Eq, o, 1),
        b.binary_int(PBinary::Eq, o, 2),
    );
    let o0 = b.binary_int(PBinary::Eq, o, 0);
    let x = b.select(o2, r[2], r[3]);
    let x = b.select(o1, r[1], x);
    b.select(o0, r[0], x)
}

fn element_into(
    b: &mut Builder,
    dist: Distribution,
    t: DType,
    index: [Value; 2],
    seed: [Value; 2],
) -> Value {
    let (w, e) = (words_per_draw(dist, t), elements_per_draw(dist));
    // Draw d = index / e, its first stream word w·d, that word's call and place in the call.
    let mut draw = (index[0], index[1]);
    if e == 2 {
        draw = shr64(b, draw, 1);
    }
    let first = if w > 1 {
        shl64(b, draw, w.trailing_zeros() as i128)
    } else {
        draw
    };
    let call = shr64(b, first, 2);
    let q = philox_into(b, [call.0, call.1], seed);
    let words = match w {
        4 => q,
        2 => {
            // The draw starts at word 0 or 2 of its call.
            let low_half = b.binary_int(PBinary::And, first.0, 2);
            let low_half = b.binary_int(PBinary::Eq, low_half, 0);
            let (r0, r1) = (
                b.select(low_half, q[0], q[2]),
                b.select(low_half, q[1], q[3]),
            );
            [r0, r1, r0, r1]
        }
        _ => {
            let o = b.binary_int(PBinary::And, first.0, 3);
            let r0 = pick(b, q, o);
            [r0, r0, r0, r0]
        }
    };
    let z = draw_into(b, dist, t, words);
    if e == 1 {
        return z[0];
    }
    let odd = b.binary_int(PBinary::And, index[0], 1);
    let odd = b.binary_int(PBinary::Ne, odd, 0);
    b.select(odd, z[1], z[0])
}
