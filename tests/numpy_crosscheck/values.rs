//! Seeded input generation for the NumPy cross-check: a small RNG (SplitMix64) and value
//! families per element type, with the special values every backend gets wrong first
//! (NaN of both signs, ±inf, -0.0, subnormals, float values at integer boundaries, integer
//! MIN/MAX).

use gpuarrays_core::{Complex32, Complex64, DType, Scalar};

/// SplitMix64: tiny, seedable, good enough for test inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next_u64() as u128 % span) as i128) as i64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.int(0, items.len() as i64 - 1) as usize]
    }
}

/// What kind of values to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Special values first, then random values of every magnitude; integers over their
    /// whole range.
    Mixed,
    /// Few distinct values (many ties), zeros of both signs, rare NaN and ±inf: for
    /// min/max/argmin/argmax, sort, find, any/all.
    Dups,
    /// Multiples of 1/8 in [-64, 64]: float sums of up to 2^13 of them are exact in any order,
    /// so sums, cumulative sums and means compare bit for bit.
    Exact,
    /// Integers in [-8, 8]: matrix products of them are exact in any order.
    SmallInt,
    /// ±1 with some ±2 and ±0.5 (complex: 1, -1, i, -i, with some 2 and 0.5): products are
    /// exact in any order.
    ProdExact,
    /// Magnitudes in [0.5, 2] with random signs (complex: modulus in [0.7, 1.4], random
    /// angle): products neither overflow nor underflow; compared with a tolerance.
    NearOne,
    /// Uniform [-100, 100] scaled by 10^[-3, 3]: sums compared with a tolerance.
    Wide,
    /// Uniform [-1, 1]: matrix products compared with a tolerance.
    Unit,
    /// Bools true with the given probability (other types: non-zero with that probability).
    Density(f64),
}

macro_rules! float_specials {
    ($t:ident) => {{
        let mut v: Vec<$t> = vec![
            $t::NAN,
            -$t::NAN,
            $t::INFINITY,
            $t::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1.5,
            -2.5,
            2.0,
            3.0,
            -7.0,
            100.0,
            0.1,
            1e-3,
            $t::MIN_POSITIVE,
            -$t::MIN_POSITIVE,
            $t::from_bits(1),
            -$t::from_bits(3),
            $t::MAX,
            $t::MIN,
            $t::EPSILON,
            255.0,
            255.9,
            256.0,
            -128.0,
            -129.5,
            2147483648.0,
            -2147483648.0,
            4294967296.0,
            9223372036854775808.0,
            -9223372036854775808.0,
            18446744073709551616.0,
            1e10,
            -1e10,
        ];
        // The largest values below the integer limits, and just past the negative ones.
        for bound in [
            2147483648.0 as $t,
            4294967296.0,
            9223372036854775808.0,
            18446744073709551616.0,
        ] {
            v.push($t::from_bits(bound.to_bits() - 1));
            v.push(-$t::from_bits(bound.to_bits() + 1));
        }
        v
    }};
}

