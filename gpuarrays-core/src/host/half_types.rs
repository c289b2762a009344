//! f16 and bf16: every per-element function of [`super::semantics`] computed in f32 and
//! rounded once to the storage type, and the exact conversions into them.
//!
//! Why f32: it holds every f16 and bf16 exactly, and its 24 significant bits are at least
//! twice the 11 (f16) or 8 (bf16) bits plus two, so the f32 result of `+ − × ÷` and `sqrt`,
//! rounded to the half type, is the correctly rounded half result: what native half
//! arithmetic gives, and what NumPy's float16 loops (which also compute in float) give.
//! Library functions (`exp`, `sin`, ...) are f32's, rounded once more.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use super::functions::{Angle, Classify, MoreFloatFns, Remainder, Rounding};
use super::semantics::{Abs, Arith, Castable, FloatFns};

/// An integer as the f64 nearest it with the rounding "to odd" (when bits are dropped, the
/// lowest kept bit is set): rounding that f64 to f16 or bf16, which keep far fewer than the
/// 51 bits such a second rounding needs, gives the single rounding of the exact integer.
/// Rounding to nearest here instead would round twice (`2^60 + 2^52 + 1` would become the
/// bf16 tie `2^60 + 2^52`, then `2^60` instead of `2^60 + 2^53`).
pub(crate) fn int_to_f64_odd(v: i128) -> f64 {
    let magnitude = v.unsigned_abs();
    let bits = 128 - magnitude.leading_zeros();
    if bits <= 53 {
        return v as f64;
    }
    let shift = bits - 53;
    let dropped = magnitude & ((1u128 << shift) - 1);
    let kept = (magnitude >> shift) | u128::from(dropped != 0);
    // `kept` has 53 bits and the scaling is a power of two: both exact.
    let m = kept as f64 * 2f64.powi(shift as i32);
    if v < 0 { -m } else { m }
}

/// `x` rounded to f32 "to odd": truncated toward zero, with the lowest bit set when that
/// dropped anything. Rounding the result to f16 or bf16 (11 and 8 significant bits, far
/// fewer than f32's 24 − 2) is then the single rounding of `x`. The `half` crate's
/// `from_f64` rounds through f32 to nearest, which rounds twice: `1 + 2^-11 + 2^-40`
/// becomes the tie `1 + 2^-11` and then 1 instead of `1 + 2^-10`.
fn f64_to_f32_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if !x.is_finite() || f64::from(nearest) == x || nearest.is_infinite() {
        // Exact, NaN, or beyond f32's range (where both half types overflow too).
        return nearest;
    }
    let mut bits = nearest.to_bits();
    if f64::from(nearest).abs() > x.abs() {
        // Rounded away from zero: the f32 one step toward zero is the truncation.
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `x` rounded once to f16.
pub(crate) fn f16_from_f64(x: f64) -> f16 {
    f16::from_f32(f64_to_f32_odd(x))
}

/// `x` rounded once to bf16.
pub(crate) fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_f32(f64_to_f32_odd(x))
}

/// A value as an f64 that rounds to the half types as the exact value does.
pub(crate) trait ExactF64: Copy {
    fn exact_f64(self) -> f64;
}

macro_rules! exact_int {
    ($($t:ty),*) => {$(
        impl ExactF64 for $t {
            #[inline] fn exact_f64(self) -> f64 { int_to_f64_odd(i128::from(self)) }
        }
    )*};
}
exact_int!(i8, u8, i16, u16, i32, u32, i64, u64);

impl ExactF64 for f32 {
    #[inline]
    fn exact_f64(self) -> f64 {
        f64::from(self)
    }
}
impl ExactF64 for f64 {
    #[inline]
    fn exact_f64(self) -> f64 {
        self
    }
}

/// `v` (of a primitive type `$t`) rounded once to the half type `$h`.
macro_rules! half_from_exact {
    ($v:expr, $t:ty, f16) => {
        $crate::host::half_types::f16_from_f64(
            <$t as $crate::host::half_types::ExactF64>::exact_f64($v),
        )
    };
    ($v:expr, $t:ty, bf16) => {
        $crate::host::half_types::bf16_from_f64(
            <$t as $crate::host::half_types::ExactF64>::exact_f64($v),
        )
    };
}
pub(crate) use half_from_exact;

