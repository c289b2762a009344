//! C's `pow(x, y)` for f32 and f64: every special case of C99 Annex F, and `|x|^y` to a few
//! ulps everywhere else.
//!
//! `exp2(y·log2 x)` in the element type is not enough: the exponent's rounding error is
//! multiplied by `|y·ln x|` (up to ~745), so `ln x` is computed with about twice the type's
//! precision (a pair `(hi, lo)`, with the error-free sums and products of
//! [`super::extended`]):
//! `x = m·2^e` with `m` in [√½, √2), `s = (m − 1)/(m + 1)` as a pair (its division residual
//! computed exactly), `ln m = 2s + (2/3)s³ + s⁵Q(s²)` with the first two terms as pairs and
//! the small tail `Q` in plain arithmetic, then `e·ln 2` added in two parts (`ln2_hi` has
//! enough trailing zeros that `e·ln2_hi` is exact). `y·ln x` is formed as a pair and its
//! exponential evaluated with the low part folded into the reduced argument
//! ([`super::math`]'s `expc`).

use gpuarrays_core::DType;

use super::extended;
use super::helpers::Helpers;
use super::math::{self, flit, horner};
use super::types::ty;

/// `pow_T(x, y)`: returns the function's name.
pub fn pow(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("pow_{t}");
    let nan = h.isnan(d);
    let inf = h.isinf(d);
    let xnan = extended::nan(h, d);
    let xinf = extended::inf(h, d);
    let core = pow_core(h, d);
    let (zero, one, half) = (flit(d, 0.0), flit(d, 1.0), flit(d, 0.5));
    // Beyond this |y| the result over- or underflows for every x ≠ 1 (|ln x| ≥ 2^-24 or
    // 2^-53, so |y ln x| ≥ 2^8 resp. 2^11), and the pair arithmetic would overflow.
    let big_y = flit(
        d,
        if d == DType::F32 {
            2f64.powi(32)
        } else {
            2f64.powi(64)
        },
    );
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}, y: {t}) -> {t} {{
  if (y == {zero} || x == {one}) {{ return {one}; }}
  if ({nan}(x) || {nan}(y)) {{ return x + y; }}
  let ax = abs(x);
  if ({inf}(y)) {{
    if (ax == {one}) {{ return {one}; }}
    if ((ax < {one}) == (y > {zero})) {{ return {zero}; }}
    return {xinf}();
  }}
  let y_int = floor(y) == y;
  let y_odd = y_int && fract(y * {half}) != {zero};
  let neg = x < {zero} || (x == {zero} && {one} / x < {zero});
  if (x < {zero} && !{inf}(x) && !y_int) {{ return {xnan}(); }}
  var r: {t};
  if (ax == {zero}) {{
    r = select({zero}, {xinf}(), y < {zero});
  }} else if ({inf}(ax)) {{
    r = select({xinf}(), {zero}, y < {zero});
  }} else if (ax == {one}) {{
    r = {one};
  }} else if (abs(y) >= {big_y}) {{
    r = select({xinf}(), {zero}, (ax < {one}) == (y > {zero}));
  }} else {{
    r = {core}(ax, y);
  }}
  return select(r, -r, neg && y_odd);
}}
"
        )
    })
}

/// `powc_T(ax, y)`: `ax^y` for finite `ax > 0`, finite `y` with `0 < |y| <` the bound above.
fn pow_core(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("powc_{t}");
    let one_fn = extended::one(h, d);
    let two_sum = extended::two_sum(h, d);
    let fast = extended::fast_two_sum(h, d);
    let prod = extended::two_prod(h, d);
    let expc = math::exp_core(h, d);
    let split = if d == DType::F32 {
        "  var y0 = ax;
  var e = 0;
  if (y0 < 1.1754943508222875e-38f) { y0 = y0 * 16777216.0f; e = -24; }
  let bits = bitcast<u32>(y0);
  e = e + i32(bits >> 23u) - 127;
  var m = bitcast<f32>((bits & 0x7fffffu) | 0x3f800000u);
"
        .to_string()
    } else {
        let fr = extended::frexp1_f64(h);
        format!("  let fr = {fr}(ax);\n  var m = fr.x;\n  var e = i32(fr.y);\n")
    };
    let (one, two, half) = (flit(d, 1.0), flit(d, 2.0), flit(d, 0.5));
    let sqrt2 = flit(d, std::f64::consts::SQRT_2);
    // 2/3 in two parts.
    let (tt_h, tt_l) = if d == DType::F32 {
        let hi = (2.0f64 / 3.0) as f32;
        (flit(d, hi as f64), flit(d, 2.0 / 3.0 - hi as f64))
    } else {
        // 2/3 = 0.1010...₂: the f64 nearest is 2/3·(1 − 2^-54), so the rest is 2/3·2^-54.
        (flit(d, 2.0 / 3.0), flit(d, 2.0 / 3.0 * 2f64.powi(-54)))
    };
    let tail_terms = if d == DType::F32 { 5 } else { 11 };
    let q: Vec<String> = (0..tail_terms)
        .map(|k| flit(d, 2.0 / (2 * k + 5) as f64))
        .collect();
    let q = horner("zz.x", &q);
    let (ln2_hi, ln2_lo) = math::ln2_parts(d);
    h.raw(&name, || {
        format!(
            "fn {name}(ax: {t}, y: {t}) -> {t} {{
{split}  if (m > {sqrt2}) {{ m = m * {half}; e = e + 1; }}
  let f = m - {one};
  let dd = {two_sum}(m, {one});
  let sh = (f / dd.x) * {one_fn}();
  let pr = {prod}(sh, dd.x);
  let sl = (((f - pr.x) - pr.y) - sh * dd.y) / dd.x;
  let zz = {prod}(sh, sh);
  let zl = zz.y + {two} * sh * sl;
  let c3 = {prod}(sh, zz.x);
  let c3l = c3.y + (sh * zl + sl * zz.x);
  let t3 = {prod}(c3.x, {tt_h});
  let t3l = t3.y + (c3.x * {tt_l} + c3l * {tt_h});
  let rest = c3.x * zz.x * {q};
  let u = {fast}({two} * sh, t3.x);
  let ul = u.y + ({two} * sl + (t3l + rest));
  let fe = {t}(e);
  let v = {fast}(fe * {ln2_hi}, u.x);
  let l = {fast}(v.x, v.y + (ul + fe * {ln2_lo}));
  let p = {prod}(y, l.x);
  let yl = {fast}(p.x, p.y + y * l.y);
  return {expc}(yl.x, yl.y);
}}
"
        )
    })
}
