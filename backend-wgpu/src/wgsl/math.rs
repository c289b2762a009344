//! Transcendental functions with the C library's special cases: `sqrt`, `exp`, `log`,
//! `sin`, `cos`, `tanh` and `pow` of f32 and f64.
//!
//! WGSL's builtins leave special values to the driver (`pow` of a negative base is
//! undefined, `tanh` of a large argument may overflow to NaN through `exp`), so each
//! function here handles the special cases of C's definitions explicitly and uses the
//! builtin only where the builtin is specified.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::UnaryOp;

use super::helpers::Helpers;
use super::types::{lit, ty};

/// ln 2 in two parts: the high part has 32 trailing zero bits, so `n · LN2_HI` is exact for
/// the exponents that occur.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);

/// `op(a)` for a transcendental `op` of f32/f64, or `Err(reason)` where this backend does
/// not (yet) compute it to the C library's accuracy (the caller reports it unsupported).
pub fn unary(h: &mut Helpers, op: UnaryOp, d: DType, a: &str) -> Result<String, String> {
    Ok(match op {
        UnaryOp::Sqrt => format!("sqrt({a})"),
        UnaryOp::Exp if d == DType::F32 => format!("{}({a})", exp_f32(h)),
        UnaryOp::Exp => format!("{}({a})", exp_f64(h)),
        UnaryOp::Log => format!("{}({a})", log(h, d)),
        UnaryOp::Sin | UnaryOp::Cos => return Err(not_accurate(op.name(), d)),
        _ => format!("{}({a})", tanh(h, d)),
    })
}

/// Why an operation is refused: WGSL's builtins are not accurate enough and this backend
/// has no software version yet.
pub fn not_accurate(op: &str, d: DType) -> String {
    format!(
        "{op} of {d} is not computed by the wgpu backend yet: WGSL's builtin is not accurate to \
         the C library (large arguments, drivers' approximations) and no software version exists"
    )
}

/// Horner evaluation `c0 + z (c1 + z (c2 + ...))` of literal coefficients.
fn horner(z: &str, coeffs: &[String]) -> String {
    let mut e = coeffs[coeffs.len() - 1].clone();
    for c in coeffs[..coeffs.len() - 1].iter().rev() {
        e = format!("({c} + {z} * {e})");
    }
    e
}

fn flit(d: DType, x: f64) -> String {
    if d == DType::F32 {
        super::types::f32_lit(x as f32)
    } else {
        super::types::f64_lit(x)
    }
}

/// `log(x)`: `x = 2^e m` with `m` in [√½, √2), `log m = 2 atanh(s)`, `s = (m − 1)/(m + 1)`,
/// as the odd series `2s + 2s(s²/3 + s⁴/5 + ...)`, plus `e ln 2` in two parts.
fn log(h: &mut Helpers, d: DType) -> String {
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
    let split = if d == DType::F32 {
        "  var y = x;
  var e = 0;
  if (y < 1.1754943508222875e-38f) { y = y * 16777216.0f; e = -24; }
  let bits = bitcast<u32>(y);
  e = e + i32((bits >> 23u) & 0xffu) - 126;
  var m = bitcast<f32>((bits & 0x007fffffu) | 0x3f000000u);"
            .to_string()
    } else {
        "  var y = x;
  var e = 0;
  for (var i = 0; i < 20 && y >= 18446744073709551616.0lf; i++) { y = y * 5.421010862427522e-20lf; e = e + 64; }
  for (var i = 0; i < 20 && y < 1.0lf; i++) { y = y * 18446744073709551616.0lf; e = e - 64; }
  let e2 = i32((bitcast<u32>(f32(y)) >> 23u) & 0xffu) - 126;
  var m = ldexp(y, -e2);
  e = e + e2;
  if (m >= 1.0lf) { m = m * 0.5lf; e = e + 1; }
  if (m < 0.5lf) { m = m * 2.0lf; e = e - 1; }"
            .to_string()
    };
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}) -> {t} {{
  if ({nan}(x) || (x > {zero} && {inf}(x))) {{ return x; }}
  if (x < {zero}) {{ return (x - x) / (x - x); }}
  if (x == {zero}) {{ return -{one} / (x - x); }}
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

/// `exp(x)` of f64: `x = n ln 2 + r`, `|r| ≤ ln2/2` (Cody–Waite, two-part ln 2), a degree-16
/// Taylor polynomial of `e^r`, scaled by `2^n`.
fn exp_f64(h: &mut Helpers) -> String {
    let nan = h.isnan(DType::F64);
    let d = DType::F64;
    let coeffs: Vec<String> = {
        let mut c = Vec::new();
        let mut f = 1.0f64;
        for k in 0..17 {
            if k > 0 {
                f /= k as f64;
            }
            c.push(flit(d, f));
        }
        c
    };
    let poly = horner("r", &coeffs);
    let (ln2_hi, ln2_lo) = (flit(d, LN2_HI), flit(d, LN2_LO));
    let inv_ln2 = flit(d, std::f64::consts::LOG2_E);
    h.raw("exp_f64", || {
        format!(
            "fn exp_f64(x: f64) -> f64 {{
  if ({nan}(x)) {{ return x; }}
  if (x > 709.8lf) {{ return x * {big}; }}
  if (x < -745.2lf) {{ return 0.0lf; }}
  let n = round(x * {inv_ln2});
  let r = (x - n * {ln2_hi}) - n * {ln2_lo};
  let p = {poly};
  let k = i32(n);
  // Two steps keep 2^k representable where p·2^k is (subnormal results, k near ±1024).
  let k1 = k / 2;
  return ldexp(ldexp(p, k1), k - k1);
}}
",
            big = flit(d, 1e308)
        )
    })
}

