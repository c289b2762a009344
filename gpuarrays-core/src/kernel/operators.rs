//! The unary and binary operations of elementwise expressions, with their type rules and
//! exact semantics. Backends implement exactly these semantics; the conformance suite checks
//! them against the CPU reference, which is checked against a scalar oracle.

use std::fmt;

use crate::dtype::DType;
use crate::error::{Error, Result};

/// Unary operations.
///
/// | op | types | semantics |
/// |---|---|---|
/// | `Neg` | numeric | integers wrap (`0 - x`, also for unsigned) |
/// | `Abs` | numeric | signed integers wrap (`abs(MIN) == MIN`); unsigned: identity; complex: modulus, a real result |
/// | `Not` | bool, integers | logical not for bool, bitwise not for integers |
/// | `Sqrt`, `Exp`, `Log`, `Sin`, `Cos`, `Tanh` | f32, f64 | IEEE functions of the C library, computed in the type |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Abs,
    Not,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
}

/// Binary operations. Both operands have one element type (cast first otherwise).
///
/// | op | types | semantics |
/// |---|---|---|
/// | `Add`, `Sub`, `Mul` | numeric | integers wrap; complex `(ac-bd) + i(ad+bc)`, with no recovery of infinities (`(1+0i)·(6+∞i)` is `NaN+∞i`) |
/// | `Div` | numeric | integers truncate toward zero, `x / 0 == 0`, `MIN / -1 == MIN`; floats IEEE; complex `(ac+bd)/(c²+d²) + i(bc-ad)/(c²+d²)` |
/// | `Pow` | f32, f64 | C `pow` |
/// | `Min`, `Max` | ordered (not complex) | a NaN operand gives NaN (NumPy `minimum`/`maximum`) |
/// | `Eq`, `Ne` | all | bool result; NaN is unequal to everything; complex compares both parts |
/// | `Lt`, `Le`, `Gt`, `Ge` | ordered | bool result; `false < true`; comparisons with NaN are false |
/// | `And`, `Or`, `Xor` | bool, integers | logical for bool, bitwise for integers |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 9] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Not,
        UnaryOp::Sqrt,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Not => "not",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tanh => "tanh",
        }
    }

    /// Whether the op is one of the real transcendental functions (f32/f64 only).
    pub const fn is_transcendental(self) -> bool {
        matches!(
            self,
            UnaryOp::Sqrt
                | UnaryOp::Exp
                | UnaryOp::Log
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Tanh
        )
    }

    /// The result type for an operand of type `t`, or the error saying why `t` is invalid.
    #[inline]
    pub fn result_dtype(self, t: DType) -> Result<DType> {
        let ok = match self {
            UnaryOp::Neg => t.is_numeric(),
            UnaryOp::Abs => {
                return if t.is_numeric() {
                    Ok(t.real())
                } else {
                    Err(self.invalid(t))
                };
            }
            UnaryOp::Not => t.is_bool() || t.is_integer(),
            _ => t.is_float(),
        };
        if ok { Ok(t) } else { Err(self.invalid(t)) }
    }

    fn invalid(self, t: DType) -> Error {
        let hint = match self {
            UnaryOp::Neg | UnaryOp::Abs => {
                "it applies to numbers; cast bool to an integer type first"
            }
            UnaryOp::Not => {
                "it applies to bool (logical) and integers (bitwise); use a comparison for floats"
            }
            _ => "it applies to f32 and f64; cast to a float type first",
        };
        Error::invalid_dtype(self.name(), t, hint)
    }
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::Eq => "eq",
            BinaryOp::Ne => "ne",
            BinaryOp::Lt => "lt",
            BinaryOp::Le => "le",
            BinaryOp::Gt => "gt",
            BinaryOp::Ge => "ge",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
        }
    }

    /// Comparisons produce bool.
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    /// The result type for operands of types `l` and `r`.
    #[inline]
    pub fn result_dtype(self, l: DType, r: DType) -> Result<DType> {
        if l != r {
            return Err(Error::DTypeMismatch {
                op: self.name().to_string(),
                lhs: l,
                rhs: r,
            });
        }
        let ok = match self {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => l.is_numeric(),
            BinaryOp::Pow => l.is_float(),
            BinaryOp::Min
            | BinaryOp::Max
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => l.is_ordered(),
            BinaryOp::Eq | BinaryOp::Ne => true,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => l.is_bool() || l.is_integer(),
        };
        if !ok {
            let hint = match self {
                BinaryOp::Pow => "it applies to f32 and f64; cast to a float type first",
                BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                    "it applies to bool (logical) and integers (bitwise)"
                }
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                    "arithmetic applies to numbers; cast bool to an integer type first"
                }
                _ => "complex numbers have no order; compare their real parts or moduli (abs)",
            };
            return Err(Error::invalid_dtype(self.name(), l, hint));
        }
        Ok(if self.is_comparison() { DType::Bool } else { l })
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
