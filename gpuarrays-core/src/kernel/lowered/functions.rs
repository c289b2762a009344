//! The library functions of [`UnaryOp`] beyond the C basics, composed once from
//! primitives: `log1p`/`expm1` (Goldberg's and Kahan's corrections, exact for tiny
//! arguments), `tan` from one sine–cosine pair, `atan` (Cephes' rational approximation),
//! `atan2`/`asin`/`acos` from it, `sinh`/`cosh` without premature overflow, `sigmoid`,
//! rounding, `sign`, classification and the parts of complex numbers. The binary ones
//! (`remainder`, shifts, ...) are in `binary_functions`.
//!
//! Every target prints these from the same primitives, so no backend depends on a driver's
//! `atan` or `log1p` (WGSL's are graphics-grade). The accuracy of each composition, measured
//! against the C library with [`super::eval`], is in the lowering tests.

use super::builder::Builder;
use super::ir::{MathFn, PBinary, PUnary, Prim, Value};
use crate::dtype::DType;
use crate::kernel::operators::UnaryOp;

/// Cephes `atan`: `x + x³·P(x²)/Q(x²)` on [0, 0.66] (peak relative error 2.6e-18).
const ATAN_P: [f64; 5] = [
    -8.750_608_600_031_904e-1,
    -1.615_753_718_733_365e1,
    -7.500_855_792_314_705e1,
    -1.228_866_684_490_136_2e2,
    -6.485_021_904_942_025e1,
];
const ATAN_Q: [f64; 5] = [
    2.485_846_490_142_306_4e1,
    1.650_270_098_316_988_6e2,
    4.328_810_604_912_903e2,
    4.853_903_996_359_137e2,
    1.945_506_571_482_614e2,
];
/// tan(3π/8) and the part of π/2 below its f64 rounding.
const T3P8: f64 = 2.414_213_562_373_095;
const MOREBITS: f64 = 6.123_233_995_736_766e-17;

/// The largest finite value of `t`.
fn max_finite(b: &mut Builder, t: DType) -> Value {
    let m = if t == DType::F32 {
        f32::MAX as f64
    } else {
        f64::MAX
    };
    b.float(t, m)
}

pub(super) fn neg(b: &mut Builder, x: Value) -> Value {
    b.unary(PUnary::Neg, x)
}

pub(super) fn mul(b: &mut Builder, x: Value, y: Value) -> Value {
    b.binary(PBinary::Mul, x, y)
}

pub(super) fn add(b: &mut Builder, x: Value, y: Value) -> Value {
    b.binary(PBinary::Add, x, y)
}

fn div(b: &mut Builder, x: Value, y: Value) -> Value {
    b.binary(PBinary::Div, x, y)
}

/// Whether the sign bit of the float `x` is set (`-0.0` included), read from its bits.
fn sign_bit(b: &mut Builder, x: Value) -> Value {
    let (word, top) = if b.ty(x) == DType::F32 {
        (DType::U32, 31)
    } else {
        (DType::U64, 63)
    };
    let bits = b.push(Prim::Bitcast(x), word);
    let s = b.binary_int(PBinary::Shr, bits, top);
    let zero = b.zero(word);
    b.binary(PBinary::Ne, s, zero)
}

/// `|x| > MAX`: ±∞ (false for NaN).
fn is_inf(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let a = b.math(MathFn::Abs, x);
    let max = max_finite(b, t);
    b.binary(PBinary::Gt, a, max)
}

/// `|x| <= MAX`: neither infinite nor NaN.
fn is_finite(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let a = b.math(MathFn::Abs, x);
    let max = max_finite(b, t);
    b.binary(PBinary::Le, a, max)
}

/// `log1p(x) = log(u)·(x / (u − 1))` with `u = 1 + x` (Goldberg): exact where `u == 1`.
fn log1p(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let one = b.one(t);
    let u = add(b, one, x);
    let um1 = b.binary(PBinary::Sub, u, one);
    let l = b.math(MathFn::Log, u);
    let q = div(b, x, um1);
    let r = mul(b, l, q);
    // +∞ (−∞ gives NaN through the log).
    let max = max_finite(b, t);
    let inf = b.binary(PBinary::Gt, u, max);
    let r = b.select(inf, u, r);
    let exact = b.binary(PBinary::Eq, u, one);
    b.select(exact, x, r)
}

