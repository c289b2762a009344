//! `std::ops` operators for expressions: `a + b`, `a * 2.0`, `1.0 - a`, `-a`, `!m`,
//! `m & n`, `m | n`, `m ^ n`, `a % b` (NumPy `remainder`), `a << b`, `a >> b` (integers).

use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

use crate::array::Array;
use crate::backend::Backend;
use crate::element::Element;
use crate::kernel::{BinaryOp, UnaryOp};
use crate::ops::expr::{Expr, IntoExprArg, Literal};

macro_rules! binary_operator {
    ($Trait:ident, $method:ident, $op:expr) => {
        binary_operator!(@ints $Trait, $method, $op);
        binary_operator!(@lit $Trait, $method, $op, Float: f64);
        binary_operator!(@lit $Trait, $method, $op, Float32: f32);
    };
    // Expressions, arrays and integer literals on the left (shifts take only these).
    (@ints $Trait:ident, $method:ident, $op:expr) => {
        impl<B: Backend, R: IntoExprArg<B>> $Trait<R> for Expr<B> {
            type Output = Expr<B>;
            fn $method(self, rhs: R) -> Expr<B> {
                self.binary($op, rhs)
            }
        }
        impl<T: Element, B: Backend, R: IntoExprArg<B>> $Trait<R> for &Array<T, B> {
            type Output = Expr<B>;
            fn $method(self, rhs: R) -> Expr<B> {
                self.ex().binary($op, rhs)
            }
        }
        binary_operator!(@lit $Trait, $method, $op, Int: u8, i32, u32, i64, u64);
    };
    (@lit $Trait:ident, $method:ident, $op:expr, $variant:ident: $($t:ty),*) => {$(
        impl<B: Backend> $Trait<Expr<B>> for $t {
            type Output = Expr<B>;
            fn $method(self, rhs: Expr<B>) -> Expr<B> {
                Expr::binary_lit_lhs($op, Literal::$variant(self.into()), rhs)
            }
        }
    )*};
}

binary_operator!(Add, add, BinaryOp::Add);
binary_operator!(Sub, sub, BinaryOp::Sub);
binary_operator!(Mul, mul, BinaryOp::Mul);
binary_operator!(Div, div, BinaryOp::Div);
binary_operator!(BitAnd, bitand, BinaryOp::And);
binary_operator!(BitOr, bitor, BinaryOp::Or);
binary_operator!(BitXor, bitxor, BinaryOp::Xor);
binary_operator!(Rem, rem, BinaryOp::Rem);
binary_operator!(@ints Shl, shl, BinaryOp::Shl);
binary_operator!(@ints Shr, shr, BinaryOp::Shr);

impl<B: Backend> Neg for Expr<B> {
    type Output = Expr<B>;
    fn neg(self) -> Expr<B> {
        self.unary(UnaryOp::Neg)
    }
}

impl<B: Backend> Not for Expr<B> {
    type Output = Expr<B>;
    fn not(self) -> Expr<B> {
        self.unary(UnaryOp::Not)
    }
}
