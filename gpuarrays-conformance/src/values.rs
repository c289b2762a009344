//! Random input values per element type, mixed with the special values of
//! [`crate::specials`] (NaN of both signs and with a payload, ±inf, ±0, subnormals, MAX,
//! integer MIN/MAX, ...). Each [`Profile`] is made for a family of operations: whatever an
//! operation's result may legitimately depend on (the order of a float sum), its profile
//! keeps out; everything else is in.

use gpuarrays_core::{Complex32, Complex64, DType, Scalar, bf16, f16};

use crate::host::HostData;
use crate::rng::Rng;
use crate::specials::{self, complex};

/// What kind of values a case draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile {
    /// Random values with about 20% special values of every kind, complex values with
    /// non-finite, subnormal and huge parts included; integers over their whole range.
    General,
    /// Floats finite and moderate (|x| < 100, ±0 included); integers as `General`. For
    /// matrix products and sums, whose float results depend on order.
    Finite,
    /// Floats mostly ±1 with about 32 factors in [0.5, 2) per array (complex: ±1, ±i and a
    /// few others), so products stay in range; integers as `General`. For prod/cumprod.
    NearOne,
    /// `NearOne` with about 4% NaN, ±inf and ±0 (complex: values with a non-finite or zero
    /// part). Nothing overflows or underflows, so which elements of a product are NaN or
    /// infinite does not depend on the order of evaluation (for complex products of three
    /// or more factors, only that some part is non-finite does).
    NearOneSpecial,
    /// ±1 (complex: ±1, ±i) with about 8% subnormals, ±(smallest normal), ±0 and a rare NaN:
    /// the product of any two tiny values underflows to zero, so products are exact in any
    /// order.
    Tiny,
    /// ±1 (complex: ±1, ±i) with about 8% values whose product with each other overflows
    /// (±MAX, ±2√MAX; complex: on one axis), ±inf and a rare NaN; no zeros, so products are
    /// exact in any order (up to the pattern of non-finite parts of complex products).
    Huge,
    /// `Finite`, with about 4% NaN (both signs), ±inf, ±0, subnormals and ±(smallest normal)
    /// (complex: in each part independently), whose effect on sums does not depend on the
    /// order of evaluation.
    WithInf,
    /// `Finite` with about 2% +MAX: a sum overflows exactly when two of them meet, in any
    /// order (complex: in each part independently).
    HugeSum,
    /// Floats the integers 0 to 3 (complex: both parts); integers as `General`. A sum of up
    /// to 2^20 products of them is exact in f32 in any order, and leaving a term out changes
    /// it unless the term is zero (complex: the imaginary parts never cancel). For matrix
    /// products with a long inner dimension, whose missing terms must show.
    SmallInts,
    /// Zero (±0) with probability `1 - p`, otherwise `General` (bool: true with probability
    /// p). For find, find_first, any, all.
    Sparse(f64),
    /// Every special value of the type in a fixed order from a random start, repeated:
    /// element `i` is special `(start + i) mod S`. A broadcast of a column `[S, 1]` with a row
    /// `[S]` pairs every two; a short array holds a few consecutive ones.
    AllSpecials,
    /// For an array of shape `[2, S²]`: column `j` holds specials `j / S` and `j mod S`, so a
    /// reduction or scan along axis 0 combines every pair once (other sizes: `AllSpecials`).
    SpecialPairs,
    /// Floats where library functions are delicate: [−1, 1] and `1 ± 2^-k` (asin, acos,
    /// log1p near −1), magnitudes 2^-40 to 2^10 (log1p, expm1, sinh for tiny arguments),
    /// near multiples of π/2 (tan), and just below and above where `exp` overflows
    /// (sinh, cosh); complex: both parts so. Integers as `General`.
    Spread,
    /// Integers drawn uniformly from `lo..hi` (wrapped into unsigned types), with about one
    /// in eight at an end of the range: index arrays for gathers, scatters and `bincount`.
    /// Other types as `General`.
    Indices(i64, i64),
    /// Index arrays for stores, where which of two updates of one element lands is not
    /// specified: each run of `lane` consecutive elements holds distinct positions of
    /// `0..extent` (`lane ≤ extent`), each written as `p` or (signed types) as the negative `p − extent`.
    Distinct { extent: usize, lane: usize },
}

