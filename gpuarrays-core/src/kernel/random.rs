//! Counter-based random numbers: the exact recipe every backend follows, so one seed gives
//! the same array on every backend (to within the rounding of `log`/`cos`/`sin` for normals).
//!
//! The generator is a stream of 32-bit words for seed `s`: Philox call `c` (`c = 0, 1, ...`),
//! `r = philox4x32_10(counter = [lo32(c), hi32(c), 0, 0], key = [lo32(s), hi32(s)])`, gives
//! words `4c .. 4c + 3` of the stream. The stream is cut into *draws*: draw `d` takes `w`
//! consecutive words ([`words_per_draw`]: 1 for a uniform f32, 2 for a uniform f64 or a
//! normal f32 pair, 4 for a normal f64 pair), stream words `w·d .. w·d + w − 1`, and yields
//! `e` consecutive elements ([`elements_per_draw`]: 1 for a uniform, 2 for a normal — both
//! branches of Box–Muller). Element `i` (linear index into the output, row-major) is output
//! `i mod e` of draw `⌊i / e⌋`, so the element → words mapping is a pure function of (seed,
//! index): any slice, offset or split between threads gives the same values. One Philox call
//! feeds `4/w` draws: 4 uniform f32, 2 uniform f64, 4 normal f32 or 2 normal f64 elements,
//! which a GPU thread writes with one vector store.
//!
//! With `r` the draw's words ([`draw_words`]):
//! 1. uniform f32: `(r0 >> 8) · 2⁻²⁴` in [0, 1);
//!    uniform f64: `((r0 >> 5) · 2²⁶ + (r1 >> 6)) · 2⁻⁵³` in [0, 1);
//! 2. normal pair (Box–Muller, computed in the output type):
//!    f32: `u1 = ((r0 >> 8) + 1) · 2⁻²⁴` in (0, 1], `u2 = (r1 >> 8) · 2⁻²⁴`;
//!    f64: `u1 = uniform_f64(r0, r1) + 2⁻⁵³`, `u2 = uniform_f64(r2, r3)`;
//!    `ρ = sqrt(-2 ln u1)`, `θ = 2π · u2` (one rounded product in the output type), and the
//!    pair is `(ρ · cos θ, ρ · sin θ)`: element `2k` the cosine, `2k + 1` the sine.
//!
//! 3. f16 and bf16 (`p` = 11 or 8 significant bits): a uniform takes one word,
//!    `(r0 >> (32 − p)) · 2⁻ᵖ`, exact in the type and in [0, 1) (rounding an f32 uniform
//!    could give 1); a normal pair is the f32 pair, each element rounded once to the type.
//!
//! Every step before the final `ln`/`sqrt`/`cos`/`sin` is exact integer or exactly-rounded
//! float arithmetic (the product `θ` is one correctly rounded multiplication everywhere), so
//! uniforms are bit-identical across backends and normals differ only by the rounding of
//! those functions. (`θ` is deliberately not evaluated as `sincospi(2·u2)`: that is the
//! exact angle, which differs from the rounded `θ` by up to ~3 units in the last place of
//! `ρ`, most of the tolerance the backends are held to.)
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

/// The word operations Philox needs. The rounds are written once, in [`philox_rounds`], over
/// this trait: [`Words`] evaluates them on `u32`s (the CPU reference and the conformance
/// oracle), and the primitive IR's builder records them as instructions
/// ([`crate::kernel::lowered`]), which the GPU code printers print.
pub trait PhiloxOps {
    /// A 32-bit word (a value, or a reference to one).
    type W: Copy;
    fn word(&mut self, v: u32) -> Self::W;
    /// `a + b` modulo 2³².
    fn add(&mut self, a: Self::W, b: Self::W) -> Self::W;
    fn xor(&mut self, a: Self::W, b: Self::W) -> Self::W;
    /// The 64-bit product `a·b` as (high word, low word).
    fn mul_hi_lo(&mut self, a: Self::W, b: Self::W) -> (Self::W, Self::W);
}

/// [`PhiloxOps`] on plain `u32` words.
#[derive(Debug, Clone, Copy, Default)]
pub struct Words;

