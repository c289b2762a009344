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

/// `op(a)` for a transcendental `op` of f32/f64.
pub fn unary(h: &mut Helpers, op: UnaryOp, d: DType, a: &str) -> String {
    match op {
        UnaryOp::Sqrt => format!("sqrt({a})"),
        UnaryOp::Exp => format!("exp({a})"),
        UnaryOp::Log => format!("log({a})"),
        UnaryOp::Sin => format!("sin({a})"),
        UnaryOp::Cos => format!("cos({a})"),
        _ => format!("{}({a})", tanh(h, d)),
    }
}

/// `tanh` that saturates to ±1 where the result rounds to ±1 (no `exp` overflow).
fn tanh(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("tanh_{t}");
    // tanh(x) rounds to 1 for x > 9.02 (f32) and x > 19.07 (f64).
    let big = if d == DType::F32 { "9.5f" } else { "19.5lf" };
    let one = lit(d, 1);
    h.raw(&name, || {
        format!(
            "fn {name}(x: {t}) -> {t} {{
  if (x > {big}) {{ return {one}; }}
  if (x < -{big}) {{ return -{one}; }}
  return tanh(x);
}}
"
        )
    })
}

/// C's `pow(a, b)`.
pub fn pow(h: &mut Helpers, d: DType, a: &str, b: &str) -> String {
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
