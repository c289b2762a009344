//! The per-type functions of the operations beyond arithmetic (`floor` ... `sigmoid`,
//! `sign`, classification, complex parts, NumPy's `remainder`, shifts), with the exact
//! semantics of `gpuarrays_core::kernel::operators`, computed with Rust's own functions (the
//! C library's) in the element type. Re-exported by [`crate::host::semantics`].

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// Real floating-point library functions beyond [`super::semantics::FloatFns`].
pub trait MoreFloatFns: Copy + Send + Sync + 'static {
    fn ln_1p_(self) -> Self;
    fn exp_m1_(self) -> Self;
    fn tan_(self) -> Self;
    fn atan_(self) -> Self;
    fn asin_(self) -> Self;
    fn acos_(self) -> Self;
    fn sinh_(self) -> Self;
    fn cosh_(self) -> Self;
    /// `1/(1+exp(-x))`, as `e/(1+e)` with `e = exp(x)` for negative `x`.
    fn sigmoid_(self) -> Self;
    /// `atan2(self, x)`.
    fn atan2_(self, x: Self) -> Self;
    fn hypot_(self, o: Self) -> Self;
}

macro_rules! more_float_fns {
    ($($t:ty),*) => {$(
        impl MoreFloatFns for $t {
            #[inline] fn ln_1p_(self) -> Self { self.ln_1p() }
            #[inline] fn exp_m1_(self) -> Self { self.exp_m1() }
            #[inline] fn tan_(self) -> Self { self.tan() }
            #[inline] fn atan_(self) -> Self { self.atan() }
            #[inline] fn asin_(self) -> Self { self.asin() }
            #[inline] fn acos_(self) -> Self { self.acos() }
            #[inline] fn sinh_(self) -> Self { self.sinh() }
            #[inline] fn cosh_(self) -> Self { self.cosh() }
            #[inline] fn sigmoid_(self) -> Self {
                if self < 0.0 {
                    let e = self.exp();
                    e / (1.0 + e)
                } else {
                    1.0 / (1.0 + (-self).exp())
                }
            }
            #[inline] fn atan2_(self, x: Self) -> Self { self.atan2(x) }
            #[inline] fn hypot_(self, o: Self) -> Self { self.hypot(o) }
        }
    )*};
}
more_float_fns!(f32, f64);

/// Rounding (integers: identity) and `sign`, for integers and real floats.
pub trait Rounding: Copy + Send + Sync + 'static {
    fn floor_(self) -> Self;
    fn ceil_(self) -> Self;
    /// Halves to even.
    fn round_(self) -> Self;
    fn trunc_(self) -> Self;
    /// −1, 0 or 1; floats: `+0` for both zeros, NaN for NaN.
    fn sign_(self) -> Self;
}

macro_rules! int_rounding {
    ($($t:ty),*) => {$(
        impl Rounding for $t {
            #[inline] fn floor_(self) -> Self { self }
            #[inline] fn ceil_(self) -> Self { self }
            #[inline] fn round_(self) -> Self { self }
            #[inline] fn trunc_(self) -> Self { self }
            #[inline] #[allow(unused_comparisons)] fn sign_(self) -> Self {
                if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 }
            }
        }
    )*};
}
int_rounding!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! float_rounding {
    ($($t:ty),*) => {$(
        impl Rounding for $t {
            #[inline] fn floor_(self) -> Self { self.floor() }
            #[inline] fn ceil_(self) -> Self { self.ceil() }
            #[inline] fn round_(self) -> Self { self.round_ties_even() }
            #[inline] fn trunc_(self) -> Self { self.trunc() }
            #[inline] fn sign_(self) -> Self {
                if self > 0.0 { 1.0 } else if self < 0.0 { -1.0 } else if self == 0.0 { 0.0 } else { self }
            }
        }
    )*};
}
float_rounding!(f32, f64);

/// NaN, infinity and finiteness tests of every type (bool and integers are finite).
pub trait Classify: Copy + Send + Sync + 'static {
    fn is_nan_(self) -> bool;
    fn is_inf_(self) -> bool;
    fn is_finite_(self) -> bool;
}

macro_rules! classify_exact {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            #[inline] fn is_nan_(self) -> bool { false }
            #[inline] fn is_inf_(self) -> bool { false }
            #[inline] fn is_finite_(self) -> bool { true }
        }
    )*};
}
classify_exact!(bool, i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! classify_float {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            #[inline] fn is_nan_(self) -> bool { self.is_nan() }
            #[inline] fn is_inf_(self) -> bool { self.is_infinite() }
            #[inline] fn is_finite_(self) -> bool { self.is_finite() }
        }
    )*};
}
classify_float!(f32, f64);