macro_rules! half_semantics {
    ($($h:ty),*) => {$(
        impl Arith for $h {
            const ZERO: Self = <$h>::ZERO;
            #[inline] fn add(self, o: Self) -> Self { <$h>::from_f32(self.to_f32() + o.to_f32()) }
            #[inline] fn sub(self, o: Self) -> Self { <$h>::from_f32(self.to_f32() - o.to_f32()) }
            #[inline] fn mul(self, o: Self) -> Self { <$h>::from_f32(self.to_f32() * o.to_f32()) }
            #[inline] fn div(self, o: Self) -> Self { <$h>::from_f32(self.to_f32() / o.to_f32()) }
            #[inline] fn neg(self) -> Self { -self }
        }

        impl Abs for $h {
            type Out = $h;
            #[inline] fn abs_(self) -> $h { <$h>::from_bits(self.to_bits() & 0x7fff) }
        }

        impl FloatFns for $h {
            #[inline] fn sqrt_(self) -> Self { <$h>::from_f32(self.to_f32().sqrt()) }
            #[inline] fn exp_(self) -> Self { <$h>::from_f32(self.to_f32().exp()) }
            #[inline] fn ln_(self) -> Self { <$h>::from_f32(self.to_f32().ln()) }
            #[inline] fn sin_(self) -> Self { <$h>::from_f32(self.to_f32().sin()) }
            #[inline] fn cos_(self) -> Self { <$h>::from_f32(self.to_f32().cos()) }
            #[inline] fn tanh_(self) -> Self { <$h>::from_f32(self.to_f32().tanh()) }
            #[inline] fn pow_(self, e: Self) -> Self { <$h>::from_f32(self.to_f32().powf(e.to_f32())) }
        }

        impl MoreFloatFns for $h {
            #[inline] fn ln_1p_(self) -> Self { <$h>::from_f32(self.to_f32().ln_1p_()) }
            #[inline] fn exp_m1_(self) -> Self { <$h>::from_f32(self.to_f32().exp_m1_()) }
            #[inline] fn tan_(self) -> Self { <$h>::from_f32(self.to_f32().tan_()) }
            #[inline] fn atan_(self) -> Self { <$h>::from_f32(self.to_f32().atan_()) }
            #[inline] fn asin_(self) -> Self { <$h>::from_f32(self.to_f32().asin_()) }
            #[inline] fn acos_(self) -> Self { <$h>::from_f32(self.to_f32().acos_()) }
            #[inline] fn sinh_(self) -> Self { <$h>::from_f32(self.to_f32().sinh_()) }
            #[inline] fn cosh_(self) -> Self { <$h>::from_f32(self.to_f32().cosh_()) }
            #[inline] fn sigmoid_(self) -> Self { <$h>::from_f32(self.to_f32().sigmoid_()) }
            #[inline] fn atan2_(self, x: Self) -> Self { <$h>::from_f32(self.to_f32().atan2_(x.to_f32())) }
            #[inline] fn hypot_(self, o: Self) -> Self { <$h>::from_f32(self.to_f32().hypot_(o.to_f32())) }
        }

        impl Rounding for $h {
            #[inline] fn floor_(self) -> Self { <$h>::from_f32(self.to_f32().floor()) }
            #[inline] fn ceil_(self) -> Self { <$h>::from_f32(self.to_f32().ceil()) }
            #[inline] fn round_(self) -> Self { <$h>::from_f32(self.to_f32().round_ties_even()) }
            #[inline] fn trunc_(self) -> Self { <$h>::from_f32(self.to_f32().trunc()) }
            #[inline] fn sign_(self) -> Self { <$h>::from_f32(self.to_f32().sign_()) }
        }

        impl Classify for $h {
            #[inline] fn is_nan_(self) -> bool { self.is_nan() }
            #[inline] fn is_inf_(self) -> bool { self.is_infinite() }
            #[inline] fn is_finite_(self) -> bool { self.is_finite() }
        }

        impl Angle for $h {
            type Real = $h;
            #[inline] fn angle_(self) -> $h { <$h>::from_f32(self.to_f32().angle_()) }
        }

        impl Remainder for $h {
            #[inline] fn rem_(self, o: Self) -> Self { <$h>::from_f32(self.to_f32().rem_(o.to_f32())) }
        }

        impl Castable for $h {
            #[inline] fn to_bool(self) -> bool { self.to_f32() != 0.0 }
            #[inline] fn to_i8(self) -> i8 { self.to_f32() as i8 }
            #[inline] fn to_u8(self) -> u8 { self.to_f32() as u8 }
            #[inline] fn to_i16(self) -> i16 { self.to_f32() as i16 }
            #[inline] fn to_u16(self) -> u16 { self.to_f32() as u16 }
            #[inline] fn to_i32(self) -> i32 { self.to_f32() as i32 }
            #[inline] fn to_u32(self) -> u32 { self.to_f32() as u32 }
            #[inline] fn to_i64(self) -> i64 { self.to_f32() as i64 }
            #[inline] fn to_u64(self) -> u64 { self.to_f32() as u64 }
            #[inline] fn to_f16(self) -> f16 { f16::from_f32(self.to_f32()) }
            #[inline] fn to_bf16(self) -> bf16 { bf16::from_f32(self.to_f32()) }
            #[inline] fn to_f32(self) -> f32 { <$h>::to_f32(self) }
            #[inline] fn to_f64(self) -> f64 { <$h>::to_f64(self) }
            #[inline] fn to_c32(self) -> Complex32 { Complex32::new(<$h>::to_f32(self), 0.0) }
            #[inline] fn to_c64(self) -> Complex64 { Complex64::new(<$h>::to_f64(self), 0.0) }
        }
    )*};
}
half_semantics!(f16, bf16);

