//! Philox4x32-10 in WGSL, with the 32×32→64-bit product built from 16-bit halves (WGSL
//! has no `mulhi`), and the four draws of `gpuarrays_core::kernel::random` on top. Every
//! step before the final `log`/`sqrt`/`cos`/`sin` of a normal draw is exact (or one correctly
//! rounded product), so uniforms are bit-identical to the CPU reference; normal draws use the
//! software `log`, `cos` and `sin` of [`super::math`] and [`super::trig`]. A normal draw is a
//! Box–Muller pair: each element evaluates its own branch (`ρ·cos θ` for even elements, `ρ·sin
//! θ` for odd), so a shader thread stays one element.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;
use gpuarrays_core::kernel::random::{PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1};

use super::helpers::Helpers;
use super::types::{f32_lit, f64_lit};

/// Registers `mulhilo(a, b) -> vec2<u32>`: the 64-bit product `a·b` as (high, low) words.
pub fn mulhilo(h: &mut Helpers) -> String {
    h.raw("mulhilo", || {
        "fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
  return vec2<u32>(hi, a * b);
}
"
        .to_string()
    })
}

/// Registers `philox(counter, key) -> vec4<u32>` and returns its name.
pub fn philox(h: &mut Helpers) -> String {
    mulhilo(h);
    h.raw("philox", || {
        format!(
            "fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {{
  var c = counter;
  var k = key;
  for (var round = 0u; round < 10u; round++) {{
    if (round > 0u) {{
      k = k + vec2<u32>({w0:#x}u, {w1:#x}u);
    }}
    let p0 = mulhilo({m0:#x}u, c.x);
    let p1 = mulhilo({m1:#x}u, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
  }}
  return c;
}}
",
            w0 = PHILOX_W0,
            w1 = PHILOX_W1,
            m0 = PHILOX_M0,
            m1 = PHILOX_M1
        )
    })
}

/// The expression of an element of a draw of `dist` in `dtype` from the draw's words `r` (a
/// `vec4<u32>` name); `branch` (a `u32` expression, used by normals) picks the element of the
/// Box–Muller pair: 0 the cosine, 1 the sine.
pub fn draw(h: &mut Helpers, dist: Distribution, dtype: DType, r: &str, branch: &str) -> String {
    let m24 = f32_lit(1.0 / 16_777_216.0);
    let m53 = f64_lit(1.0 / 9_007_199_254_740_992.0);
    let unit64 = |a: &str, b: &str| {
        format!("((f64(({a}) >> 5u) * 67108864.0lf + f64(({b}) >> 6u)) * {m53})")
    };
    match (dist, dtype) {
        (Distribution::Uniform, DType::F64) => unit64(&format!("{r}.x"), &format!("{r}.y")),
        (Distribution::Uniform, _) => format!("(f32({r}.x >> 8u) * {m24})"),
        (Distribution::Normal, DType::F64) => {
            let log = super::math::log(h, dtype);
            let cos = super::trig::sin_cos(h, dtype, true);
            let sin = super::trig::sin_cos(h, dtype, false);
            let name = h.raw("normal_f64", || {
                format!(
                    "fn normal_f64(r: vec4<u32>, branch: u32) -> f64 {{
  let u1 = {} + {m53};
  let u2 = {};
  let rho = sqrt(-2.0lf * {log}(u1));
  let theta = {} * u2;
  if (branch == 0u) {{
    return rho * {cos}(theta);
  }}
  return rho * {sin}(theta);
}}
",
                    unit64("r.x", "r.y"),
                    unit64("r.z", "r.w"),
                    f64_lit(std::f64::consts::TAU)
                )
            });
            format!("{name}({r}, {branch})")
        }
        (Distribution::Normal, _) => {
            let log = super::math::log(h, DType::F32);
            let cos = super::trig::sin_cos(h, DType::F32, true);
            let sin = super::trig::sin_cos(h, DType::F32, false);
            let name = h.raw("normal_f32", || {
                format!(
                    "fn normal_f32(r: vec4<u32>, branch: u32) -> f32 {{
  let u1 = f32((r.x >> 8u) + 1u) * {m24};
  let u2 = f32(r.y >> 8u) * {m24};
  let rho = sqrt(-2.0f * {log}(u1));
  let theta = {} * u2;
  if (branch == 0u) {{
    return rho * {cos}(theta);
  }}
  return rho * {sin}(theta);
}}
",
                    f32_lit(std::f32::consts::TAU)
                )
            });
            format!("{name}({r}, {branch})")
        }
    }
}