/// The special values of a type.
pub fn specials(dtype: DType) -> Vec<Scalar> {
    match dtype {
        DType::Bool => vec![Scalar::Bool(false), Scalar::Bool(true)],
        DType::F32 => float_specials!(f32).into_iter().map(Scalar::F32).collect(),
        DType::F64 => float_specials!(f64).into_iter().map(Scalar::F64).collect(),
        // f32's specials rounded into the type (the large ones become ±inf), and the
        // type's own limits: the smallest subnormal, the smallest normal, ε, MAX.
        DType::F16 | DType::BF16 => {
            let own = |bits: u16| {
                if dtype == DType::F16 {
                    Scalar::F16(gpuarrays_core::f16::from_bits(bits))
                } else {
                    Scalar::BF16(gpuarrays_core::bf16::from_bits(bits))
                }
            };
            let limits: [u16; 6] = if dtype == DType::F16 {
                [0x0001, 0x8001, 0x0400, 0x1400, 0x7bff, 0xfbff]
            } else {
                [0x0001, 0x8001, 0x0080, 0x3c00, 0x7f7f, 0xff7f]
            };
            float_specials!(f32)
                .into_iter()
                .map(|x| Scalar::F32(x).cast(dtype))
                .chain(limits.into_iter().map(own))
                .collect()
        }
        DType::C32 | DType::C64 => {
            let parts = [
                0.0,
                -0.0,
                1.0,
                -1.5,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                1e30,
            ];
            let mut v = Vec::new();
            for &re in &parts {
                for &im in &parts {
                    v.push(complex(dtype, re, im));
                }
            }
            v
        }
        _ => {
            let ints: [i64; 33] = [
                0,
                1,
                -1,
                2,
                -2,
                3,
                -3,
                7,
                -7,
                100,
                127,
                128,
                -128,
                255,
                256,
                -129,
                i32::MIN as i64,
                i32::MAX as i64,
                i32::MIN as i64 + 1,
                i32::MAX as i64 - 1,
                u32::MAX as i64,
                1 << 31,
                1 << 32,
                i64::MIN,
                i64::MAX,
                i64::MIN + 1,
                i64::MAX - 1,
                (1 << 53) + 1,
                -(1 << 53) - 1,
                (1 << 24) + 1,
                0x5555_5555_5555_5555,
                -0x3333_3333_3333_3333,
                u8::MAX as i64 + 1 + 7,
            ];
            // `as` wraps into the target type.
            ints.iter().map(|&v| Scalar::I64(v).cast(dtype)).collect()
        }
    }
}

/// A complex scalar of `dtype` (C32 or C64) from f64 parts (rounded to f32 for C32).
pub fn complex(dtype: DType, re: f64, im: f64) -> Scalar {
    match dtype {
        DType::C32 => Scalar::C32(Complex32::new(re as f32, im as f32)),
        _ => Scalar::C64(Complex64::new(re, im)),
    }
}

/// A real scalar of `dtype` from an f64 (ints: the value must be integral and in range).
fn real(dtype: DType, v: f64) -> Scalar {
    if dtype.is_complex() {
        complex(dtype, v, 0.0)
    } else {
        Scalar::F64(v).cast(dtype)
    }
}

/// A random value of any magnitude.
fn mixed_float(rng: &mut Rng, max_exp: i32) -> f64 {
    match rng.int(0, 4) {
        0 => rng.range(-10.0, 10.0),
        1 => {
            let sign = if rng.chance(0.5) { -1.0 } else { 1.0 };
            sign * 2f64.powf(rng.range(-(max_exp as f64), max_exp as f64))
        }
        2 => rng.int(-300, 300) as f64,
        3 => rng.int(-40, 40) as f64 * 0.25,
        _ => {
            // Near the integer-cast limits.
            let bound = rng.pick(&[2f64.powi(31), 2f64.powi(32), 2f64.powi(63), 2f64.powi(64)]);
            let sign = if rng.chance(0.5) { -1.0 } else { 1.0 };
            sign * bound * rng.range(0.999, 1.001)
        }
    }
}

