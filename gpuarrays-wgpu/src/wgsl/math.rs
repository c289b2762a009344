//! Transcendental functions with the C library's special cases and accuracy: `sqrt`,
//! `exp`, `log`, `tanh` here; `sin`, `cos` in [`super::trig`]; `pow` in [`super::pow`].
//!
//! WGSL's builtins are specified for graphics, not to the C library: drivers may use
//! approximations whose error grows with the argument (lavapipe's f32 `log`/`sin`/`cos`/
//! `tanh` are off by 20 to 10^7 ulps, its f64 `exp`/`log`/`sin`/`cos`/`tanh` are wrong, and
//! its compiler cannot build an f64 `frexp`). So only `sqrt` (correctly rounded or nearly
//! on every driver), `floor`, `round`, `fract`, `abs` and `ldexp` (exact operations) come
//! from WGSL; every function here is computed in software in its own type, with its
//! special values (NaN, ±∞, ±0, overflow, subnormal results) handled explicitly.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::UnaryOp;

use super::helpers::Helpers;
use super::types::{lit, ty};
use super::{extended, trig};

/// ln 2 in two parts: the high part has 32 trailing zero bits, so `n · LN2_HI` is exact for
/// the exponents that occur.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);

/// `op(a)` for a transcendental `op` of f32/f64.
pub fn unary(h: &mut Helpers, op: UnaryOp, d: DType, a: &str) -> String {
    match op {
        UnaryOp::Sqrt => format!("sqrt({a})"),
        UnaryOp::Exp => format!("{}({a})", exp(h, d)),
        UnaryOp::Log => format!("{}({a})", log(h, d)),
        UnaryOp::Sin => format!("{}({a})", trig::sin_cos(h, d, false)),
        UnaryOp::Cos => format!("{}({a})", trig::sin_cos(h, d, true)),
        _ => format!("{}({a})", tanh(h, d)),
    }
}

/// Horner evaluation `c0 + z (c1 + z (c2 + ...))` of literal coefficients.
pub(crate) fn horner(z: &str, coeffs: &[String]) -> String {
    let mut e = coeffs[coeffs.len() - 1].clone();
    for c in coeffs[..coeffs.len() - 1].iter().rev() {
        e = format!("({c} + {z} * {e})");
    }
    e
}

pub(crate) fn flit(d: DType, x: f64) -> String {
    if d == DType::F32 {
        super::types::f32_lit(x as f32)
    } else {
        super::types::f64_lit(x)
    }
}

/// f64 `round` (halves to even) from `floor`, which is exact everywhere: lavapipe (Mesa
/// 22.3, LLVM 15, x86-64) got WGSL's f64 `round` wrong — non-integers near ±2^31, `+0` for
/// `round(-0.3)`, ties such as −1.5 taken up, the conformance row `round/f64` failing
/// (2026-12-07) — while its `floor` passed. `x − floor(x)` is exact except for `x` in (−1, 0),
/// where its rounding cannot move it across ½ (the answer is −0 or −1 either way). A zero
/// result takes the sign of `x` as `ceil` does, by negations (`−floor(−x)`): lavapipe gave
/// `+0` for `x · 0` with `x < 0`.
pub(crate) fn rint_f64(h: &mut Helpers) -> String {
    h.raw("ga_rint_f64", || {
        "fn ga_rint_f64(x: f64) -> f64 {
  let f = floor(x);
  let d = x - f;
  let odd = f - f64(2.0lf) * floor(f * f64(0.5lf)) != f64(0.0lf);
  let r = select(f, f + f64(1.0lf), d > f64(0.5lf) || (d == f64(0.5lf) && odd));
  return select(r, select(f, -floor(-x), x < f64(0.0lf)), r == f64(0.0lf));
}
"
        .to_string()
    })
}

/// `log(x)`: `x = 2^e m` with `m` in [√½, √2), `log m = 2 atanh(s)`, `s = (m − 1)/(m + 1)`,
/// as the odd series `2s + 2s(s²/3 + s⁴/5 + ...)`, plus `e ln 2` in two parts.
pub(crate) fn log(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("log_{t}");
    let nan = h.isnan(d);
    let inf = h.isinf(d);
    let terms = if d == DType::F32 { 6 } else { 12 };
    let coeffs: Vec<String> = (0..terms)
        .map(|k| flit(d, 1.0 / (2 * k + 3) as f64))
        .collect();
    let series = horner("z", &coeffs);
    let one = lit(d, 1);
    let two = flit(d, 2.0);
    let (ln2_hi, ln2_lo) = (flit(d, LN2_HI), flit(d, LN2_LO));
    let sqrt_half = flit(d, std::f64::consts::FRAC_1_SQRT_2);
    let zero = lit(d, 0);
    // x = m 2^e with m in [0.5, 1), without `frexp` (lavapipe's LLVM 15 cannot compile an
    // f64 frexp): f32 from its bits (subnormals scaled up first); f64 scaled by 2^±64 into
    // [1, 2^64), its exponent read from the f32 nearest to it, then corrected by one.
    // x = m 2^e with m in [0.5, 1): f32 from its bits (subnormals scaled up first); f64 by
    // exact scaling (`extended::frexp1_f64`).
    let split = if d == DType::F32 {
        "  var y = x;
  var e = 0;
  if (y < 1.1754943508222875e-38f) { y = y * 16777216.0f; e = -24; }
  let bits = bitcast<u32>(y);
  e = e + i32((bits >> 23u) & 0xffu) - 126;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f000000u);"
            .to_string()
    } else {
        let fr = extended::frexp1_f64(h);
        format!("  let fr = {fr}(x);\n  var m = fr.x * 0.5lf;\n  var e = i32(fr.y) + 1;")
    };
    let xnan = extended::nan(h, d);
    let xinf = extended::inf(h, d);
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}) -> {t} {{
  if ({nan}(x) || (x > {zero} && {inf}(x))) {{ return x; }}
  if (x < {zero}) {{ return {xnan}(); }}
  if (x == {zero}) {{ return -{xinf}(); }}
{split}
  if (m < {sqrt_half}) {{ m = m * {two}; e = e - 1; }}
  let f = m - {one};
  let s = f / ({two} + f);
  let z = s * s;
  let lm = {two} * s + {two} * s * (z * {series});
  let fe = {t}(e);
  return fe * {ln2_hi} + (lm + fe * {ln2_lo});
}}
"
        )
    })
}

