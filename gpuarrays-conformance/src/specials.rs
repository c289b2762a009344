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

use gpuarrays_core::{Complex32, Complex64, DType, Scalar, bf16, f16};

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

/// The special real values of f16 and bf16 (`bf` true), as f64 values that [`half_specials`]
/// rounds into the type (NaNs aside, which it adds by their bits): the float list's classes
/// at the format's own limits, and the limits of casts to the narrow integers.
fn half_values(bf: bool) -> Vec<f64> {
    // The smallest subnormal, the smallest normal, ε, MAX; ln MAX and ln(smallest subnormal).
    let (sub, tiny, eps, max, exp_over, exp_under) = if bf {
        (
            2f64.powi(-133),
            2f64.powi(-126),
            2f64.powi(-7),
            3.3895313892515355e38,
            89.0,
            -93.0,
        )
    } else {
        (
            2f64.powi(-24),
            2f64.powi(-14),
            2f64.powi(-10),
            65504.0,
            11.125,
            -17.5,
        )
    };
    let mut v = vec![
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.0,
        sub,
        -sub,
        // The largest subnormal, and one in the middle of the range.
        tiny - sub,
        -tiny / 2.0,
        tiny,
        -tiny,
        eps,
        max,
        -max,
        // Squares overflow (both formats: 2^8 · 2^(emax/2) is far below MAX).
        if bf { 3.6893488147419103e19 } else { 512.0 },
        -max / 2.0,
        exp_over,
        exp_under,
        // The narrow integer casts' limits, and the wider ones the format reaches.
        127.5,
        128.0,
        -128.5,
        -129.0,
        255.5,
        256.0,
        32768.0,
        -40000.0,
        -1.5,
    ];
    if bf {
        v.extend([
            2147483648.0,
            -2147483648.0,
            4294967296.0,
            9223372036854775808.0,
        ]);
    } else {
        // Where consecutive f16 values are 2 apart (integers stop being exact).
        v.extend([2048.0, 2050.0]);
    }
    v
}

/// The special values of f16 or bf16 (`dtype`).
fn half_specials(dtype: DType) -> Vec<Scalar> {
    let bf = dtype == DType::BF16;
    // NaN of both signs and with a payload, by their bits.
    let nans: [u16; 3] = if bf {
        [0x7fc0, 0xffc0, 0x7f91]
    } else {
        [0x7e00, 0xfe00, 0x7d12]
    };
    let of_bits = |b: u16| {
        if bf {
            Scalar::BF16(bf16::from_bits(b))
        } else {
            Scalar::F16(f16::from_bits(b))
        }
    };
    let of_value = |x: f64| {
        if bf {
            Scalar::BF16(bf16::from_f64(x))
        } else {
            Scalar::F16(f16::from_f64(x))
        }
    };
    nans.into_iter()
        .map(of_bits)
        .chain(half_values(bf).into_iter().map(of_value))
        .collect()
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
const INTEGERS: [i128; 29] = [
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
    -128,
    -129,
    32767,
    32768,
    -32768,
    65535,
    65536,
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
        DType::F16 | DType::BF16 => half_specials(dtype),
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
        DType::I8 => Scalar::I8(x as i8),
        DType::U8 => Scalar::U8(x as u8),
        DType::I16 => Scalar::I16(x as i16),
        DType::U16 => Scalar::U16(x as u16),
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
