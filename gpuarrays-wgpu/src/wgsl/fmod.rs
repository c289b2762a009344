//! `fmod` (the primitive `Fmod`): the exact remainder of truncating division, which WGSL
//! lacks (its `%` of floats is `x − y·trunc(x/y)`, rounded twice).
//!
//! Exact by construction: `d` runs down the multiples `|y|·2^k` that fit in `|x|`, and each
//! subtraction `r − d` has `d ≤ r < 2d`, so it is exact (Sterbenz). At most one step per
//! binary order between `|x|` and `|y|` (some 280 for f32, 2100 for f64).

use gpuarrays_core::DType;

use super::extended;
use super::helpers::Helpers;
use super::math::flit;
use super::types::ty;

/// Registers `fmod_T(x, y)` for f32/f64 and returns its name.
pub fn fmod(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("fmod_{t}");
    let nan = h.isnan(d);
    let inf = h.isinf(d);
    let xnan = extended::nan(h, d);
    let (zero, half, two) = (flit(d, 0.0), flit(d, 0.5), flit(d, 2.0));
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}, y: {t}) -> {t} {{
  let ax = abs(x);
  let ay = abs(y);
  if ({nan}(x) || {nan}(y) || {inf}(x) || ay == {zero}) {{ return {xnan}(); }}
  if (ax < ay) {{ return x; }}
  var d = ay;
  loop {{
    if (!(d * {two} <= ax)) {{ break; }}
    d = d * {two};
  }}
  var r = ax;
  loop {{
    if (!(d >= ay)) {{ break; }}
    if (r >= d) {{ r = r - d; }}
    d = d * {half};
  }}
  return select(r, -r, x < {zero});
}}
"
        )
    })
}