#[cfg(test)]
mod tests {
    use super::*;

    /// Conversions round once from the exact value; arithmetic is the correctly rounded
    /// result (checked against the f64 result rounded once, an independent route).
    #[test]
    fn conversions_and_arithmetic_round_once() {
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(x.to_f16().to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!((-x).to_f16().to_f64(), -1.0 - 2f64.powi(-10));
        assert_eq!((1.0 + 2f64.powi(-11)).to_f16().to_f64(), 1.0);
        assert_eq!(1e-300f64.to_bf16().to_bits(), 0);
        assert_eq!((-1e300f64).to_bf16(), bf16::NEG_INFINITY);
        let v = (1i64 << 60) + (1 << 52) + 1;
        assert_eq!(v.to_bf16().to_f64(), ((1u64 << 60) + (1 << 53)) as f64);
        assert_eq!(
            (-v).to_bf16().to_f64(),
            -(((1u64 << 60) + (1 << 53)) as f64)
        );
        assert_eq!(70_000i32.to_f16(), f16::INFINITY);
        assert_eq!(f16::from_f32(-3.75).to_i8(), -3);
        assert_eq!(f16::NAN.to_u16(), 0);
        let xs = [0.1f32, 1.5, -2.75, 1000.0, 6.1e-5, 65504.0, 3.0e-8];
        for &a in &xs {
            for &b in &xs {
                let (ha, hb) = (f16::from_f32(a), f16::from_f32(b));
                let (x, y) = (ha.to_f64(), hb.to_f64());
                assert_eq!(ha.add(hb), f16_from_f64(x + y), "{a} + {b}");
                assert_eq!(ha.mul(hb), f16_from_f64(x * y), "{a} * {b}");
                assert_eq!(ha.div(hb), f16_from_f64(x / y), "{a} / {b}");
                let (ba, bb) = (bf16::from_f32(a), bf16::from_f32(b));
                let (x, y) = (ba.to_f64(), bb.to_f64());
                assert_eq!(ba.sub(bb), bf16_from_f64(x - y), "{a} - {b}");
            }
        }
        assert_eq!(f16::from_f32(-0.0).abs_().to_bits(), 0);
        assert_eq!(bf16::NEG_INFINITY.abs_(), bf16::INFINITY);
    }
}
