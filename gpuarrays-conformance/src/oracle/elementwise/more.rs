//! The oracle of the operations beyond the C basics, restated from the tables of
//! `gpuarrays_core::kernel::operators` on widened values: rounding, library functions (f64's,
//! then narrowed), `sign`, classification, complex parts, NumPy's `remainder` (floor
//! division in exact integers; `fmod` then the adjustment), shifts on i128, `atan2`,
//! `hypot`, `fmin`/`fmax`.

use gpuarrays_core::kernel::{BinaryOp, UnaryOp};
use gpuarrays_core::{DType, Scalar};

use super::super::value::{Wide, from_complex, from_int, from_real, narrow, widen};

/// `op(x)` for the operations of this module (`None`: not one of them).
pub fn unary_value(op: UnaryOp, x: Scalar, out: DType) -> Option<Scalar> {
    use UnaryOp::*;
    let w = widen(x);
    let real = |f: fn(f64) -> f64| match w {
        Wide::Real(v) => Some(from_real(f(v), out)),
        _ => None,
    };
    let class = |real: fn(f64) -> bool, complex_any: bool, exact: bool| {
        Scalar::Bool(match w {
            Wide::Real(v) => real(v),
            Wide::Complex(z) if complex_any => real(z.re) || real(z.im),
            Wide::Complex(z) => real(z.re) && real(z.im),
            _ => exact,
        })
    };
    match op {
        Floor | Ceil | Round | Trunc if matches!(w, Wide::Int(_)) => Some(narrow(w, out)),
        Floor => real(f64::floor),
        Ceil => real(f64::ceil),
        Round => real(f64::round_ties_even),
        Trunc => real(f64::trunc),
        Log1p => real(f64::ln_1p),
        Expm1 => real(f64::exp_m1),
        Tan => real(f64::tan),
        Atan => real(f64::atan),
        Asin => real(f64::asin),
        Acos => real(f64::acos),
        Sinh => real(f64::sinh),
        Cosh => real(f64::cosh),
        // The definition 1/(1+e^−x), in the form that keeps tiny results for x < 0.
        Sigmoid => real(|v| {
            if v < 0.0 {
                v.exp() / (1.0 + v.exp())
            } else {
                1.0 / (1.0 + (-v).exp())
            }
        }),
        Sign => match w {
            Wide::Int(v) => Some(from_int(v.signum(), out)),
            Wide::Real(v) if v.is_nan() => Some(from_real(v, out)),
            Wide::Real(v) => Some(from_real(
                if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                },
                out,
            )),
            _ => None,
        },
        IsNan => Some(class(f64::is_nan, true, false)),
        IsInf => Some(class(f64::is_infinite, true, false)),
        IsFinite => Some(class(f64::is_finite, false, true)),
        Real => Some(match w {
            Wide::Complex(z) => from_real(z.re, out),
            other => narrow(other, out),
        }),
        Imag => Some(match w {
            Wide::Complex(z) => from_real(z.im, out),
            Wide::Real(_) => from_real(0.0, out),
            _ => from_int(0, out),
        }),
        Conj => Some(match w {
            Wide::Complex(z) => from_complex(z.conj(), out),
            other => narrow(other, out),
        }),
        Angle => match w {
            Wide::Complex(z) => Some(from_real(z.im.atan2(z.re), out)),
            Wide::Real(v) => Some(from_real(0f64.atan2(v), out)),
            _ => None,
        },
        _ => None,
    }
}

/// `x − floor(x / y)·y` in exact integers; 0 for `y == 0`.
fn floor_rem(x: i128, y: i128) -> i128 {
    if y == 0 {
        return 0;
    }
    let q = if y > 0 {
        x.div_euclid(y)
    } else {
        (-x).div_euclid(-y)
    };
    x - q * y
}

/// NumPy's float `remainder`: the exact `fmod` (f64's `%`, exact for f32 operands too),
/// moved to the divisor's sign with one addition rounded to `out`, a zero given `y`'s sign.
fn float_rem(x: f64, y: f64, out: DType) -> Scalar {
    let m = x % y;
    if m.is_nan() {
        return from_real(f64::NAN, out);
    }
    if m == 0.0 {
        return from_real(if y < 0.0 { -0.0 } else { 0.0 }, out);
    }
    if (m < 0.0) == (y < 0.0) {
        return from_real(m, out);
    }
    // The addition rounded once to `out` (for f32 in f32 arithmetic; f64's sum of two f16
    // or bf16 values is exact, so rounding it is the one rounding).
    if out == DType::F32 {
        Scalar::F32(m as f32 + y as f32)
    } else {
        from_real(m + y, out)
    }
}

/// `x op y` for the operations of this module (`None`: not one of them).
pub fn binary_value(op: BinaryOp, a: Scalar, b: Scalar, out: DType) -> Option<Scalar> {
    use BinaryOp::*;
    let bits = 8 * out.size() as i128;
    Some(match (op, widen(a), widen(b)) {
        (Rem, Wide::Int(x), Wide::Int(y)) => from_int(floor_rem(x, y), out),
        (Rem, Wide::Real(x), Wide::Real(y)) => float_rem(x, y, out),
        (Shl, Wide::Int(x), Wide::Int(y)) if (0..bits).contains(&y) => {
            from_int(((x as u128) << y) as i128, out)
        }
        (Shr, Wide::Int(x), Wide::Int(y)) if (0..bits).contains(&y) => from_int(x >> y, out),
        (Shl, Wide::Int(_), Wide::Int(_)) => from_int(0, out),
        (Shr, Wide::Int(x), Wide::Int(_)) => from_int(if x < 0 { -1 } else { 0 }, out),
        (Atan2, Wide::Real(y), Wide::Real(x)) => from_real(y.atan2(x), out),
        (Hypot, Wide::Real(x), Wide::Real(y)) => from_real(x.hypot(y), out),
        (Fmin | Fmax, Wide::Real(x), Wide::Real(y)) if x.is_nan() => from_real(y, out),
        (Fmin | Fmax, Wide::Real(x), Wide::Real(y)) if y.is_nan() => from_real(x, out),
        (Fmin, Wide::Real(x), Wide::Real(y)) => from_real(if y < x { y } else { x }, out),
        (Fmax, Wide::Real(x), Wide::Real(y)) => from_real(if y > x { y } else { x }, out),
        (Fmin, Wide::Int(x), Wide::Int(y)) => from_int(x.min(y), out),
        (Fmax, Wide::Int(x), Wide::Int(y)) => from_int(x.max(y), out),
        (Fmin, Wide::Bool(x), Wide::Bool(y)) => Scalar::Bool(x & y),
        (Fmax, Wide::Bool(x), Wide::Bool(y)) => Scalar::Bool(x | y),
        _ => return None,
    })
}
