//! Random input values per element type, with the special values that matter: NaN, ±inf,
//! -0.0, huge magnitudes, integer MIN/MAX, zeros (divisors), -1 (`MIN / -1`).

use gpuarrays_core::{Complex32, Complex64, DType, Scalar};

use crate::host::HostData;
use crate::rng::Rng;

/// What kind of values a case draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile {
    /// Everything, special values included (floats: NaN, ±inf, -0.0, ±MAX, ±1e30/1e300;
    /// integers: 0, ±1, MIN, MAX and full-range values). Complex values are finite.
    General,
    /// Floats finite and moderate (|x| < 100); integers as `General`. For sums, scans,
    /// products of matrices and means, whose float results depend on order.
    Finite,
    /// Floats mostly ±1 with about 32 factors in [0.5, 2) per array (complex: ±1, ±i and a
    /// few others), so products stay in range; integers as `General`. For prod/cumprod.
    NearOne,
    /// `Finite`, with about 2% of NaN, inf and -inf (whose effect on sums and products does
    /// not depend on the order of evaluation).
    WithInf,
    /// Zero with probability `1 - p`, otherwise `General` (bool: true with probability p).
    /// For find, find_first, any, all.
    Sparse(f64),
}

/// `n` values of `dtype`.
pub fn generate(dtype: DType, n: usize, profile: Profile, rng: &mut Rng) -> HostData {
    let mut out = HostData::with_capacity(dtype, n);
    for _ in 0..n {
        out.push(value(dtype, n, profile, rng));
    }
    out
}

/// One value of `dtype`; `n` is the array length (used by `NearOne`).
pub fn value(dtype: DType, n: usize, profile: Profile, rng: &mut Rng) -> Scalar {
    if let Profile::Sparse(p) = profile {
        if dtype == DType::Bool {
            return Scalar::Bool(rng.chance(p));
        }
        if !rng.chance(p) {
            return zero(dtype, rng);
        }
    }
    match dtype {
        DType::Bool => Scalar::Bool(rng.chance(0.5)),
        DType::U8 | DType::I32 | DType::U32 | DType::I64 | DType::U64 => integer(dtype, rng),
        DType::F32 => Scalar::F32(float(profile, n, rng, 1e30, f32::MAX as f64) as f32),
        DType::F64 => Scalar::F64(float(profile, n, rng, 1e300, f64::MAX)),
        DType::C32 => {
            let z = complex(profile, n, rng);
            Scalar::C32(Complex32::new(z.re as f32, z.im as f32))
        }
        DType::C64 => Scalar::C64(complex(profile, n, rng)),
    }
}

fn zero(dtype: DType, rng: &mut Rng) -> Scalar {
    match dtype {
        DType::F32 if rng.chance(0.5) => Scalar::F32(-0.0),
        DType::F64 if rng.chance(0.5) => Scalar::F64(-0.0),
        _ => wrap_i128(0, dtype),
    }
}

/// An integer of `dtype` from a value taken modulo 2^bits (two's complement), as `as` does.
fn wrap_i128(v: i128, dtype: DType) -> Scalar {
    match dtype {
        DType::Bool => Scalar::Bool(v != 0),
        DType::U8 => Scalar::U8(v as u8),
        DType::I32 => Scalar::I32(v as i32),
        DType::U32 => Scalar::U32(v as u32),
        DType::I64 => Scalar::I64(v as i64),
        DType::U64 => Scalar::U64(v as u64),
        DType::F32 => Scalar::F32(v as f32),
        DType::F64 => Scalar::F64(v as f64),
        DType::C32 => Scalar::C32(Complex32::new(v as f32, 0.0)),
        DType::C64 => Scalar::C64(Complex64::new(v as f64, 0.0)),
    }
}

fn integer(dtype: DType, rng: &mut Rng) -> Scalar {
    let (min, max): (i128, i128) = match dtype {
        DType::U8 => (0, u8::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::U32 => (0, u32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => (0, u64::MAX as i128),
    };
    let r = rng.unit();
    let v = if r < 0.15 {
        rng.pick(&[0, 1, -1, min, max, min + 1, max - 1])
    } else if r < 0.6 {
        rng.below(41) as i128 - if min < 0 { 20 } else { 0 }
    } else {
        rng.next_u64() as i128
    };
    wrap_i128(v, dtype)
}

fn float(profile: Profile, n: usize, rng: &mut Rng, big: f64, max: f64) -> f64 {
    let r = rng.unit();
    match profile {
        Profile::NearOne => {
            let q = (32.0 / n.max(1) as f64).min(1.0);
            let sign = if rng.chance(0.5) { -1.0 } else { 1.0 };
            if rng.chance(q) {
                sign * rng.range(0.5, 2.0)
            } else {
                sign
            }
        }
        Profile::WithInf if r < 0.02 => rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]),
        Profile::Finite | Profile::WithInf => {
            if r < 0.1 {
                rng.pick(&[-0.0, 0.0, 1.0, -1.0, 2.0, -3.0])
            } else {
                rng.range(-100.0, 100.0)
            }
        }
        Profile::General | Profile::Sparse(_) => {
            if r < 0.12 {
                rng.pick(&[
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -0.0,
                    0.0,
                    1.0,
                    -1.0,
                    big,
                    -big,
                    max,
                    -max,
                ])
            } else if r < 0.22 {
                rng.below(11) as f64 - 5.0
            } else {
                rng.range(-10.0, 10.0)
            }
        }
    }
}

fn complex(profile: Profile, n: usize, rng: &mut Rng) -> Complex64 {
    match profile {
        Profile::NearOne => {
            let q = (32.0 / n.max(1) as f64).min(1.0);
            if rng.chance(q) {
                Complex64::from_polar(rng.range(0.5, 2.0), rng.range(0.0, std::f64::consts::TAU))
            } else {
                rng.pick(&[
                    Complex64::new(1.0, 0.0),
                    Complex64::new(-1.0, 0.0),
                    Complex64::new(0.0, 1.0),
                    Complex64::new(0.0, -1.0),
                ])
            }
        }
        _ => {
            let r = rng.unit();
            if r < 0.08 {
                Complex64::new(0.0, 0.0)
            } else if r < 0.18 {
                Complex64::new(rng.below(7) as f64 - 3.0, rng.below(7) as f64 - 3.0)
            } else {
                Complex64::new(rng.range(-10.0, 10.0), rng.range(-10.0, 10.0))
            }
        }
    }
}
