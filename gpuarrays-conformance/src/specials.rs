//! The special values of every element type: the inputs on which backends go wrong first.
//!
//! - floats: NaN of both signs and with a payload, ±inf, ±0, the smallest and largest
//!   subnormals, the smallest normal, ε, ±MAX, values whose square or `exp` overflows,
//!   values at the integer-cast limits (±2^31, 2^32, ±2^63, 2^64, 255.5, 256) and just
//!   inside them;
//! - complex: every pair of a set of parts (±0, 1, -1.5, NaN, ±inf, a subnormal, MAX, a
//!   huge value), so one part can be non-finite while the other is not;
//! - integers: 0, ±1, ±2, MIN, MAX, MIN + 1, MAX − 1, values that wrap when narrowed;
//! - bool: both.
//!
//! Cases use them in two ways: mixed into random values ([`crate::values::Profile`]), and
//! all of them in a fixed order (every unary operation sees each one; a binary operation
//! over a broadcast column and row sees every pair).

use gpuarrays_core::{Complex32, Complex64, DType, Scalar};

macro_rules! float_specials {
    ($t:ident, $bits:ty, $payload:expr, $exp_over:expr, $exp_under:expr) => {{
        let v: Vec<$t> = vec![
            $t::NAN,
            -$t::NAN,
            $t::from_bits($payload),
            $t::INFINITY,
            $t::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -2.5,
            3.0,
            $t::from_bits(1),
            -$t::from_bits(1),
            // The largest subnormal, and one in the middle of the range.
            $t::from_bits(($t::MIN_POSITIVE.to_bits() - 1) as $bits),
            -$t::from_bits(($t::MIN_POSITIVE.to_bits() / 2) as $bits),
            $t::MIN_POSITIVE,
            -$t::MIN_POSITIVE,
            $t::EPSILON,
            $t::MAX,
            $t::MIN,
            // Squares overflow; sums of two do not.
            $t::MAX.sqrt() * 2.0,
            -$t::MAX / 2.0,
            // `exp` overflows just above the first and underflows below the second.
            $exp_over,
            $exp_under,
            // The integer-cast limits (powers of two are exact in both float types).
            2147483648.0,
            -2147483648.0,
            4294967296.0,
            9223372036854775808.0,
            -9223372036854775808.0,
            18446744073709551616.0,
            255.5,
            256.0,
            -1.5,
            // Just inside the positive limits, and just past the negative one.
            $t::from_bits((2147483648.0 as $t).to_bits() - 1),
            $t::from_bits((9223372036854775808.0 as $t).to_bits() - 1),
            -$t::from_bits((2147483648.0 as $t).to_bits() + 1),
        ];
        v
    }};
}

/// The special real values of f32.
pub fn f32_specials() -> Vec<f32> {
    float_specials!(f32, u32, 0x7fc0_1234u32, 88.5f32, -104.0f32)
}

/// The special real values of f64.
pub fn f64_specials() -> Vec<f64> {
    float_specials!(f64, u64, 0x7ff8_0000_0000_1234u64, 709.5f64, -745.5f64)
}

/// Parts of the special complex values, for a complex type whose parts are `real`.
fn complex_parts(real: DType) -> Vec<f64> {
    let (sub, max, huge) = match real {
        DType::F32 => (
            f32::from_bits(3) as f64,
            f32::MAX as f64,
            f32::MAX.sqrt() as f64 * 2.0,
        ),
        _ => (f64::from_bits(3), f64::MAX, f64::MAX.sqrt() * 2.0),
    };
    vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        sub,
        max,
        -huge,
    ]
}

/// A complex value of `dtype` (C32 or C64) from f64 parts (exact for the parts above).
pub fn complex(dtype: DType, re: f64, im: f64) -> Scalar {
    match dtype {
        DType::C32 => Scalar::C32(Complex32::new(re as f32, im as f32)),
        _ => Scalar::C64(Complex64::new(re, im)),
    }
}

/// Integers of every width, taken modulo 2^bits of the target (as `as` does).
const INTEGERS: [i128; 22] = [
    0,
    1,
    -1,
    2,
    -2,
    7,
    -7,
    127,
    128,
    255,
    256,
    i32::MIN as i128,
    i32::MAX as i128,
    i32::MIN as i128 + 1,
    i32::MAX as i128 - 1,
    u32::MAX as i128,
    i64::MIN as i128,
    i64::MAX as i128,
    i64::MIN as i128 + 1,
    i64::MAX as i128 - 1,
    u64::MAX as i128,
    0x5555_5555_5555_5555,
];

/// Every special value of `dtype`, in a fixed order, without repeats within integer types
/// where narrowing makes two of the table's values equal.
pub fn specials(dtype: DType) -> Vec<Scalar> {
    match dtype {
        DType::Bool => vec![Scalar::Bool(false), Scalar::Bool(true)],
        DType::F32 => f32_specials().into_iter().map(Scalar::F32).collect(),
        DType::F64 => f64_specials().into_iter().map(Scalar::F64).collect(),
        DType::C32 | DType::C64 => {
            let parts = complex_parts(dtype.real());
            let mut v = Vec::with_capacity(parts.len() * parts.len());
            for &re in &parts {
                for &im in &parts {
                    v.push(complex(dtype, re, im));
                }
            }
            v
        }
        _ => {
            let mut v: Vec<Scalar> = Vec::new();
            for x in INTEGERS {
                let s = wrap(x, dtype);
                if !v.contains(&s) {
                    v.push(s);
                }
            }
            v
        }
    }
}

/// An integer of `dtype` from `x` modulo 2^bits.
fn wrap(x: i128, dtype: DType) -> Scalar {
    match dtype {
        DType::U8 => Scalar::U8(x as u8),
        DType::I32 => Scalar::I32(x as i32),
        DType::U32 => Scalar::U32(x as u32),
        DType::I64 => Scalar::I64(x as i64),
        _ => Scalar::U64(x as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_cover_every_class() {
        let v = f32_specials();
        assert!(v.iter().any(|x| x.is_nan() && x.is_sign_negative()));
        assert!(v.iter().any(|x| x.is_nan() && x.to_bits() & 0x3f_ffff != 0));
        assert!(v.iter().any(|x| x.is_subnormal() && x.is_sign_negative()));
        assert!(v.iter().any(|x| *x == 0.0 && x.is_sign_negative()));
        assert!(v.iter().any(|x| (x * x).is_infinite() && x.is_finite()));
        assert!(f64_specials().iter().any(|x| x.is_subnormal()));
        assert_eq!(f32_specials().len(), f64_specials().len());
    }

    #[test]
    fn complex_values_have_one_non_finite_part() {
        let v = specials(DType::C32);
        assert!(v.iter().any(|s| matches!(s,
            Scalar::C32(z) if z.re.is_finite() && z.im.is_infinite())));
        assert!(v.iter().any(|s| matches!(s,
            Scalar::C32(z) if z.re.is_nan() && z.im == 0.0)));
    }

    #[test]
    fn integers_include_the_limits_once() {
        let v = specials(DType::U8);
        assert!(v.contains(&Scalar::U8(0)) && v.contains(&Scalar::U8(255)));
        let mut sorted: Vec<u8> = v
            .iter()
            .map(|s| match s {
                Scalar::U8(x) => *x,
                _ => 0,
            })
            .collect();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), v.len());
        assert!(specials(DType::I64).contains(&Scalar::I64(i64::MIN)));
    }
}
