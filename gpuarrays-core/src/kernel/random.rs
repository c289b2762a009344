//! Counter-based random numbers: the exact recipe every backend follows, so one seed gives
//! the same array on every backend (to within the rounding of `log`/`cos` for normals).
//!
//! The generator is a stream of 32-bit words for seed `s`: Philox call `c` (`c = 0, 1, ...`),
//! `r = philox4x32_10(counter = [lo32(c), hi32(c), 0, 0], key = [lo32(s), hi32(s)])`, gives
//! words `4c .. 4c + 3` of the stream. A draw takes `w` words ([`words_per_element`]: 1 for a
//! uniform f32, 2 for a uniform f64 or a normal f32, 4 for a normal f64), and element `i`
//! (linear index into the output, row-major) takes words `w·i .. w·i + w − 1` — so one Philox
//! call feeds `4/w` consecutive elements, and a GPU thread writes them with one vector store.
//! With `r` the element's words ([`element_words`]):
//! 1. uniform f32: `(r0 >> 8) · 2⁻²⁴` in [0, 1);
//!    uniform f64: `((r0 >> 5) · 2²⁶ + (r1 >> 6)) · 2⁻⁵³` in [0, 1);
//! 2. normal (Box–Muller, cosine branch, computed in the output type):
//!    f32: `u1 = ((r0 >> 8) + 1) · 2⁻²⁴` in (0, 1], `u2 = (r1 >> 8) · 2⁻²⁴`;
//!    f64: `u1 = uniform_f64(r0, r1) + 2⁻⁵³`, `u2 = uniform_f64(r2, r3)`;
//!    `z = sqrt(-2 ln u1) · cos(2π u2)`.
//!
//! Every step before the final `ln`/`cos`/`sqrt` is exact integer or exactly-representable
//! float arithmetic, so uniforms are bit-identical across backends.
//!
//! Philox4x32-10 is from Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as
//! 1, 2, 3" (SC'11); the tests below use the known-answer vectors of its reference code.

use crate::dtype::DType;

/// Which distribution a random leaf draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// Uniform on [0, 1).
    Uniform,
    /// Standard normal (mean 0, variance 1).
    Normal,
}

impl Distribution {
    pub const fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Normal => "normal",
        }
    }
}

pub const PHILOX_M0: u32 = 0xD251_1F53;
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
pub const PHILOX_W0: u32 = 0x9E37_79B9;
pub const PHILOX_W1: u32 = 0xBB67_AE85;

fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// Philox4x32 with 10 rounds.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for round in 0..10 {
        if round > 0 {
            k0 = k0.wrapping_add(PHILOX_W0);
            k1 = k1.wrapping_add(PHILOX_W1);
        }
        let (hi0, lo0) = mulhilo(PHILOX_M0, c0);
        let (hi1, lo1) = mulhilo(PHILOX_M1, c2);
        (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
    }
    [c0, c1, c2, c3]
}

/// The four words of Philox call `counter` for `seed` (words `4·counter ..` of the stream).
pub fn philox_words(seed: u64, counter: u64) -> [u32; 4] {
    philox4x32_10(
        [counter as u32, (counter >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// Stream words one draw of `dist` in `dtype` takes (1, 2 or 4; f32 or f64 only).
pub fn words_per_element(dist: Distribution, dtype: DType) -> u32 {
    match (dist, dtype) {
        (Distribution::Uniform, DType::F64) | (Distribution::Normal, DType::F32) => 2,
        (Distribution::Normal, DType::F64) => 4,
        _ => 1,
    }
}

/// The words of element `index` for `seed` when each element takes `per` words (1, 2 or 4):
/// stream words `per·index ..`, in `[0..per]`, the rest zero.
pub fn element_words(seed: u64, index: u64, per: u32) -> [u32; 4] {
    let first = index * per as u64;
    let r = philox_words(seed, first / 4);
    let at = (first % 4) as usize;
    let mut w = [0u32; 4];
    w[..per as usize].copy_from_slice(&r[at..at + per as usize]);
    w
}

const TWO_POW_M24: f32 = 1.0 / 16_777_216.0;
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

pub fn uniform_f32(r: [u32; 4]) -> f32 {
    (r[0] >> 8) as f32 * TWO_POW_M24
}

fn unit_f64(a: u32, b: u32) -> f64 {
    ((a >> 5) as f64 * 67_108_864.0 + (b >> 6) as f64) * TWO_POW_M53
}

pub fn uniform_f64(r: [u32; 4]) -> f64 {
    unit_f64(r[0], r[1])
}

pub fn normal_f32(r: [u32; 4]) -> f32 {
    let u1 = ((r[0] >> 8) + 1) as f32 * TWO_POW_M24;
    let u2 = (r[1] >> 8) as f32 * TWO_POW_M24;
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

pub fn normal_f64(r: [u32; 4]) -> f64 {
    let u1 = unit_f64(r[0], r[1]) + TWO_POW_M53;
    let u2 = unit_f64(r[2], r[3]);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn elements_take_consecutive_words_of_the_stream() {
        let stream: Vec<u32> = (0..8).flat_map(|c| philox_words(9, c)).collect();
        for per in [1u32, 2, 4] {
            for i in 0..8u64 {
                let w = element_words(9, i, per);
                let first = (i * per as u64) as usize;
                assert_eq!(&w[..per as usize], &stream[first..first + per as usize]);
                assert!(w[per as usize..].iter().all(|&x| x == 0));
            }
        }
        assert_eq!(words_per_element(Distribution::Uniform, DType::F32), 1);
        assert_eq!(words_per_element(Distribution::Normal, DType::F64), 4);
    }

    #[test]
    fn distributions_have_the_right_moments() {
        let n = 200_000u64;
        let (mut su, mut sn, mut sn2) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..n {
            let r = philox_words(42, i);
            let u = uniform_f64(r);
            assert!((0.0..1.0).contains(&u) && (0.0..1.0).contains(&uniform_f32(r)));
            su += u;
            let z = normal_f64(r);
            assert!(z.is_finite() && normal_f32(r).is_finite());
            sn += z;
            sn2 += z * z;
        }
        let nf = n as f64;
        assert!((su / nf - 0.5).abs() < 0.005, "uniform mean {}", su / nf);
        assert!((sn / nf).abs() < 0.01, "normal mean {}", sn / nf);
        assert!(
            (sn2 / nf - 1.0).abs() < 0.02,
            "normal variance {}",
            sn2 / nf
        );
    }
}
