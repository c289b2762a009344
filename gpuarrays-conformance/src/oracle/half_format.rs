//! The oracle's own f16 and bf16: decoding their bits to an exact f64, and rounding an f64
//! to nearest (ties to even) in each format, written from the formats' definitions (IEEE
//! 754 binary16; bfloat16 = binary32 with 7 fraction bits). The `half` crate, which the
//! backends convert with, is used only as the container of the bits.

use gpuarrays_core::{bf16, f16};

/// One of the two 16-bit float formats: 1 sign bit, `exp_bits`, `frac_bits`.
#[derive(Debug, Clone, Copy)]
struct Format {
    exp_bits: u32,
    frac_bits: u32,
}

const F16: Format = Format {
    exp_bits: 5,
    frac_bits: 10,
};
const BF16: Format = Format {
    exp_bits: 8,
    frac_bits: 7,
};

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// The exponent of the smallest normal.
    fn emin(self) -> i32 {
        1 - self.bias()
    }
    fn max_exp_field(self) -> u32 {
        (1 << self.exp_bits) - 1
    }

    /// The exact value of `bits`.
    fn decode(self, bits: u16) -> f64 {
        let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
        let exp = (u32::from(bits) >> self.frac_bits) & self.max_exp_field();
        let frac = u32::from(bits) & ((1 << self.frac_bits) - 1);
        let frac_f = f64::from(frac) / f64::from(1u32 << self.frac_bits);
        if exp == self.max_exp_field() {
            return if frac == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if exp == 0 {
            return sign * frac_f * 2f64.powi(self.emin());
        }
        sign * (1.0 + frac_f) * 2f64.powi(exp as i32 - self.bias())
    }

    /// `x` rounded to nearest, ties to even, as the exact f64 of the result (±infinity past
    /// the largest finite value's rounding boundary).
    fn round(self, x: f64) -> f64 {
        if !x.is_finite() || x == 0.0 {
            return x;
        }
        let p = self.frac_bits as i32 + 1;
        // The binade of |x|: 2^e <= |x| < 2^(e+1) (f64 subnormals are far below both
        // formats' smallest subnormal and round to zero with any e at or below emin).
        let e = binade(x.abs());
        let quantum = e.max(self.emin()) - (p - 1);
        let scale = 2f64.powi(quantum);
        // Dividing by a power of two is exact here (no f64 overflow or underflow in range).
        let y = (x / scale).round_ties_even() * scale;
        let largest = (2.0 - 2f64.powi(1 - p)) * 2f64.powi(self.bias());
        if y.abs() > largest {
            x.signum() * f64::INFINITY
        } else {
            y
        }
    }

    /// The bits of `v`, a value of this format (the result of [`Format::round`]).
    fn encode(self, v: f64) -> u16 {
        let sign: u32 = if v.is_sign_negative() { 1 << 15 } else { 0 };
        let body = if v.is_nan() {
            (self.max_exp_field() << self.frac_bits) | (1 << (self.frac_bits - 1))
        } else if v.is_infinite() {
            self.max_exp_field() << self.frac_bits
        } else if v == 0.0 {
            0
        } else {
            let a = v.abs();
            let min_normal = 2f64.powi(self.emin());
            if a < min_normal {
                (a / 2f64.powi(self.emin() - self.frac_bits as i32)) as u32
            } else {
                let e = binade(a);
                let frac = (a / 2f64.powi(e) - 1.0) * f64::from(1u32 << self.frac_bits);
                (((e + self.bias()) as u32) << self.frac_bits) | frac as u32
            }
        };
        (sign | body) as u16
    }
}

/// The `e` with `2^e <= a < 2^(e+1)`, for a positive finite `a` (`log2` may be off by one
/// next to a power of two; the two checks put it right).
fn binade(a: f64) -> i32 {
    let mut e = a.log2().floor() as i32;
    if 2f64.powi(e) > a {
        e -= 1;
    }
    if 2f64.powi(e + 1) <= a {
        e += 1;
    }
    e
}

/// The exact value of an f16.
pub fn f16_value(x: f16) -> f64 {
    F16.decode(x.to_bits())
}

/// The exact value of a bf16.
pub fn bf16_value(x: bf16) -> f64 {
    BF16.decode(x.to_bits())
}

/// `x` rounded once to f16.
pub fn to_f16(x: f64) -> f16 {
    f16::from_bits(F16.encode(F16.round(x)))
}

/// `x` rounded once to bf16.
pub fn to_bf16(x: f64) -> bf16 {
    bf16::from_bits(BF16.encode(BF16.round(x)))
}

/// `x` rounded to f16 or bf16 (`half` says which), as an f64.
pub fn round_half(bf: bool, x: f64) -> f64 {
    if bf { BF16.round(x) } else { F16.round(x) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f16 and bf16 bit pattern decodes and re-encodes to itself (NaNs to a NaN),
    /// and agrees with the `half` crate's widening: two independent readings of the formats.
    #[test]
    fn every_bit_pattern_round_trips() {
        for bits in 0..=u16::MAX {
            for (fmt, theirs) in [
                (F16, f16::from_bits(bits).to_f64()),
                (BF16, bf16::from_bits(bits).to_f64()),
            ] {
                let v = fmt.decode(bits);
                if v.is_nan() {
                    assert!(theirs.is_nan());
                    continue;
                }
                assert_eq!(v.to_bits(), theirs.to_bits(), "{bits:#06x}");
                assert_eq!(fmt.round(v), v);
                assert_eq!(fmt.encode(v), bits, "{bits:#06x}");
            }
        }
    }

    #[test]
    fn rounding_is_to_nearest_even_with_overflow_to_infinity() {
        // Ties between 1 and 1 + 2^-10 go to even (1); just above goes up.
        assert_eq!(F16.round(1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(
            F16.round(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
            1.0 + 2f64.powi(-10)
        );
        assert_eq!(F16.round(65519.0), 65504.0);
        assert_eq!(F16.round(65520.0), f64::INFINITY);
        assert_eq!(F16.round(-1e10), f64::NEG_INFINITY);
        // The smallest subnormal 2^-24; half of it ties to 0.
        assert_eq!(F16.round(2f64.powi(-25)), 0.0);
        assert_eq!(F16.round(1.5 * 2f64.powi(-25)), 2f64.powi(-24));
        assert_eq!(
            BF16.round(1.0 + 2f64.powi(-8) + 2f64.powi(-30)),
            1.0 + 2f64.powi(-7)
        );
    }
}