/// `n` values of `dtype`.
pub fn generate(dtype: DType, n: usize, profile: Profile, rng: &mut Rng) -> HostData {
    let mut out = HostData::with_capacity(dtype, n);
    match profile {
        Profile::AllSpecials | Profile::SpecialPairs => {
            let s = specials::specials(dtype);
            let k = s.len();
            let pairs = profile == Profile::SpecialPairs && n == 2 * k * k;
            // A random starting point, so short arrays get different special values.
            let start = if pairs { 0 } else { rng.below(k) };
            for i in 0..n {
                let at = if !pairs {
                    (start + i) % k
                } else if i < k * k {
                    i / k
                } else {
                    (i - k * k) % k
                };
                out.push(s[at]);
            }
        }
        Profile::Distinct { extent, lane } if dtype.is_integer() && lane > 0 => {
            let mut pool: Vec<usize> = (0..extent).collect();
            for i in 0..n {
                let k = i % lane;
                if k == 0 {
                    pool = (0..extent).collect();
                }
                // A partial Fisher–Yates shuffle: element k of the run is drawn from what
                // the earlier ones left.
                let j = k + rng.below(extent.saturating_sub(k).max(1));
                pool.swap(k, j.min(extent.saturating_sub(1)));
                let p = pool[k.min(extent.saturating_sub(1))] as i128;
                let signed = dtype.is_signed_integer();
                let v = if signed && rng.chance(0.5) {
                    p - extent as i128
                } else {
                    p
                };
                out.push(wrap_i128(v, dtype));
            }
        }
        _ => {
            for _ in 0..n {
                out.push(value(dtype, n, profile, rng));
            }
        }
    }
    out
}

/// One value of `dtype`; `n` is the array length (used by `NearOne`). `AllSpecials` and
/// `SpecialPairs` draw one special value at random.
pub fn value(dtype: DType, n: usize, profile: Profile, rng: &mut Rng) -> Scalar {
    if let Profile::Sparse(p) = profile {
        if dtype == DType::Bool {
            return Scalar::Bool(rng.chance(p));
        }
        if !rng.chance(p) {
            return zero(dtype, rng);
        }
    }
    if matches!(profile, Profile::AllSpecials | Profile::SpecialPairs) {
        return rng.pick(&specials::specials(dtype));
    }
    if let Profile::Indices(lo, hi) = profile
        && dtype.is_integer()
        && hi > lo
    {
        let i = if rng.chance(0.125) {
            if rng.chance(0.5) { lo } else { hi - 1 }
        } else {
            lo + rng.below((hi - lo) as usize) as i64
        };
        return wrap_i128(i as i128, dtype);
    }
    match dtype {
        DType::Bool => Scalar::Bool(rng.chance(0.5)),
        DType::I8
        | DType::U8
        | DType::I16
        | DType::U16
        | DType::I32
        | DType::U32
        | DType::I64
        | DType::U64 => integer(dtype, rng),
        DType::F16 | DType::BF16 => {
            let s = specials::specials(dtype);
            let bf = dtype == DType::BF16;
            match float(profile, n, rng, &Reals::half(bf)) {
                Drawn::Special(i) => s[i],
                Drawn::Value(x) if bf => Scalar::BF16(bf16::from_f64(x)),
                Drawn::Value(x) => Scalar::F16(f16::from_f64(x)),
            }
        }
        DType::F32 => {
            let s = specials::f32_specials();
            let r = Reals::f32();
            Scalar::F32(match float(profile, n, rng, &r) {
                Drawn::Special(i) => s[i],
                Drawn::Value(x) => narrow_f32(x),
            })
        }
        DType::F64 => {
            let s = specials::f64_specials();
            let r = Reals::f64();
            Scalar::F64(match float(profile, n, rng, &r) {
                Drawn::Special(i) => s[i],
                Drawn::Value(x) => x,
            })
        }
        DType::C32 | DType::C64 => complex_value(dtype, profile, n, rng),
    }
}

fn zero(dtype: DType, rng: &mut Rng) -> Scalar {
    let z = if rng.chance(0.5) { -0.0 } else { 0.0 };
    match dtype {
        DType::F16 => Scalar::F16(f16::from_f64(z)),
        DType::BF16 => Scalar::BF16(bf16::from_f64(z)),
        DType::F32 => Scalar::F32(z as f32),
        DType::F64 => Scalar::F64(z),
        DType::C32 | DType::C64 => complex(dtype, z, if rng.chance(0.5) { -0.0 } else { 0.0 }),
        _ => wrap_i128(0, dtype),
    }
}

