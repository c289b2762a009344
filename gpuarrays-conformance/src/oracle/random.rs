//! The oracle of counter-based random numbers, from the recipe in
//! `gpuarrays_core::kernel::random`. Only the Philox4x32-10 block function is borrowed from
//! core (it is pinned by the reference known-answer vectors); the counter and key layout and
//! the uniform and normal transforms are written here independently.

use gpuarrays_core::kernel::Distribution;
use gpuarrays_core::kernel::random::philox4x32_10;
use gpuarrays_core::{DType, Scalar};

use super::rules::{self, Expected};
use super::value::from_real;
use crate::host::{HostArray, HostData};

const TWO_POW_24: f64 = 16_777_216.0;
const TWO_POW_53: f64 = 9_007_199_254_740_992.0;

/// Words `per·draw .. per·draw + per - 1` of the word stream for `seed`: Philox call `c`
/// (counter (lo, hi, 0, 0), key (lo, hi)) gives stream words `4c .. 4c + 3`.
fn words(seed: u64, draw: u64, per: u64) -> [u32; 4] {
    let key = [(seed & 0xFFFF_FFFF) as u32, (seed >> 32) as u32];
    let mut out = [0u32; 4];
    for (k, slot) in out.iter_mut().enumerate().take(per as usize) {
        let word = draw * per + k as u64;
        let call = word / 4;
        let counter = [(call & 0xFFFF_FFFF) as u32, (call >> 32) as u32, 0, 0];
        *slot = philox4x32_10(counter, key)[(word % 4) as usize];
    }
    out
}

/// Stream words one draw takes: as many as its transform below reads. A uniform draw is one
/// element, a normal draw the two elements of a Box–Muller pair.
fn per_draw(dist: Distribution, dtype: DType) -> u64 {
    match (dist, dtype) {
        (Distribution::Uniform, DType::F32 | DType::F16 | DType::BF16) => 1,
        (Distribution::Normal, DType::F64) => 4,
        _ => 2,
    }
}

/// 53 random bits (27 from `a`, 26 from `b`) as a double in [0, 1).
fn unit53(a: u32, b: u32) -> f64 {
    let bits = (((a >> 5) as u64) << 26) | (b >> 6) as u64;
    bits as f64 / TWO_POW_53
}

/// Element `branch` (0: cosine, 1: sine; 0 for uniforms) of the draw with words `r`.
fn draw(dist: Distribution, dtype: DType, r: [u32; 4], branch: u64) -> Scalar {
    match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => {
            Scalar::F32(((r[0] >> 8) as f64 / TWO_POW_24) as f32)
        }
        // The top 11 (f16) or 8 (bf16) bits: exact in the type.
        (Distribution::Uniform, DType::F16) => from_real(f64::from(r[0] >> 21) / 2048.0, dtype),
        (Distribution::Uniform, DType::BF16) => from_real(f64::from(r[0] >> 24) / 256.0, dtype),
        (Distribution::Uniform, _) => Scalar::F64(unit53(r[0], r[1])),
        // The f32 pair, rounded once to the type.
        (Distribution::Normal, DType::F16 | DType::BF16) => {
            let u1 = ((r[0] >> 8) as f64 + 1.0) / TWO_POW_24;
            let u2 = (r[1] >> 8) as f64 / TWO_POW_24;
            from_real(box_muller(u1, u2, branch), dtype)
        }
        (Distribution::Normal, DType::F32) => {
            let u1 = ((r[0] >> 8) as f64 + 1.0) / TWO_POW_24;
            let u2 = (r[1] >> 8) as f64 / TWO_POW_24;
            Scalar::F32(box_muller(u1, u2, branch) as f32)
        }
        (Distribution::Normal, _) => {
            let u1 = unit53(r[0], r[1]) + 1.0 / TWO_POW_53;
            let u2 = unit53(r[2], r[3]);
            Scalar::F64(box_muller(u1, u2, branch))
        }
    }
}

/// Box–Muller: the cosine (`branch` 0) or the sine (1) branch of the pair of (u1, u2).
fn box_muller(u1: f64, u2: f64, branch: u64) -> f64 {
    let angle = 2.0 * std::f64::consts::PI * u2;
    let trig = if branch == 0 {
        angle.cos()
    } else {
        angle.sin()
    };
    (-2.0 * u1.ln()).sqrt() * trig
}

pub fn random(
    dist: Distribution,
    dtype: DType,
    dims: &[usize],
    seed: u64,
) -> Result<HostArray, Expected> {
    let t = rules::float_only(dtype)?;
    let n: usize = dims.iter().product();
    let mut out = HostData::with_capacity(t, n);
    let outputs = match dist {
        Distribution::Uniform => 1,
        Distribution::Normal => 2,
    };
    for i in 0..n as u64 {
        let r = words(seed, i / outputs, per_draw(dist, t));
        out.push(draw(dist, t, r, i % outputs));
    }
    Ok(HostArray::new(dims.to_vec(), out))
}