impl PhiloxOps for Words {
    type W = u32;
    #[inline(always)]
    fn word(&mut self, v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn add(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn xor(&mut self, a: u32, b: u32) -> u32 {
        a ^ b
    }
    #[inline(always)]
    fn mul_hi_lo(&mut self, a: u32, b: u32) -> (u32, u32) {
        let p = a as u64 * b as u64;
        ((p >> 32) as u32, p as u32)
    }
}

/// The ten rounds of Philox4x32-10 over any [`PhiloxOps`]: the one definition of the block
/// function.
#[inline(always)]
pub fn philox_rounds<O: PhiloxOps>(o: &mut O, counter: [O::W; 4], key: [O::W; 2]) -> [O::W; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    let (m0, m1) = (o.word(PHILOX_M0), o.word(PHILOX_M1));
    let (w0, w1) = (o.word(PHILOX_W0), o.word(PHILOX_W1));
    for round in 0..10 {
        if round > 0 {
            k0 = o.add(k0, w0);
            k1 = o.add(k1, w1);
        }
        let (hi0, lo0) = o.mul_hi_lo(m0, c0);
        let (hi1, lo1) = o.mul_hi_lo(m1, c2);
        let x = o.xor(hi1, c1);
        let n0 = o.xor(x, k0);
        let y = o.xor(hi0, c3);
        let n2 = o.xor(y, k1);
        (c0, c1, c2, c3) = (n0, lo1, n2, lo0);
    }
    [c0, c1, c2, c3]
}

/// Philox4x32 with 10 rounds.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox_rounds(&mut Words, counter, key)
}

/// The four words of Philox call `counter` for `seed` (words `4·counter ..` of the stream).
pub fn philox_words(seed: u64, counter: u64) -> [u32; 4] {
    philox4x32_10(
        [counter as u32, (counter >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// Stream words one draw of `dist` in `dtype` takes (1, 2 or 4; float types only).
pub fn words_per_draw(dist: Distribution, dtype: DType) -> u32 {
    match (dist, dtype) {
        (Distribution::Uniform, DType::F64)
        | (Distribution::Normal, DType::F32 | DType::F16 | DType::BF16) => 2,
        (Distribution::Normal, DType::F64) => 4,
        _ => 1,
    }
}

/// Consecutive elements one draw of `dist` yields: 1 for a uniform, 2 for a normal (the
/// cosine and the sine branch of one Box–Muller pair).
pub fn elements_per_draw(dist: Distribution) -> u32 {
    match dist {
        Distribution::Uniform => 1,
        Distribution::Normal => 2,
    }
}

/// The words of draw `draw` for `seed` when each draw takes `per` words (1, 2 or 4):
/// stream words `per·draw ..`, in `[0..per]`, the rest zero.
pub fn draw_words(seed: u64, draw: u64, per: u32) -> [u32; 4] {
    let first = draw * per as u64;
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

/// A uniform f16 (`bits` 11) or bf16 (`bits` 8) draw, as the f32 that holds it exactly.
pub fn uniform_half(r: [u32; 4], bits: u32) -> f32 {
    (r[0] >> (32 - bits)) as f32 / (1u32 << bits) as f32
}

fn unit_f64(a: u32, b: u32) -> f64 {
    ((a >> 5) as f64 * 67_108_864.0 + (b >> 6) as f64) * TWO_POW_M53
}

pub fn uniform_f64(r: [u32; 4]) -> f64 {
    unit_f64(r[0], r[1])
}

/// The Box–Muller pair `(ρ·cos θ, ρ·sin θ)` of a normal f32 draw.
pub fn normal_f32(r: [u32; 4]) -> [f32; 2] {
    let u1 = ((r[0] >> 8) + 1) as f32 * TWO_POW_M24;
    let u2 = (r[1] >> 8) as f32 * TWO_POW_M24;
    let rho = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f32::consts::TAU * u2).sin_cos();
    [rho * c, rho * s]
}

/// The Box–Muller pair `(ρ·cos θ, ρ·sin θ)` of a normal f64 draw.
pub fn normal_f64(r: [u32; 4]) -> [f64; 2] {
    let u1 = unit_f64(r[0], r[1]) + TWO_POW_M53;
    let u2 = unit_f64(r[2], r[3]);
    let rho = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    [rho * c, rho * s]
}

/// Elements `start .. start + len` of the draws `draw` makes from words of `seed` (`per`
/// words a draw, `E` elements a draw): each draw computed once, a pair split by `start` or
/// by the end computed whole and cut.
pub fn elements<T: Copy, const E: usize, F: Fn([u32; 4]) -> [T; E]>(
    seed: u64,
    per: u32,
    start: u64,
    len: usize,
    draw: F,
) -> Elements<T, E, F> {
    Elements {
        seed,
        per,
        next: start,
        end: start + len as u64,
        draw,
        cached: None,
    }
}

/// The iterator of [`elements`].
pub struct Elements<T, const E: usize, F> {
    seed: u64,
    per: u32,
    next: u64,
    end: u64,
    draw: F,
    /// The last draw computed and its index.
    cached: Option<(u64, [T; E])>,
}

impl<T: Copy, const E: usize, F: Fn([u32; 4]) -> [T; E]> Iterator for Elements<T, E, F> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.next >= self.end {
            return None;
        }
        let (d, k) = (self.next / E as u64, (self.next % E as u64) as usize);
        self.next += 1;
        let values = match self.cached {
            Some((c, v)) if c == d => v,
            _ => {
                let v = (self.draw)(draw_words(self.seed, d, self.per));
                self.cached = Some((d, v));
                v
            }
        };
        Some(values[k])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl<T: Copy, const E: usize, F: Fn([u32; 4]) -> [T; E]> ExactSizeIterator for Elements<T, E, F> {}

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
    fn draws_take_consecutive_words_of_the_stream() {
        let stream: Vec<u32> = (0..8).flat_map(|c| philox_words(9, c)).collect();
        for per in [1u32, 2, 4] {
            for d in 0..8u64 {
                let w = draw_words(9, d, per);
                let first = (d * per as u64) as usize;
                assert_eq!(&w[..per as usize], &stream[first..first + per as usize]);
                assert!(w[per as usize..].iter().all(|&x| x == 0));
            }
        }
        assert_eq!(words_per_draw(Distribution::Uniform, DType::F32), 1);
        assert_eq!(words_per_draw(Distribution::Normal, DType::F32), 2);
        assert_eq!(words_per_draw(Distribution::Normal, DType::F64), 4);
        assert_eq!(elements_per_draw(Distribution::Normal), 2);
    }

    #[test]
    fn any_split_of_the_elements_gives_the_same_values() {
        let whole: Vec<f32> = elements(5, 2, 0, 41, normal_f32).collect();
        assert_eq!(whole.len(), 41);
        for start in [0usize, 1, 2, 3, 7, 40] {
            for len in [0usize, 1, 2, 3, 41 - start] {
                let len = len.min(41 - start);
                let part: Vec<f32> = elements(5, 2, start as u64, len, normal_f32).collect();
                assert_eq!(part, whole[start..start + len], "start {start} len {len}");
            }
        }
        let uniform: Vec<f64> = elements(5, 2, 3, 4, |r| [uniform_f64(r)]).collect();
        let want: Vec<f64> = (3..7).map(|d| uniform_f64(draw_words(5, d, 2))).collect();
        assert_eq!(uniform, want);
    }

    #[test]
    fn a_normal_pair_is_the_cosine_and_sine_of_one_angle() {
        // Element 2k is ρ·cos θ and 2k + 1 is ρ·sin θ: the pair's squared norm is -2 ln u1,
        // and u1 comes from the first word of the pair's draw.
        for d in 0..64u64 {
            let r = draw_words(3, d, 4);
            let [c, s] = normal_f64(r);
            let u1 = (((r[0] >> 5) as u64) << 26 | (r[1] >> 6) as u64) as f64 / 2f64.powi(53)
                + 2f64.powi(-53);
            let rho2 = -2.0 * u1.ln();
            assert!(
                (c * c + s * s - rho2).abs() <= 1e-12 * (1.0 + rho2),
                "draw {d}"
            );
            let r = draw_words(3, d, 2);
            let [c, s] = normal_f32(r);
            let u1 = ((r[0] >> 8) + 1) as f64 / 2f64.powi(24);
            let rho2 = -2.0 * u1.ln();
            let got = (c as f64).powi(2) + (s as f64).powi(2);
            assert!((got - rho2).abs() <= 1e-5 * (1.0 + rho2), "draw {d}");
        }
    }

    #[test]
    fn distributions_have_the_right_moments() {
        let n = 200_000u64;
        let (mut su, mut sn, mut sn2, mut cs) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for i in 0..n {
            let r = philox_words(42, i);
            let u = uniform_f64(r);
            assert!((0.0..1.0).contains(&u) && (0.0..1.0).contains(&uniform_f32(r)));
            su += u;
            let [c, s] = normal_f64(r);
            assert!(c.is_finite() && s.is_finite());
            assert!(normal_f32(r).iter().all(|z| z.is_finite()));
            sn += c + s;
            sn2 += c * c + s * s;
            cs += c * s;
        }
        let draws = n as f64;
        // The two branches of a pair are uncorrelated.
        assert!((cs / draws).abs() < 0.01, "pair correlation {}", cs / draws);
        assert!(
            (su / draws - 0.5).abs() < 0.005,
            "uniform mean {}",
            su / draws
        );
        let elems = 2.0 * draws;
        assert!((sn / elems).abs() < 0.01, "normal mean {}", sn / elems);
        assert!(
            (sn2 / elems - 1.0).abs() < 0.02,
            "normal variance {}",
            sn2 / elems
        );
    }
}