/// An integer of `dtype` from a value taken modulo 2^bits (two's complement), as `as` does.
fn wrap_i128(v: i128, dtype: DType) -> Scalar {
    match dtype {
        DType::Bool => Scalar::Bool(v != 0),
        DType::I8 => Scalar::I8(v as i8),
        DType::U8 => Scalar::U8(v as u8),
        DType::I16 => Scalar::I16(v as i16),
        DType::U16 => Scalar::U16(v as u16),
        DType::F16 => Scalar::F16(f16::from_f64(v as f64)),
        DType::BF16 => Scalar::BF16(bf16::from_f64(v as f64)),
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
    let r = rng.unit();
    if r < 0.15 {
        rng.pick(&specials::specials(dtype))
    } else if r < 0.6 {
        let signed = dtype.is_signed_integer();
        wrap_i128(rng.below(41) as i128 - if signed { 20 } else { 0 }, dtype)
    } else {
        wrap_i128(rng.next_u64() as i128, dtype)
    }
}

/// The special reals of one float type, by kind (as f64, exact in the type).
struct Reals {
    /// How many special values the type has ([`specials::specials`]).
    all: usize,
    max: f64,
    /// The smallest normal.
    tiny: f64,
    /// The smallest and the largest subnormal.
    sub: [f64; 2],
}

impl Reals {
    fn f32() -> Reals {
        Reals {
            all: specials::f32_specials().len(),
            max: f32::MAX as f64,
            tiny: f32::MIN_POSITIVE as f64,
            sub: [
                f32::from_bits(1) as f64,
                f32::from_bits(f32::MIN_POSITIVE.to_bits() - 1) as f64,
            ],
        }
    }

    /// f16, or bf16 with `bf`.
    fn half(bf: bool) -> Reals {
        let (max, tiny, sub) = if bf {
            (3.3895313892515355e38, 2f64.powi(-126), 2f64.powi(-133))
        } else {
            (65504.0, 2f64.powi(-14), 2f64.powi(-24))
        };
        Reals {
            all: specials::specials(if bf { DType::BF16 } else { DType::F16 }).len(),
            max,
            tiny,
            sub: [sub, tiny - sub],
        }
    }

    fn f64() -> Reals {
        Reals {
            all: specials::f64_specials().len(),
            max: f64::MAX,
            tiny: f64::MIN_POSITIVE,
            sub: [
                f64::from_bits(1),
                f64::from_bits(f64::MIN_POSITIVE.to_bits() - 1),
            ],
        }
    }

    /// 2√MAX: squares overflow.
    fn huge(&self) -> f64 {
        self.max.sqrt() * 2.0
    }
}

/// `x` with a random sign (negation flips the sign bit, also of NaN and zero).
fn signed(x: f64, rng: &mut Rng) -> f64 {
    if rng.chance(0.5) { -x } else { x }
}

/// `x` as f32, keeping the sign of a NaN (`as` need not).
fn narrow_f32(x: f64) -> f32 {
    match (x.is_nan(), x.is_sign_negative()) {
        (true, true) => -f32::NAN,
        (true, false) => f32::NAN,
        _ => x as f32,
    }
}

fn near_one(n: usize, rng: &mut Rng) -> f64 {
    let q = (32.0 / n.max(1) as f64).min(1.0);
    if rng.chance(q) {
        signed(rng.range(0.5, 2.0), rng)
    } else {
        signed(1.0, rng)
    }
}

/// A value of [`Profile::Spread`] (exactly representable only after rounding to the type).
fn spread(rng: &mut Rng, r: &Reals) -> f64 {
    let u = rng.unit();
    let x = if u < 0.25 {
        rng.range(-1.0, 1.0)
    } else if u < 0.45 {
        1.0 - rng.range(1.0, 30.0).exp2().recip()
    } else if u < 0.65 {
        rng.range(-40.0, 10.0).exp2()
    } else if u < 0.85 {
        let k = rng.below(41) as f64 - 20.0;
        k * std::f64::consts::FRAC_PI_2 + rng.range(-1e-3, 1e-3) * rng.range(-20.0, 0.0).exp2()
    } else {
        // ln MAX: 88.72 (f32), 709.78 (f64); sinh and cosh overflow just above ln 2MAX.
        let edge = r.max.ln();
        edge + rng.range(-2.0, 1.5)
    };
    signed(x, rng)
}

fn moderate(rng: &mut Rng) -> f64 {
    if rng.chance(0.1) {
        rng.pick(&[-0.0, 0.0, 1.0, -1.0, 2.0, -3.0])
    } else {
        rng.range(-100.0, 100.0)
    }
}

/// A drawn real: one of the type's special values (by index, so it is exact in the type,
/// NaN payloads included), or a value exact in the type.
enum Drawn {
    Special(usize),
    Value(f64),
}

/// One real of a float type with the specials `r`.
fn float(profile: Profile, n: usize, rng: &mut Rng, r: &Reals) -> Drawn {
    let inf = f64::INFINITY;
    let x = match profile {
        Profile::NearOne => near_one(n, rng),
        Profile::NearOneSpecial if rng.chance(0.04) => signed(rng.pick(&[f64::NAN, inf, 0.0]), rng),
        Profile::NearOneSpecial => near_one(n, rng),
        Profile::Tiny if rng.chance(0.08) => {
            signed(rng.pick(&[r.sub[0], r.sub[1], r.tiny, 0.0, f64::NAN]), rng)
        }
        Profile::Huge if rng.chance(0.08) => {
            signed(rng.pick(&[r.max, r.huge(), r.huge(), inf, f64::NAN]), rng)
        }
        Profile::Tiny | Profile::Huge => signed(1.0, rng),
        Profile::WithInf if rng.chance(0.04) => signed(
            rng.pick(&[f64::NAN, inf, 0.0, r.sub[0], r.sub[1], r.tiny]),
            rng,
        ),
        Profile::HugeSum if rng.chance(0.02) => r.max,
        Profile::Finite | Profile::WithInf | Profile::HugeSum => moderate(rng),
        Profile::SmallInts => rng.below(4) as f64,
        Profile::Spread => spread(rng, r),
        Profile::General
        | Profile::Sparse(_)
        | Profile::AllSpecials
        | Profile::SpecialPairs
        | Profile::Indices(..)
        | Profile::Distinct { .. } => {
            let u = rng.unit();
            if u < 0.2 {
                return Drawn::Special(rng.below(r.all));
            } else if u < 0.3 {
                rng.below(11) as f64 - 5.0
            } else {
                rng.range(-10.0, 10.0)
            }
        }
    };
    Drawn::Value(x)
}

/// One complex value of `dtype` (C32 or C64).
fn complex_value(dtype: DType, profile: Profile, n: usize, rng: &mut Rng) -> Scalar {
    let real = dtype.real();
    let (specials, r) = match real {
        DType::F32 => (
            specials::f32_specials()
                .into_iter()
                .map(f64::from)
                .collect::<Vec<_>>(),
            Reals::f32(),
        ),
        _ => (specials::f64_specials(), Reals::f64()),
    };
    let unit = |rng: &mut Rng| rng.pick(&[(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]);
    let (re, im) = match profile {
        Profile::NearOne | Profile::NearOneSpecial => {
            let q = (32.0 / n.max(1) as f64).min(1.0);
            if profile == Profile::NearOneSpecial && rng.chance(0.04) {
                let inf = f64::INFINITY;
                rng.pick(&[
                    (inf, 0.0),
                    (0.0, -inf),
                    (inf, 1.0),
                    (-0.5, inf),
                    (f64::NAN, 0.0),
                    (1.0, f64::NAN),
                    (inf, -inf),
                    (inf, f64::NAN),
                    (0.0, 0.0),
                    (-0.0, 0.0),
                ])
            } else if rng.chance(q) {
                let z = Complex64::from_polar(
                    rng.range(0.5, 2.0),
                    rng.range(0.0, std::f64::consts::TAU),
                );
                (z.re, z.im)
            } else {
                unit(rng)
            }
        }
        Profile::Tiny if rng.chance(0.08) => {
            let s = signed(rng.pick(&[r.sub[0], r.sub[1], r.tiny]), rng);
            rng.pick(&[(s, 0.0), (0.0, s), (s, -s), (0.0, 0.0), (f64::NAN, 0.0)])
        }
        Profile::Huge if rng.chance(0.08) => {
            // On one axis: products of such values overflow exactly when their true value does.
            let h = signed(rng.pick(&[r.max, r.huge()]), rng);
            rng.pick(&[
                (h, 0.0),
                (0.0, h),
                (f64::INFINITY, 0.0),
                (0.0, f64::NEG_INFINITY),
                (f64::NAN, 0.0),
            ])
        }
        Profile::Tiny | Profile::Huge => unit(rng),
        Profile::SmallInts => (rng.below(4) as f64, rng.below(4) as f64),
        Profile::Spread => (spread(rng, &r), spread(rng, &r)),
        Profile::Finite => {
            let u = rng.unit();
            if u < 0.08 {
                (0.0, 0.0)
            } else if u < 0.18 {
                (rng.below(7) as f64 - 3.0, rng.below(7) as f64 - 3.0)
            } else {
                (rng.range(-10.0, 10.0), rng.range(-10.0, 10.0))
            }
        }
        Profile::WithInf | Profile::HugeSum => {
            let part = |rng: &mut Rng| match float(profile, n, rng, &r) {
                Drawn::Special(i) => specials[i],
                Drawn::Value(x) => x,
            };
            (part(rng), part(rng))
        }
        Profile::General
        | Profile::Sparse(_)
        | Profile::AllSpecials
        | Profile::SpecialPairs
        | Profile::Indices(..)
        | Profile::Distinct { .. } => {
            let u = rng.unit();
            if u < 0.2 {
                return rng.pick(&specials::specials(dtype));
            } else if u < 0.28 {
                (0.0, 0.0)
            } else if u < 0.38 {
                (rng.below(7) as f64 - 3.0, rng.below(7) as f64 - 3.0)
            } else {
                (rng.range(-10.0, 10.0), rng.range(-10.0, 10.0))
            }
        }
    };
    complex(dtype, re, im)
}