macro_rules! classify_complex {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            #[inline] fn is_nan_(self) -> bool { self.re.is_nan() || self.im.is_nan() }
            #[inline] fn is_inf_(self) -> bool { self.re.is_infinite() || self.im.is_infinite() }
            #[inline] fn is_finite_(self) -> bool { self.re.is_finite() && self.im.is_finite() }
        }
    )*};
}
classify_complex!(Complex32, Complex64);

/// The real and imaginary parts and the conjugate of every type (a real value is its own
/// real part and conjugate; its imaginary part is 0).
pub trait Parts: Copy + Send + Sync + 'static {
    type Real: Copy + Send + Sync + 'static;
    fn re_(self) -> Self::Real;
    fn im_(self) -> Self::Real;
    fn conj_(self) -> Self;
}

macro_rules! real_parts {
    ($($t:ty = $zero:expr),*) => {$(
        impl Parts for $t {
            type Real = $t;
            #[inline] fn re_(self) -> $t { self }
            #[inline] fn im_(self) -> $t { $zero }
            #[inline] fn conj_(self) -> $t { self }
        }
    )*};
}
real_parts!(
    bool = false,
    i8 = 0,
    u8 = 0,
    i16 = 0,
    u16 = 0,
    i32 = 0,
    u32 = 0,
    i64 = 0,
    u64 = 0,
    f16 = f16::ZERO,
    bf16 = bf16::ZERO,
    f32 = 0.0,
    f64 = 0.0
);

macro_rules! complex_parts {
    ($($t:ty: $r:ty),*) => {$(
        impl Parts for $t {
            type Real = $r;
            #[inline] fn re_(self) -> $r { self.re }
            #[inline] fn im_(self) -> $r { self.im }
            #[inline] fn conj_(self) -> $t { self.conj() }
        }
    )*};
}
complex_parts!(Complex32: f32, Complex64: f64);

/// The argument `atan2(im, re)` of floats (`im = +0`) and complex numbers.
pub trait Angle: Copy + Send + Sync + 'static {
    type Real: Copy + Send + Sync + 'static;
    fn angle_(self) -> Self::Real;
}

impl Angle for f32 {
    type Real = f32;
    fn angle_(self) -> f32 {
        0.0f32.atan2(self)
    }
}
impl Angle for f64 {
    type Real = f64;
    fn angle_(self) -> f64 {
        0.0f64.atan2(self)
    }
}
impl Angle for Complex32 {
    type Real = f32;
    fn angle_(self) -> f32 {
        self.im.atan2(self.re)
    }
}
impl Angle for Complex64 {
    type Real = f64;
    fn angle_(self) -> f64 {
        self.im.atan2(self.re)
    }
}

/// NumPy's `remainder` (the sign of the divisor) of integers and real floats.
pub trait Remainder: Copy + Send + Sync + 'static {
    fn rem_(self, o: Self) -> Self;
}

macro_rules! int_remainder {
    ($($t:ty),*) => {$(
        impl Remainder for $t {
            #[inline]
            #[allow(unused_comparisons)]
            fn rem_(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                // `wrapping_rem`: MIN % -1 is 0.
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) { r.wrapping_add(o) } else { r }
            }
        }
    )*};
}
int_remainder!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! float_remainder {
    ($($t:ty),*) => {$(
        impl Remainder for $t {
            #[inline]
            fn rem_(self, o: Self) -> Self {
                let m = self % o;
                if m == 0.0 {
                    (0.0 as $t).copysign(o)
                } else if (m < 0.0) != (o < 0.0) && !m.is_nan() {
                    m + o
                } else {
                    m
                }
            }
        }
    )*};
}
float_remainder!(f32, f64);

/// Shifts with NumPy's rule: an amount outside [0, bits) gives 0 (a right shift of a
/// negative value: −1); right shifts of signed integers are arithmetic.
pub trait Shifts: Copy + Send + Sync + 'static {
    fn shl_(self, n: Self) -> Self;
    fn shr_(self, n: Self) -> Self;
}

macro_rules! shifts {
    ($($t:ty),*) => {$(
        impl Shifts for $t {
            #[inline]
            #[allow(unused_comparisons)]
            fn shl_(self, n: Self) -> Self {
                if n >= 0 && (n as u64) < <$t>::BITS as u64 { self << n } else { 0 }
            }
            #[inline]
            #[allow(unused_comparisons)]
            fn shr_(self, n: Self) -> Self {
                if n >= 0 && (n as u64) < <$t>::BITS as u64 {
                    self >> n
                } else if self < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
        }
    )*};
}
shifts!(i8, u8, i16, u16, i32, u32, i64, u64);
