//! Per-type arithmetic with the exact semantics of `gpuarrays_core::kernel` (wrapping
//! integers, truncating integer division with `x / 0 == 0`, NaN-propagating min/max, Rust
//! `as` casts), as small traits, and how host memory holds each element type ([`Stored`]).
//!
//! Why here and public: the kit's host kernels and the CPU reference backend's kernels
//! compute with the same per-element functions, so a small backend built on the kit agrees
//! with the reference by construction rather than by a second copy kept in step. The
//! conformance suite's oracle does not use them: it is the independent check of both.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use super::half_types::half_from_exact;

pub use super::functions::{Angle, Classify, MoreFloatFns, Parts, Remainder, Rounding, Shifts};

/// How host memory holds an element type: as itself, except bool, held as its byte.
///
/// Kernels are dispatched with [`crate::dispatch_dtype!`], which binds the Rust element
/// type (`bool` for Bool); they read and write `Stored<T>`. A buffer may hold any byte where
/// a bool is expected (a `u8` array reinterpreted as bool), and reading such a byte as a
/// Rust `bool` would be undefined behaviour, so bool kernels work on the byte (ordering and
/// comparing bytes orders and compares the bools they stand for).
pub trait Storage {
    type Repr: bytemuck::Pod + Send + Sync + 'static;
}

/// The type host memory holds for the element type `T` (see [`Storage`]).
pub type Stored<T> = <T as Storage>::Repr;

impl Storage for bool {
    type Repr = u8;
}

macro_rules! stored_as_itself {
    ($($t:ty),*) => {$(
        impl Storage for $t {
            type Repr = $t;
        }
    )*};
}
stored_as_itself!(
    i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, Complex32, Complex64
);

/// Arithmetic of numeric types.
pub trait Arith: Copy + Send + Sync + 'static {
    const ZERO: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn neg(self) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const ZERO: Self = 0;
            #[inline] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
            #[inline] fn neg(self) -> Self { self.wrapping_neg() }
        }
    )*};
}
int_arith!(i8, u8, i16, u16, i32, u32, i64, u64);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const ZERO: Self = 0.0;
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn div(self, o: Self) -> Self { self / o }
            #[inline] fn neg(self) -> Self { -self }
        }
    )*};
}
float_arith!(f32, f64);

macro_rules! complex_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            const ZERO: Self = <$t>::new(0.0, 0.0);
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            /// `(ac+bd)/(c²+d²) + i(bc-ad)/(c²+d²)`, written out so the formula is ours.
            #[inline] fn div(self, o: Self) -> Self {
                let d = o.re * o.re + o.im * o.im;
                <$t>::new((self.re * o.re + self.im * o.im) / d, (self.im * o.re - self.re * o.im) / d)
            }
            #[inline] fn neg(self) -> Self { -self }
        }
    )*};
}
complex_arith!(Complex32, Complex64);

/// The type a reduction (sum, prod) accumulates a numeric type in: itself, except f16 and
/// bf16, which accumulate in f32 and are rounded once at the end (as PyTorch does, and as
/// NumPy's pairwise float16 sums do).
pub trait Accumulate: Arith {
    type Acc: Arith;
    fn to_acc(self) -> Self::Acc;
    fn from_acc(acc: Self::Acc) -> Self;
}

macro_rules! accumulate_as_itself {
    ($($t:ty),*) => {$(
        impl Accumulate for $t {
            type Acc = $t;
            #[inline(always)] fn to_acc(self) -> $t { self }
            #[inline(always)] fn from_acc(acc: $t) -> $t { acc }
        }
    )*};
}
accumulate_as_itself!(
    i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, Complex32, Complex64
);

macro_rules! accumulate_in_f32 {
    ($($t:ty),*) => {$(
        impl Accumulate for $t {
            type Acc = f32;
            #[inline(always)] fn to_acc(self) -> f32 { self.to_f32() }
            #[inline(always)] fn from_acc(acc: f32) -> $t { <$t>::from_f32(acc) }
        }
    )*};
}
accumulate_in_f32!(f16, bf16);