/// `expm1(x) = (u − 1)·(x / log u)` with `u = exp(x)` (Kahan): exact where `u == 1`, −1
/// where `u − 1` is, +∞ where `u` overflows.
fn expm1(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let u = b.math(MathFn::Exp, x);
    let one = b.one(t);
    let um1 = b.binary(PBinary::Sub, u, one);
    let l = b.math(MathFn::Log, u);
    let q = div(b, x, l);
    let r = mul(b, um1, q);
    let inf = is_inf(b, u);
    let r = b.select(inf, u, r);
    let m1 = b.float(t, -1.0);
    let low = b.binary(PBinary::Eq, um1, m1);
    let r = b.select(low, m1, r);
    let exact = b.binary(PBinary::Eq, u, one);
    b.select(exact, x, r)
}

/// `f(|x|)` given the sign back (`-f` for negative `x`); a zero `x` is its own result.
fn odd(b: &mut Builder, x: Value, r: Value) -> Value {
    let t = b.ty(x);
    let zero = b.zero(t);
    let negative = b.binary(PBinary::Lt, x, zero);
    let n = neg(b, r);
    let r = b.select(negative, n, r);
    let is_zero = b.binary(PBinary::Eq, x, zero);
    b.select(is_zero, x, r)
}

/// `e^a / 2` for `a` beyond where `e^a` overflows: `(e^(a/2) / 2) · e^(a/2)`.
fn half_exp_big(b: &mut Builder, a: Value) -> Value {
    let t = b.ty(a);
    let half = b.float(t, 0.5);
    let ah = mul(b, half, a);
    let w = b.math(MathFn::Exp, ah);
    let hw = mul(b, half, w);
    mul(b, hw, w)
}

/// Above this, `exp` is computed by halves (`exp(a)` itself is finite up to here).
fn exp_limit(t: DType) -> f64 {
    if t == DType::F32 { 88.0 } else { 709.0 }
}

/// `sinh`: with `t = expm1(|x|)`, `(2t − t²/(t+1))/2` below 1, `(t + t/(t+1))/2` above
/// (glibc's formulas), by halves beyond `exp`'s overflow.
fn sinh(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let a = b.math(MathFn::Abs, x);
    let e = expm1(b, a);
    let one = b.one(t);
    let half = b.float(t, 0.5);
    let e1 = add(b, e, one);
    let ee = mul(b, e, e);
    let sq = div(b, ee, e1);
    let two_e = add(b, e, e);
    let small = b.binary(PBinary::Sub, two_e, sq);
    let small = mul(b, half, small);
    let fr = div(b, e, e1);
    let mid = add(b, e, fr);
    let mid = mul(b, half, mid);
    let below_one = b.binary(PBinary::Lt, a, one);
    let r = b.select(below_one, small, mid);
    let limit = b.float(t, exp_limit(t));
    let big = b.binary(PBinary::Gt, a, limit);
    let hb = half_exp_big(b, a);
    let r = b.select(big, hb, r);
    odd(b, x, r)
}

/// `cosh`: `e/2 + (1/2)/e` with `e = exp(|x|)`, by halves beyond `exp`'s overflow.
fn cosh(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let a = b.math(MathFn::Abs, x);
    let e = b.math(MathFn::Exp, a);
    let half = b.float(t, 0.5);
    let he = mul(b, half, e);
    let inv = div(b, half, e);
    let r = add(b, he, inv);
    let limit = b.float(t, exp_limit(t));
    let big = b.binary(PBinary::Gt, a, limit);
    let hb = half_exp_big(b, a);
    b.select(big, hb, r)
}

/// `1/(1+e)` for `x ≥ 0`, `e/(1+e)` for `x < 0`, with `e = exp(−|x|)` (never overflows).
fn sigmoid(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let a = b.math(MathFn::Abs, x);
    let na = neg(b, a);
    let e = b.math(MathFn::Exp, na);
    let one = b.one(t);
    let d = add(b, one, e);
    let pos = div(b, one, d);
    let negv = div(b, e, d);
    let zero = b.zero(t);
    let negative = b.binary(PBinary::Lt, x, zero);
    b.select(negative, negv, pos)
}