/// Overflow and underflow bounds of `exp` (beyond them the result is ∞ or +0), a constant
/// whose product with them overflows, and the Taylor degree of `e^r` on |r| ≤ ln2/2.
fn exp_bounds(d: DType) -> (&'static str, &'static str, String, usize) {
    if d == DType::F32 {
        ("88.8f", "-104.0f", flit(d, 1e38), 8)
    } else {
        ("709.8lf", "-745.2lf", flit(d, 1e308), 16)
    }
}

/// ln 2 in two parts for `d`: the high part short enough that `n·hi` is exact for every
/// exponent `n` of the type (f32: 15 significant bits, f64: 21).
pub(crate) fn ln2_parts(d: DType) -> (String, String) {
    if d == DType::F32 {
        let hi = f32::from_bits(0x3F31_7200);
        (
            flit(d, hi as f64),
            flit(d, std::f64::consts::LN_2 - hi as f64),
        )
    } else {
        (flit(d, LN2_HI), flit(d, LN2_LO))
    }
}

/// `expc_T(x, xl)`: `e^(x + xl)` for finite `x` and a small correction `xl` (the low part
/// of a pair): `x = n ln 2 + r` with `|r| ≤ ln2/2` (Cody–Waite: `x − n·ln2_hi` is exact), a
/// Taylor polynomial of `e^r`, scaled by `2^n` in two steps (so subnormal results and
/// `n` near the exponent limits stay exact).
pub(crate) fn exp_core(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("expc_{t}");
    let (over, under, big, degree) = exp_bounds(d);
    let mut coeffs = Vec::new();
    let mut f = 1.0f64;
    for k in 0..=degree {
        if k > 0 {
            f /= k as f64;
        }
        coeffs.push(flit(d, f));
    }
    let poly = horner("r", &coeffs);
    let (ln2_hi, ln2_lo) = ln2_parts(d);
    let inv_ln2 = flit(d, std::f64::consts::LOG2_E);
    let zero = flit(d, 0.0);
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}, xl: {t}) -> {t} {{
  if (x > {over}) {{ return x * {big}; }}
  if (x < {under}) {{ return {zero}; }}
  let n = round(x * {inv_ln2});
  let r = ((x - n * {ln2_hi}) - n * {ln2_lo}) + xl;
  let p = {poly};
  let k = i32(n);
  let k1 = k / 2;
  return ldexp(ldexp(p, k1), k - k1);
}}
"
        )
    })
}

/// `exp_T(x)`: NaN stays NaN; everything else through [`exp_core`].
fn exp(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("exp_{t}");
    let nan = h.isnan(d);
    let core = exp_core(h, d);
    let zero = flit(d, 0.0);
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}) -> {t} {{
  if ({nan}(x)) {{ return x; }}
  return {core}(x, {zero});
}}
"
        )
    })
}

/// `expm1(y)` for |y| ≤ 1.25 by its Taylor series (no cancellation near 0).
fn expm1_small(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("expm1s_{t}");
    let terms = if d == DType::F32 { 12 } else { 24 };
    let mut coeffs = Vec::new();
    let mut f = 1.0f64;
    for k in 1..=terms {
        f /= k as f64;
        coeffs.push(flit(d, f));
    }
    let poly = horner("y", &coeffs);
    h.raw(&name, || {
        format!("fn {name}(y: {t}) -> {t} {{ return y * {poly}; }}\n")
    })
}

/// `tanh` that saturates to ±1 where the result rounds to ±1 (no `exp` overflow).
fn tanh(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("tanh_{t}");
    // tanh(x) rounds to 1 for x > 9.02 (f32) and x > 19.07 (f64).
    let big = if d == DType::F32 { "9.5f" } else { "19.5lf" };
    let one = lit(d, 1);
    let zero = lit(d, 0);
    let two = flit(d, 2.0);
    let small = flit(d, 0.625);
    let em = expm1_small(h, d);
    let exp = exp(h, d);
    let nan = h.isnan(d);
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}) -> {t} {{
  // ±0 (and NaN) are their own tanh; the sign of a zero would be lost below.
  if (x == {zero} || {nan}(x)) {{ return x; }}
  if (x > {big}) {{ return {one}; }}
  if (x < -{big}) {{ return -{one}; }}
  let ax = abs(x);
  var r: {t};
  if (ax < {small}) {{
    let em = {em}(-{two} * ax);
    r = -em / ({two} + em);
  }} else {{
    r = {one} - {two} / ({exp}({two} * ax) + {one});
  }}
  return select(r, -r, x < {zero});
}}
"
        )
    })
}