fn one_value(rng: &mut Rng, dtype: DType, kind: Kind) -> Scalar {
    if dtype == DType::Bool {
        let p = if let Kind::Density(p) = kind { p } else { 0.5 };
        return Scalar::Bool(rng.chance(p));
    }
    if dtype.is_complex() {
        return match kind {
            Kind::ProdExact => {
                let (re, im) = rng.pick(&[(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]);
                let s = if rng.chance(0.1) {
                    rng.pick(&[2.0, 0.5])
                } else {
                    1.0
                };
                complex(dtype, re * s, im * s)
            }
            Kind::NearOne => {
                let (r, t) = (rng.range(0.7, 1.4), rng.range(0.0, std::f64::consts::TAU));
                complex(dtype, r * t.cos(), r * t.sin())
            }
            Kind::Mixed => {
                let exp = if dtype == DType::C32 { 60 } else { 300 };
                complex(dtype, mixed_float(rng, exp), mixed_float(rng, exp))
            }
            _ => {
                let re = one_value(rng, DType::F64, kind).to_f64_lossy();
                let im = one_value(rng, DType::F64, kind).to_f64_lossy();
                complex(dtype, re, im)
            }
        };
    }
    let float = dtype.is_float();
    match kind {
        Kind::Mixed if float => {
            let exp = match dtype {
                DType::F16 => 14,
                DType::BF16 | DType::F32 => 60,
                _ => 300,
            };
            real(dtype, mixed_float(rng, exp))
        }
        Kind::Mixed => {
            if rng.chance(0.6) {
                Scalar::U64(rng.next_u64()).cast(dtype)
            } else {
                Scalar::I64(rng.int(-128, 128)).cast(dtype)
            }
        }
        Kind::Dups => {
            if float && rng.chance(0.03) {
                let v = rng.pick(&[f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]);
                return Scalar::F64(v).cast(dtype);
            }
            if !float && rng.chance(0.02) {
                return rng.pick(&specials(dtype));
            }
            let k = rng.int(-20, 20);
            if float {
                real(dtype, k as f64 * 0.25)
            } else if dtype.is_signed_integer() {
                Scalar::I64(k).cast(dtype)
            } else {
                Scalar::I64(k + 20).cast(dtype)
            }
        }
        Kind::Exact => real_or_int(dtype, rng.int(-512, 512) as f64 / 8.0, rng.int(-100, 100)),
        Kind::SmallInt => real_or_int(dtype, rng.int(-8, 8) as f64, rng.int(-8, 8)),
        Kind::ProdExact => {
            let s = if rng.chance(0.1) {
                rng.pick(&[2.0, 0.5])
            } else {
                1.0
            };
            let sign = if rng.chance(0.5) { -1.0 } else { 1.0 };
            real_or_int(dtype, sign * s, rng.int(-3, 3))
        }
        Kind::NearOne => {
            let sign = if rng.chance(0.5) { -1.0 } else { 1.0 };
            real_or_int(
                dtype,
                sign * 2f64.powf(rng.range(-1.0, 1.0)),
                rng.int(-3, 3),
            )
        }
        Kind::Wide => real_or_int(
            dtype,
            rng.range(-100.0, 100.0) * 10f64.powi(rng.int(-3, 3) as i32),
            rng.next_u64() as i64,
        ),
        Kind::Unit => real_or_int(dtype, rng.range(-1.0, 1.0), rng.int(-100, 100)),
        Kind::Density(p) => {
            if rng.chance(p) {
                real_or_int(dtype, rng.int(-5, 5) as f64 * 0.5 + 0.25, rng.int(1, 100))
            } else {
                Scalar::zero(dtype)
            }
        }
    }
}

/// Floats get `f`; integers get `i` (wrapped into the type; unsigned types take |i|).
fn real_or_int(dtype: DType, f: f64, i: i64) -> Scalar {
    if dtype.is_float() || dtype.is_complex() {
        real(dtype, f)
    } else if dtype.is_signed_integer() {
        Scalar::I64(i).cast(dtype)
    } else {
        Scalar::U64(i.unsigned_abs()).cast(dtype)
    }
}

/// `n` values of `kind`; `Mixed` starts with the special values (as many as fit).
pub fn values(rng: &mut Rng, dtype: DType, n: usize, kind: Kind) -> Vec<Scalar> {
    let mut v: Vec<Scalar> = if kind == Kind::Mixed {
        specials(dtype).into_iter().take(n).collect()
    } else {
        Vec::new()
    };
    while v.len() < n {
        v.push(one_value(rng, dtype, kind));
    }
    v
}

/// Two operands for a binary operation: every pair of special values, then `extra` random
/// pairs.
pub fn pairs(rng: &mut Rng, dtype: DType, extra: usize) -> (Vec<Scalar>, Vec<Scalar>) {
    let s = specials(dtype);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &s {
        for &y in &s {
            a.push(x);
            b.push(y);
        }
    }
    for _ in 0..extra {
        a.push(one_value(rng, dtype, Kind::Mixed));
        b.push(one_value(rng, dtype, Kind::Mixed));
    }
    (a, b)
}

/// Little-endian bytes of the values (bool as one byte).
pub fn to_bytes(values: &[Scalar]) -> Vec<u8> {
    values.iter().flat_map(|s| s.to_le_bytes()).collect()
}
