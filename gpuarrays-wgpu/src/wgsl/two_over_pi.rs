//! The bits of 2/π that `sin` and `cos` need for exact argument reduction (Payne–Hanek):
//! computed here once, with plain fixed-point integer arithmetic, rather than typed in.
//!
//! π comes from Machin's formula `π = 16 atan(1/5) − 4 atan(1/239)` in fixed point with
//! [`FRACTION_BITS`] fraction bits (plus guard bits against the truncations of the series),
//! and 2/π from bit-by-bit long division. 1,344 bits of 2/π cover the largest f64
//! (2^1024) with a 192-bit window to spare; the tests check π against its well-known first
//! words and that the two results multiply to 2.

use std::sync::OnceLock;

/// Fraction bits of 2/π produced: 42 words.
pub const FRACTION_BITS: usize = 42 * 32;

/// Guard bits carried through the series so their truncation errors stay below the result.
const GUARD_BITS: usize = 64;

/// A non-negative fixed-point number: `limbs[0]` is the integer part, `limbs[k]` the k-th
/// 32-bit word of the fraction (most significant first).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fixed {
    limbs: Vec<u32>,
}

impl Fixed {
    fn zero(words: usize) -> Fixed {
        Fixed {
            limbs: vec![0; words + 1],
        }
    }

    fn from_int(v: u32, words: usize) -> Fixed {
        let mut f = Fixed::zero(words);
        f.limbs[0] = v;
        f
    }

    fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&w| w == 0)
    }

    /// `self / d`, truncated.
    fn div_small(&self, d: u32) -> Fixed {
        let mut rem = 0u64;
        let limbs = self
            .limbs
            .iter()
            .map(|&w| {
                let cur = (rem << 32) | w as u64;
                rem = cur % d as u64;
                (cur / d as u64) as u32
            })
            .collect();
        Fixed { limbs }
    }

    /// `self · m` (no overflow of the integer part for the values used here).
    fn mul_small(&self, m: u32) -> Fixed {
        let mut carry = 0u64;
        let mut limbs = self.limbs.clone();
        for w in limbs.iter_mut().rev() {
            let cur = *w as u64 * m as u64 + carry;
            *w = cur as u32;
            carry = cur >> 32;
        }
        Fixed { limbs }
    }

    fn add(&self, o: &Fixed) -> Fixed {
        let mut carry = 0u64;
        let mut limbs = self.limbs.clone();
        for (w, &b) in limbs.iter_mut().zip(&o.limbs).rev() {
            let cur = *w as u64 + b as u64 + carry;
            *w = cur as u32;
            carry = cur >> 32;
        }
        Fixed { limbs }
    }

    /// `self − o`, for `self ≥ o`.
    fn sub(&self, o: &Fixed) -> Fixed {
        let mut borrow = 0i64;
        let mut limbs = self.limbs.clone();
        for (w, &b) in limbs.iter_mut().zip(&o.limbs).rev() {
            let cur = *w as i64 - b as i64 - borrow;
            borrow = (cur < 0) as i64;
            *w = cur.rem_euclid(1 << 32) as u32;
        }
        Fixed { limbs }
    }

    fn ge(&self, o: &Fixed) -> bool {
        self.limbs >= o.limbs
    }

    fn shl1(&self) -> Fixed {
        let mut limbs = self.limbs.clone();
        let mut carry = 0u32;
        for w in limbs.iter_mut().rev() {
            let next = *w >> 31;
            *w = (*w << 1) | carry;
            carry = next;
        }
        Fixed { limbs }
    }
}

/// `atan(1/k)` by its alternating series `Σ (−1)^n / ((2n+1) k^(2n+1))`.
fn atan_inv(k: u32, words: usize) -> Fixed {
    let k2 = k * k;
    let mut power = Fixed::from_int(1, words).div_small(k); // 1/k^(2n+1)
    let mut sum = Fixed::zero(words);
    let mut n = 0u32;
    let mut negative = Fixed::zero(words);
    while !power.is_zero() {
        let term = power.div_small(2 * n + 1);
        if n % 2 == 0 {
            sum = sum.add(&term);
        } else {
            negative = negative.add(&term);
        }
        power = power.div_small(k2);
        n += 1;
    }
    sum.sub(&negative)
}

/// π with `words` fraction words (the last few inexact).
fn pi(words: usize) -> Fixed {
    let a = atan_inv(5, words).mul_small(16);
    let b = atan_inv(239, words).mul_small(4);
    a.sub(&b)
}