/// `sin x / cos x` from one sine–cosine pair.
fn tan(b: &mut Builder, x: Value) -> Value {
    let c = b.math(MathFn::Cis, x);
    let (co, si) = (b.re(c), b.im(c));
    div(b, si, co)
}

/// `atan(a)` for `a ≥ 0` (+∞ and NaN included), Cephes' reduction to [0, 0.66].
fn atan_nonneg(b: &mut Builder, a: Value) -> Value {
    let t = b.ty(a);
    let one = b.one(t);
    let zero = b.zero(t);
    let (t3p8, cut) = (b.float(t, T3P8), b.float(t, 0.66));
    let big = b.binary(PBinary::Gt, a, t3p8);
    let mid = b.binary(PBinary::Gt, a, cut);
    let m1 = b.float(t, -1.0);
    let xb = div(b, m1, a);
    let (am1, ap1) = (b.binary(PBinary::Sub, a, one), add(b, a, one));
    let xm = div(b, am1, ap1);
    let xr = b.select(mid, xm, a);
    let xr = b.select(big, xb, xr);
    let (pio2, pio4) = (
        b.float(t, std::f64::consts::FRAC_PI_2),
        b.float(t, std::f64::consts::FRAC_PI_4),
    );
    let y0 = b.select(mid, pio4, zero);
    let y0 = b.select(big, pio2, y0);
    let (mb, mb2) = (b.float(t, MOREBITS), b.float(t, 0.5 * MOREBITS));
    let more = b.select(mid, mb2, zero);
    let more = b.select(big, mb, more);
    let z = mul(b, xr, xr);
    let mut p = b.float(t, ATAN_P[0]);
    for &c in &ATAN_P[1..] {
        let pz = mul(b, p, z);
        let c = b.float(t, c);
        p = add(b, pz, c);
    }
    let p = mul(b, p, z);
    let mut q = z;
    for &c in &ATAN_Q[..4] {
        let c = b.float(t, c);
        let qc = add(b, q, c);
        q = mul(b, qc, z);
    }
    let c = b.float(t, ATAN_Q[4]);
    let q = add(b, q, c);
    let pq = div(b, p, q);
    let xz = mul(b, xr, pq);
    let r = add(b, xz, xr);
    let r = add(b, r, more);
    add(b, y0, r)
}

fn atan(b: &mut Builder, x: Value) -> Value {
    let a = b.math(MathFn::Abs, x);
    let r = atan_nonneg(b, a);
    odd(b, x, r)
}

/// C `atan2(y, x)`: `atan(|y|/|x|)` (0 for two zeros, π/4 for two infinities), reflected
/// to `π − θ` where `x`'s sign bit is set, given `y`'s sign.
pub(super) fn atan2(b: &mut Builder, y: Value, x: Value) -> Value {
    let t = b.ty(x);
    let (ax, ay) = (b.math(MathFn::Abs, x), b.math(MathFn::Abs, y));
    let ratio = div(b, ay, ax);
    let th = atan_nonneg(b, ratio);
    let zero = b.zero(t);
    let (xz, yz) = (
        b.binary(PBinary::Eq, ax, zero),
        b.binary(PBinary::Eq, ay, zero),
    );
    let both_zero = b.binary(PBinary::And, xz, yz);
    let th = b.select(both_zero, zero, th);
    let (xi, yi) = (is_inf(b, x), is_inf(b, y));
    let both_inf = b.binary(PBinary::And, xi, yi);
    let pio4 = b.float(t, std::f64::consts::FRAC_PI_4);
    let th = b.select(both_inf, pio4, th);
    let pi = b.float(t, std::f64::consts::PI);
    let reflected = b.binary(PBinary::Sub, pi, th);
    let xs = sign_bit(b, x);
    let th = b.select(xs, reflected, th);
    let ys = sign_bit(b, y);
    let n = neg(b, th);
    b.select(ys, n, th)
}

/// `asin x = atan2(x, √((1−x)(1+x)))`.
fn asin(b: &mut Builder, x: Value) -> Value {
    let one = b.one(b.ty(x));
    let (l, r) = (b.binary(PBinary::Sub, one, x), add(b, one, x));
    let c = mul(b, l, r);
    let c = b.math(MathFn::Sqrt, c);
    atan2(b, x, c)
}

