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
/// | `Log1p`, `Expm1`, `Tan`, `Atan`, `Asin`, `Acos`, `Sinh`, `Cosh` | f32, f64 | the C library's functions (NumPy `log1p`, ..., `cosh`), computed in the type: accurate for tiny arguments (`log1p(1e-30) == 1e-30`), `sinh`/`cosh` finite wherever the result is |
/// | `Sigmoid` | f32, f64 | `1/(1+exp(-x))`, computed as `e/(1+e)` with `e = exp(x)` for negative `x`, so it neither overflows nor loses the small results: `sigmoid(-∞) == 0`, `sigmoid(∞) == 1`, NaN gives NaN |
/// | `Floor`, `Ceil`, `Trunc` | integers, f32, f64 | floats: rounded down, up, toward zero (exact; the sign of a zero result is the operand's, `ceil(-0.5) == -0.0`); integers: identity |
/// | `Round` | integers, f32, f64 | floats: to the nearest integer, halves to even (NumPy `round`/`rint`: `round(2.5) == 2`, `round(-0.5) == -0.0`); integers: identity |
/// | `Sign` | integers, f32, f64 | −1, 0 or 1 (unsigned: 0 or 1); floats: `sign(±0) == +0`, NaN gives NaN (NumPy `sign`); complex is refused (cast or take `abs`/`angle`) |
/// | `IsNan`, `IsInf`, `IsFinite` | all | bool result; bool and integers: false, false, true; complex: NaN or infinite if either part is, finite if both are |
/// | `Real`, `Imag` | all | complex: the part, of the real type; other types: `real(x) == x`, `imag(x) == 0` (false for bool), of `x`'s type |
/// | `Conj` | all | complex: `re − i·im`; other types: identity |
/// | `Angle` | f32, f64, complex | `atan2(im, re)` of the real type (NumPy `angle`); a real `x` has `im == +0`: 0 for `x > 0` and `+0`, π for `x < 0` and `-0.0`, NaN for NaN; integers are refused (cast to a float type first) |
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
    Log1p,
    Expm1,
    Tan,
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    Sigmoid,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sign,
    IsNan,
    IsInf,
    IsFinite,
    Real,
    Imag,
    Conj,
    Angle,
}