/// ln 2 in two f32 parts (fdlibm's `expf`): the high part has 8 trailing zero bits, so
/// `n · LN2_HI_F32` is exact for every `|n| ≤ 150` that occurs.
const LN2_HI_F32: f32 = f32::from_bits(0x3f31_7200);
const LN2_LO_F32: f32 = f32::from_bits(0x35bf_be8e);

/// `exp(x)` of f32 in f32 arithmetic, the same way as [`exp_f64`] with a degree-8 Taylor
/// polynomial (truncation below 0.1 ulp on `|r| ≤ ln2/2`). The WGSL builtin is not used:
/// its error grows with `|x|` (Vulkan allows `3 + 2|x|` ulp), and lavapipe's was 8.1 ulp off
/// at `exp(88.7)`, next to overflow.
fn exp_f32(h: &mut Helpers) -> String {
    let nan = h.isnan(DType::F32);
    let d = DType::F32;
    let coeffs: Vec<String> = {
        let mut c = Vec::new();
        let mut f = 1.0f64;
        for k in 0..9 {
            if k > 0 {
                f /= k as f64;
            }
            c.push(flit(d, f));
        }
        c
    };
    let poly = horner("r", &coeffs);
    let (ln2_hi, ln2_lo) = (
        super::types::f32_lit(LN2_HI_F32),
        super::types::f32_lit(LN2_LO_F32),
    );
    let inv_ln2 = flit(d, std::f64::consts::LOG2_E);
    h.raw("exp_f32", || {
        format!(
            "fn exp_f32(x: f32) -> f32 {{
  if ({nan}(x)) {{ return x; }}
  if (x > 88.72284f) {{ return x * {big}; }}
  if (x < -104.0f) {{ return 0.0f; }}
  let n = round(x * {inv_ln2});
  let r = (x - n * {ln2_hi}) - n * {ln2_lo};
  let p = {poly};
  let k = i32(n);
  // Two steps keep 2^k representable where p·2^k is (subnormal results, k near ±128).
  let k1 = k / 2;
  return ldexp(ldexp(p, k1), k - k1);
}}
",
            big = flit(d, 1e38)
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
    let nan = h.isnan(d);
    let exp = if d == DType::F32 {
        "exp".to_string()
    } else {
        exp_f64(h)
    };
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

/// C's `pow(a, b)`: refused for now (`exp2(y log2 x)` in the element type loses up to
/// |y log2 x| ulps; an extended-precision version is future work).
pub fn pow(_h: &mut Helpers, d: DType, _a: &str, _b: &str) -> Result<String, String> {
    Err(not_accurate("pow", d))
}

/// The special cases of C's `pow` around `exp2(y log2 x)` (kept for the accurate version).
#[allow(dead_code)]
fn pow_special(h: &mut Helpers, d: DType, a: &str, b: &str) -> String {
    let t = ty(d);
    let name = format!("pow_{t}");
    let nan = h.isnan(d);
    let inf = h.isinf(d);
    let one = lit(d, 1);
    let zero = lit(d, 0);
    let half = if d == DType::F32 { "0.5f" } else { "0.5lf" };
    let f = h.raw(&name, || {
        format!(
            "fn {name}(x: {t}, y: {t}) -> {t} {{
  if (y == {zero} || x == {one}) {{ return {one}; }}
  if ({nan}(x) || {nan}(y)) {{ return x + y; }}
  let ax = abs(x);
  if ({inf}(y)) {{
    if (ax == {one}) {{ return {one}; }}
    if ((ax < {one}) == (y > {zero})) {{ return {zero}; }}
    return abs(y);
  }}
  let y_int = floor(y) == y;
  let y_odd = y_int && fract(y * {half}) != {zero};
  let neg = x < {zero} || (x == {zero} && {one} / x < {zero});
  if (x < {zero} && !{inf}(x) && !y_int) {{ return (x - x) / (x - x); }}
  var r: {t};
  if (ax == {zero}) {{
    r = select({zero}, {one} / ax, y < {zero});
  }} else if ({inf}(ax)) {{
    r = select(ax, {zero}, y < {zero});
  }} else {{
    r = exp2(y * log2(ax));
  }}
  return select(r, -r, neg && y_odd);
}}
"
        )
    });
    format!("{f}({a}, {b})")
}