/// Ordered types: min/max (NaN-propagating for floats) and NaN detection.
pub trait Ordered: Copy + PartialOrd + Send + Sync + 'static {
    fn is_nan(self) -> bool;
    #[inline]
    fn min_(self, o: Self) -> Self {
        if self.is_nan() || o.is_nan() {
            if self.is_nan() { self } else { o }
        } else if o < self {
            o
        } else {
            self
        }
    }
    #[inline]
    fn max_(self, o: Self) -> Self {
        if self.is_nan() || o.is_nan() {
            if self.is_nan() { self } else { o }
        } else if o > self {
            o
        } else {
            self
        }
    }
    /// `min` ignoring a NaN operand (NumPy `fmin`): NaN only when both are.
    #[inline]
    fn fmin_(self, o: Self) -> Self {
        if o.is_nan() {
            self
        } else if self.is_nan() {
            o
        } else {
            self.min_(o)
        }
    }
    /// `max` ignoring a NaN operand (NumPy `fmax`).
    #[inline]
    fn fmax_(self, o: Self) -> Self {
        if o.is_nan() {
            self
        } else if self.is_nan() {
            o
        } else {
            self.max_(o)
        }
    }
    /// Total order for sorting: NaN after everything; values that compare equal (-0 and +0,
    /// NaNs) in the order of their bits (-0 first; NaNs by payload), so that every sorting
    /// algorithm, parallel or serial, puts the same bits in the same place.
    #[inline]
    fn sort_cmp(&self, o: &Self) -> std::cmp::Ordering {
        let by_value = match (self.is_nan(), o.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => self.partial_cmp(o).unwrap_or(std::cmp::Ordering::Equal),
        };
        by_value.then_with(|| self.tie_order(*o))
    }
    /// The order of two values that compare equal: their bits, with the sign first.
    fn tie_order(self, o: Self) -> std::cmp::Ordering;
}

macro_rules! ordered {
    (int: $($t:ty),*) => {$( impl Ordered for $t {
        #[inline] fn is_nan(self) -> bool { false }
        #[inline] fn tie_order(self, _: Self) -> std::cmp::Ordering { std::cmp::Ordering::Equal }
    } )*};
    (float: $($t:ty),*) => {$( impl Ordered for $t {
        #[inline] fn is_nan(self) -> bool { <$t>::is_nan(self) }
        #[inline] fn tie_order(self, o: Self) -> std::cmp::Ordering {
            o.is_sign_negative()
                .cmp(&self.is_sign_negative())
                .then_with(|| self.to_bits().cmp(&o.to_bits()))
        }
    } )*};
}
ordered!(int: bool, i8, u8, i16, u16, i32, u32, i64, u64);
ordered!(float: f16, bf16, f32, f64);

/// Logical (bool) or bitwise (integer) operations.
pub trait Bits: Copy + Send + Sync + 'static {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline] fn and(self, o: Self) -> Self { self & o }
            #[inline] fn or(self, o: Self) -> Self { self | o }
            #[inline] fn xor(self, o: Self) -> Self { self ^ o }
            #[inline] fn not(self) -> Self { !self }
        }
    )*};
}
bits!(bool, i8, u8, i16, u16, i32, u32, i64, u64);

/// Absolute value with the type rules of `UnaryOp::Abs`.
pub trait Abs: Copy + Send + Sync + 'static {
    type Out: Copy + Send + Sync + 'static;
    fn abs_(self) -> Self::Out;
}