/// Binary operations. Both operands have one element type (cast first otherwise).
///
/// | op | types | semantics |
/// |---|---|---|
/// | `Add`, `Sub`, `Mul` | numeric | integers wrap; complex `(ac-bd) + i(ad+bc)`, with no recovery of infinities (`(1+0i)·(6+∞i)` is `NaN+∞i`) |
/// | `Div` | numeric | integers truncate toward zero, `x / 0 == 0`, `MIN / -1 == MIN`; floats IEEE; complex `(ac+bd)/(c²+d²) + i(bc-ad)/(c²+d²)` |
/// | `Pow` | f32, f64 | C `pow` |
/// | `Min`, `Max` | ordered (not complex) | a NaN operand gives NaN (NumPy `minimum`/`maximum`) |
/// | `Fmin`, `Fmax` | ordered (not complex) | a NaN operand is ignored (NumPy `fmin`/`fmax`): the other operand, NaN only if both are |
/// | `Rem` | integers, f32, f64 | NumPy `remainder` (Python `%`): the sign of the divisor. Integers: `x − floor(x/y)·y`, `x % 0 == 0` (as `x / 0 == 0`), `MIN % -1 == 0`; floats: `m = fmod(x, y)` (exact), then `m + y` where `m ≠ 0` and its sign differs from `y`'s, and `copysign(0, y)` where `m == 0`: `rem(-1, 3) == 2`, `rem(1, -∞) == -∞`, `rem(x, 0)`, `rem(±∞, y)` and NaN operands give NaN |
/// | `Shl`, `Shr` | integers | NumPy `left_shift`/`right_shift`: bits shifted out are lost (wrapping), `Shr` of signed integers is arithmetic; an amount of at least the bit width, or negative, gives 0 (`Shr` of a negative signed value: −1) |
/// | `Atan2` | f32, f64 | C `atan2(y = self, x = other)`, with its special values (`atan2(±0, -0) == ±π`, `atan2(±∞, +∞) == ±π/4`) |
/// | `Hypot` | f32, f64 | C `hypot`: `sqrt(x² + y²)` without spurious overflow; an infinite operand gives +∞, even with a NaN |
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
    Rem,
    Shl,
    Shr,
    Atan2,
    Hypot,
    Fmin,
    Fmax,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 30] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Not,
        UnaryOp::Sqrt,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Tan,
        UnaryOp::Atan,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Sigmoid,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Sign,
        UnaryOp::IsNan,
        UnaryOp::IsInf,
        UnaryOp::IsFinite,
        UnaryOp::Real,
        UnaryOp::Imag,
        UnaryOp::Conj,
        UnaryOp::Angle,
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
            UnaryOp::Log1p => "log1p",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Tan => "tan",
            UnaryOp::Atan => "atan",
            UnaryOp::Asin => "asin",
            UnaryOp::Acos => "acos",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Sign => "sign",
            UnaryOp::IsNan => "isnan",
            UnaryOp::IsInf => "isinf",
            UnaryOp::IsFinite => "isfinite",
            UnaryOp::Real => "real",
            UnaryOp::Imag => "imag",
            UnaryOp::Conj => "conj",
            UnaryOp::Angle => "angle",
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
                | UnaryOp::Log1p
                | UnaryOp::Expm1
                | UnaryOp::Tan
                | UnaryOp::Atan
                | UnaryOp::Asin
                | UnaryOp::Acos
                | UnaryOp::Sinh
                | UnaryOp::Cosh
                | UnaryOp::Sigmoid
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
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc | UnaryOp::Sign => {
                t.is_integer() || t.is_float()
            }
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => return Ok(DType::Bool),
            UnaryOp::Real | UnaryOp::Imag => return Ok(t.real()),
            UnaryOp::Conj => true,
            UnaryOp::Angle => {
                return if t.is_float() || t.is_complex() {
                    Ok(t.real())
                } else {
                    Err(self.invalid(t))
                };
            }
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
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc => {
                "it applies to integers (identity) and f32, f64; round the parts of a complex number"
            }
            UnaryOp::Sign => {
                "it applies to integers, f32 and f64; for complex z, z / abs(z) is NumPy 2's sign"
            }
            UnaryOp::Angle => {
                "it applies to f32, f64 and complex numbers; cast integers to a float type first"
            }
            _ => "it applies to f32 and f64; cast to a float type first",
        };
        Error::invalid_dtype(self.name(), t, hint)
    }
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 23] = [
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
        BinaryOp::Rem,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Atan2,
        BinaryOp::Hypot,
        BinaryOp::Fmin,
        BinaryOp::Fmax,
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
            BinaryOp::Rem => "rem",
            BinaryOp::Shl => "shl",
            BinaryOp::Shr => "shr",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::Hypot => "hypot",
            BinaryOp::Fmin => "fmin",
            BinaryOp::Fmax => "fmax",
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
            BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => l.is_float(),
            BinaryOp::Rem => l.is_integer() || l.is_float(),
            BinaryOp::Shl | BinaryOp::Shr => l.is_integer(),
            BinaryOp::Min
            | BinaryOp::Max
            | BinaryOp::Fmin
            | BinaryOp::Fmax
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => l.is_ordered(),
            BinaryOp::Eq | BinaryOp::Ne => true,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => l.is_bool() || l.is_integer(),
        };
        if !ok {
            let hint = match self {
                BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => {
                    "it applies to f32 and f64; cast to a float type first"
                }
                BinaryOp::Rem => "it applies to integers, f32 and f64",
                BinaryOp::Shl | BinaryOp::Shr => "it applies to integers",
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