/// `acos x = 2·atan2(√(1−x), √(1+x))`.
fn acos(b: &mut Builder, x: Value) -> Value {
    let one = b.one(b.ty(x));
    let (l, r) = (b.binary(PBinary::Sub, one, x), add(b, one, x));
    let (l, r) = (b.math(MathFn::Sqrt, l), b.math(MathFn::Sqrt, r));
    let h = atan2(b, l, r);
    add(b, h, h)
}

/// −1, 0 or 1 (NaN for NaN; a zero gives +0).
fn sign(b: &mut Builder, x: Value) -> Value {
    let t = b.ty(x);
    let (zero, one) = (b.zero(t), b.one(t));
    let pos = b.binary(PBinary::Gt, x, zero);
    let r = b.select(pos, one, zero);
    if t.is_signed_integer() || t.is_float() {
        let m1 = if t.is_float() {
            b.float(t, -1.0)
        } else {
            b.int(t, -1)
        };
        let negative = b.binary(PBinary::Lt, x, zero);
        let r = b.select(negative, m1, r);
        if t.is_float() {
            let nan = b.unary(PUnary::IsNan, x);
            return b.select(nan, x, r);
        }
        return r;
    }
    r
}

/// Appends the unary operations of this module (`None`: not one of them).
pub(super) fn unary_into(b: &mut Builder, op: UnaryOp, a: Value) -> Option<Value> {
    let d = b.ty(a);
    let complex_or = |b: &mut Builder, f: fn(&mut Builder, Value) -> Value, any: bool| {
        if d.is_complex() {
            let (re, im) = (b.re(a), b.im(a));
            let (r, i) = (f(b, re), f(b, im));
            let join = if any { PBinary::Or } else { PBinary::And };
            b.binary(join, r, i)
        } else if d.is_float() {
            f(b, a)
        } else {
            b.int(DType::Bool, (!any) as i128)
        }
    };
    Some(match op {
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc if !d.is_float() => a,
        UnaryOp::Floor => b.math(MathFn::Floor, a),
        UnaryOp::Round => b.math(MathFn::Rint, a),
        // ceil x = −floor(−x) (exact, and the sign of a zero result is x's).
        UnaryOp::Ceil => {
            let n = neg(b, a);
            let f = b.math(MathFn::Floor, n);
            neg(b, f)
        }
        UnaryOp::Trunc => {
            let n = neg(b, a);
            let f = b.math(MathFn::Floor, n);
            let c = neg(b, f);
            let f = b.math(MathFn::Floor, a);
            let zero = b.zero(d);
            let negative = b.binary(PBinary::Lt, a, zero);
            b.select(negative, c, f)
        }
        UnaryOp::Log1p => log1p(b, a),
        UnaryOp::Expm1 => expm1(b, a),
        UnaryOp::Tan => tan(b, a),
        UnaryOp::Atan => atan(b, a),
        UnaryOp::Asin => asin(b, a),
        UnaryOp::Acos => acos(b, a),
        UnaryOp::Sinh => sinh(b, a),
        UnaryOp::Cosh => cosh(b, a),
        UnaryOp::Sigmoid => sigmoid(b, a),
        UnaryOp::Sign => sign(b, a),
        UnaryOp::IsNan => complex_or(b, |b, x| b.unary(PUnary::IsNan, x), true),
        UnaryOp::IsInf => complex_or(b, is_inf, true),
        UnaryOp::IsFinite => complex_or(b, is_finite, false),
        UnaryOp::Real if d.is_complex() => b.re(a),
        UnaryOp::Imag if d.is_complex() => b.im(a),
        UnaryOp::Conj if d.is_complex() => {
            let (re, im) = (b.re(a), b.im(a));
            let ni = neg(b, im);
            b.complex(re, ni)
        }
        UnaryOp::Real | UnaryOp::Conj => a,
        UnaryOp::Imag => b.zero(d),
        UnaryOp::Angle if d.is_complex() => {
            let (re, im) = (b.re(a), b.im(a));
            atan2(b, im, re)
        }
        UnaryOp::Angle => {
            let zero = b.zero(d);
            atan2(b, zero, a)
        }
        _ => return None,
    })
}
