//! Expression methods of the operations beyond the C basics: rounding, `log1p` ... `sigmoid`,
//! `sign`, classification, complex parts, `atan2`, `hypot`, `fmin`/`fmax` and `clip`. The
//! semantics are in the tables of [`crate::kernel::operators`]; the remainder (`%`) and the
//! shifts (`<<`, `>>`) are operators (`expr_ops.rs`).

use crate::backend::Backend;
use crate::kernel::{BinaryOp, UnaryOp};
use crate::ops::expr::{Expr, IntoExprArg};

impl<B: Backend> Expr<B> {
    /// Rounds down (integers: identity).
    pub fn floor(self) -> Self {
        self.unary(UnaryOp::Floor)
    }
    /// Rounds up (integers: identity).
    pub fn ceil(self) -> Self {
        self.unary(UnaryOp::Ceil)
    }
    /// Rounds to the nearest integer, halves to even (NumPy `round`/`rint`; integers:
    /// identity).
    pub fn round(self) -> Self {
        self.unary(UnaryOp::Round)
    }
    /// Rounds toward zero (integers: identity).
    pub fn trunc(self) -> Self {
        self.unary(UnaryOp::Trunc)
    }
    /// `ln(1 + x)`, accurate for tiny `x`.
    pub fn log1p(self) -> Self {
        self.unary(UnaryOp::Log1p)
    }
    /// `exp(x) − 1`, accurate for tiny `x`.
    pub fn expm1(self) -> Self {
        self.unary(UnaryOp::Expm1)
    }
    pub fn tan(self) -> Self {
        self.unary(UnaryOp::Tan)
    }
    pub fn atan(self) -> Self {
        self.unary(UnaryOp::Atan)
    }
    pub fn asin(self) -> Self {
        self.unary(UnaryOp::Asin)
    }
    pub fn acos(self) -> Self {
        self.unary(UnaryOp::Acos)
    }
    pub fn sinh(self) -> Self {
        self.unary(UnaryOp::Sinh)
    }
    pub fn cosh(self) -> Self {
        self.unary(UnaryOp::Cosh)
    }
    /// `1 / (1 + exp(−x))`, without overflow for large `|x|`.
    pub fn sigmoid(self) -> Self {
        self.unary(UnaryOp::Sigmoid)
    }
    /// −1, 0 or 1 (NaN for NaN); integers and real floats.
    pub fn sign(self) -> Self {
        self.unary(UnaryOp::Sign)
    }
    /// Whether each element is NaN (bool; complex: either part).
    pub fn is_nan(self) -> Self {
        self.unary(UnaryOp::IsNan)
    }
    /// Whether each element is ±∞ (bool; complex: either part).
    pub fn is_inf(self) -> Self {
        self.unary(UnaryOp::IsInf)
    }
    /// Whether each element is neither NaN nor infinite (bool; complex: both parts).
    pub fn is_finite(self) -> Self {
        self.unary(UnaryOp::IsFinite)
    }
    /// The real part (of the real type; a real value itself).
    pub fn real(self) -> Self {
        self.unary(UnaryOp::Real)
    }
    /// The imaginary part (of the real type; 0 for a real value).
    pub fn imag(self) -> Self {
        self.unary(UnaryOp::Imag)
    }
    /// The complex conjugate (a real value itself).
    pub fn conj(self) -> Self {
        self.unary(UnaryOp::Conj)
    }
    /// The argument `atan2(im, re)` of complex numbers and real floats (π for negative
    /// reals and `-0.0`).
    pub fn angle(self) -> Self {
        self.unary(UnaryOp::Angle)
    }
    /// `atan2(self, x)`, the angle of the point `(x, self)`.
    pub fn atan2(self, x: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Atan2, x)
    }
    /// `sqrt(self² + o²)` without spurious overflow.
    pub fn hypot(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Hypot, o)
    }
    /// Elementwise minimum ignoring NaN (NaN only if both are).
    pub fn fmin(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Fmin, o)
    }
    /// Elementwise maximum ignoring NaN (NaN only if both are).
    pub fn fmax(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Fmax, o)
    }
    /// `min(max(self, lo), hi)` (NumPy `clip`): NaN stays NaN (as does a NaN bound); where
    /// `lo > hi` the result is `hi`.
    pub fn clip(self, lo: impl IntoExprArg<B>, hi: impl IntoExprArg<B>) -> Self {
        self.max(lo).min(hi)
    }
}