fn compute() -> Vec<u32> {
    let words = (FRACTION_BITS + GUARD_BITS) / 32;
    let p = pi(words);
    // Long division of 2 by π, one quotient bit at a time (2/π < 1: no integer part).
    let mut rem = Fixed::from_int(2, words);
    let mut out = vec![0u32; FRACTION_BITS / 32];
    for bit in 0..FRACTION_BITS {
        rem = rem.shl1();
        if rem.ge(&p) {
            rem = rem.sub(&p);
            out[bit / 32] |= 1 << (31 - bit % 32);
        }
    }
    out
}

/// The first [`FRACTION_BITS`] fraction bits of 2/π as 32-bit words, most significant first.
pub fn words() -> &'static [u32] {
    static WORDS: OnceLock<Vec<u32>> = OnceLock::new();
    WORDS.get_or_init(compute)
}

/// `π/2 − f64(π/2)`: the low part of π/2 in two f64 parts.
pub fn frac_pi_2_lo() -> f64 {
    // The top 128 fraction bits of π/2 (from π, shifted right by one) against those of the
    // f64 `FRAC_PI_2 = 1 + m·2^-52`.
    let p = pi(8);
    let fraction = |k: usize| p.limbs[k] as u128;
    let pi_frac = (fraction(1) << 96) | (fraction(2) << 64) | (fraction(3) << 32) | fraction(4);
    // π/2 = 1.5 + (π − 3)/2: π − 3 = pi_frac·2^-128, so (π/2 − 1)·2^128 = 2^127 + pi_frac/2.
    let half = (1u128 << 127) + (pi_frac >> 1);
    let m = std::f64::consts::FRAC_PI_2.to_bits() & ((1u64 << 52) - 1);
    let f64_part = (m as u128) << 76;
    let diff = half as i128 - f64_part as i128;
    diff as f64 * 2f64.powi(-128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_starts_with_its_known_words() {
        // The fraction of π in hexadecimal (as in the Blowfish initial P-array).
        let p = pi(16);
        assert_eq!(p.limbs[0], 3);
        assert_eq!(
            &p.limbs[1..9],
            &[
                0x243F_6A88,
                0x85A3_08D3,
                0x1319_8A2E,
                0x0370_7344,
                0xA409_3822,
                0x299F_31D0,
                0x082E_FA98,
                0xEC4E_6C89
            ]
        );
    }

    #[test]
    fn the_low_part_of_pi_over_2_is_what_libm_uses() {
        let lo = frac_pi_2_lo();
        assert!(
            lo > 6.1232339957367e-17 && lo < 6.1232339957368e-17,
            "{lo:e}"
        );
    }

    #[test]
    fn two_over_pi_times_pi_is_two() {
        let w = words();
        assert_eq!(w.len() * 32, FRACTION_BITS);
        assert_eq!(w[0], 0xA2F9_836E, "2/π = 0.A2F9836E...");
        // (2/π)·π as a long product of fixed-point words: must be 2 − δ with δ < 2^-1300.
        let p = pi(FRACTION_BITS / 32 + 2);
        let n = w.len();
        // Product limbs, least significant first: w has n fraction words, p has n + 3 words.
        let a: Vec<u64> = w.iter().rev().map(|&x| x as u64).collect();
        let b: Vec<u64> = p.limbs.iter().rev().map(|&x| x as u64).collect();
        let mut prod = vec![0u64; a.len() + b.len() + 1];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &y) in b.iter().enumerate() {
                let cur = prod[i + j] + x * y + carry;
                prod[i + j] = cur & 0xFFFF_FFFF;
                carry = cur >> 32;
            }
            let mut k = i + b.len();
            while carry > 0 {
                let cur = prod[k] + carry;
                prod[k] = cur & 0xFFFF_FFFF;
                carry = cur >> 32;
                k += 1;
            }
        }
        // Fraction words of the product: a has n, b has b.len() − 1; the integer part follows.
        let frac_words = n + b.len() - 1;
        let int_part = prod[frac_words];
        let top = prod[frac_words - 1];
        // 2 − δ: integer part 1 and a fraction of all ones for the first ~40 words.
        assert_eq!(int_part, 1, "(2/π)·π has integer part {int_part}");
        for k in 1..=40 {
            assert_eq!(
                prod[frac_words - k],
                0xFFFF_FFFF,
                "fraction word {k} of (2/π)·π (top {top:#x})"
            );
        }
    }
}