macro_rules! abs_impl {
    (signed: $($t:ty),*) => {$( impl Abs for $t { type Out = $t; #[inline] fn abs_(self) -> $t { self.wrapping_abs() } } )*};
    (unsigned: $($t:ty),*) => {$( impl Abs for $t { type Out = $t; #[inline] fn abs_(self) -> $t { self } } )*};
    (float: $($t:ty),*) => {$( impl Abs for $t { type Out = $t; #[inline] fn abs_(self) -> $t { self.abs() } } )*};
}
abs_impl!(signed: i8, i16, i32, i64);
abs_impl!(unsigned: u8, u16, u32, u64);
abs_impl!(float: f32, f64);
impl Abs for Complex32 {
    type Out = f32;
    fn abs_(self) -> f32 {
        self.re.hypot(self.im)
    }
}
impl Abs for Complex64 {
    type Out = f64;
    fn abs_(self) -> f64 {
        self.re.hypot(self.im)
    }
}

/// Real floating-point functions.
pub trait FloatFns: Copy + Send + Sync + 'static {
    fn sqrt_(self) -> Self;
    fn exp_(self) -> Self;
    fn ln_(self) -> Self;
    fn sin_(self) -> Self;
    fn cos_(self) -> Self;
    fn tanh_(self) -> Self;
    fn pow_(self, e: Self) -> Self;
}

macro_rules! float_fns {
    ($($t:ty),*) => {$(
        impl FloatFns for $t {
            #[inline] fn sqrt_(self) -> Self { self.sqrt() }
            #[inline] fn exp_(self) -> Self { self.exp() }
            #[inline] fn ln_(self) -> Self { self.ln() }
            #[inline] fn sin_(self) -> Self { self.sin() }
            #[inline] fn cos_(self) -> Self { self.cos() }
            #[inline] fn tanh_(self) -> Self { self.tanh() }
            #[inline] fn pow_(self, e: Self) -> Self { self.powf(e) }
        }
    )*};
}
float_fns!(f32, f64);

/// Conversion to every element type with the cast rules of `gpuarrays_core::scalar`.
pub trait Castable: Copy + Send + Sync + 'static {
    fn to_bool(self) -> bool;
    fn to_i8(self) -> i8;
    fn to_u8(self) -> u8;
    fn to_i16(self) -> i16;
    fn to_u16(self) -> u16;
    fn to_i32(self) -> i32;
    fn to_u32(self) -> u32;
    fn to_i64(self) -> i64;
    fn to_u64(self) -> u64;
    /// Rounded once from the exact value (see [`crate::scalar`]).
    fn to_f16(self) -> f16;
    /// Rounded once from the exact value.
    fn to_bf16(self) -> bf16;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    fn to_c32(self) -> Complex32;
    fn to_c64(self) -> Complex64;
}

macro_rules! castable_prim {
    ($($t:ty),*) => {$(
        impl Castable for $t {
            #[inline] fn to_bool(self) -> bool { self != (0 as $t) }
            #[inline] fn to_i8(self) -> i8 { self as i8 }
            #[inline] fn to_u8(self) -> u8 { self as u8 }
            #[inline] fn to_i16(self) -> i16 { self as i16 }
            #[inline] fn to_u16(self) -> u16 { self as u16 }
            #[inline] fn to_f16(self) -> f16 { half_from_exact!(self, $t, f16) }
            #[inline] fn to_bf16(self) -> bf16 { half_from_exact!(self, $t, bf16) }
            #[inline] fn to_i32(self) -> i32 { self as i32 }
            #[inline] fn to_u32(self) -> u32 { self as u32 }
            #[inline] fn to_i64(self) -> i64 { self as i64 }
            #[inline] fn to_u64(self) -> u64 { self as u64 }
            #[inline] fn to_f32(self) -> f32 { self as f32 }
            #[inline] fn to_f64(self) -> f64 { self as f64 }
            #[inline] fn to_c32(self) -> Complex32 { Complex32::new(self as f32, 0.0) }
            #[inline] fn to_c64(self) -> Complex64 { Complex64::new(self as f64, 0.0) }
        }
    )*};
}
castable_prim!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Castable for bool {
    fn to_bool(self) -> bool {
        self
    }
    fn to_i8(self) -> i8 {
        self as i8
    }
    fn to_u8(self) -> u8 {
        self as u8
    }
    fn to_i16(self) -> i16 {
        self as i16
    }
    fn to_u16(self) -> u16 {
        self as u16
    }
    fn to_f16(self) -> f16 {
        f16::from_f32(self as u8 as f32)
    }
    fn to_bf16(self) -> bf16 {
        bf16::from_f32(self as u8 as f32)
    }
    fn to_i32(self) -> i32 {
        self as i32
    }
    fn to_u32(self) -> u32 {
        self as u32
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn to_f32(self) -> f32 {
        self as u8 as f32
    }
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_c32(self) -> Complex32 {
        Complex32::new(self as u8 as f32, 0.0)
    }
    fn to_c64(self) -> Complex64 {
        Complex64::new(self as u8 as f64, 0.0)
    }
}

macro_rules! castable_complex {
    ($t:ty, $same:ident, $other:ident, $otherty:ty, $oc:ty) => {
        impl Castable for $t {
            fn to_bool(self) -> bool {
                self.re != 0.0 || self.im != 0.0
            }
            fn to_i8(self) -> i8 {
                self.re as i8
            }
            fn to_u8(self) -> u8 {
                self.re as u8
            }
            fn to_i16(self) -> i16 {
                self.re as i16
            }
            fn to_u16(self) -> u16 {
                self.re as u16
            }
            fn to_f16(self) -> f16 {
                self.re.to_f16()
            }
            fn to_bf16(self) -> bf16 {
                self.re.to_bf16()
            }
            fn to_i32(self) -> i32 {
                self.re as i32
            }
            fn to_u32(self) -> u32 {
                self.re as u32
            }
            fn to_i64(self) -> i64 {
                self.re as i64
            }
            fn to_u64(self) -> u64 {
                self.re as u64
            }
            fn to_f32(self) -> f32 {
                self.re as f32
            }
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            fn $same(self) -> $t {
                self
            }
            fn $other(self) -> $otherty {
                <$otherty>::new(self.re as $oc, self.im as $oc)
            }
        }
    };
}
castable_complex!(Complex32, to_c32, to_c64, Complex64, f64);
castable_complex!(Complex64, to_c64, to_c32, Complex32, f32);
