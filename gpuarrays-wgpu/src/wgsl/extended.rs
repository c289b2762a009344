//! Extended-precision building blocks for the software math (`pow`, `sin`, `cos`): error-free
//! sums and products of f32/f64 (a value and its exact rounding error), exact splitting of
//! a float into its exponent and integer significand words, and NaN/∞ made at run time.
//!
//! **Why the "opaque one".** SPIR-V lets a driver reassociate floating-point arithmetic
//! unless each instruction is marked `NoContraction`, which WGSL cannot express, and Mesa
//! does: it rewrites `(a + b) − a` to `b` and `a − a` to `0`, which turns the error term of
//! a compensated sum into zero. Every intermediate whose algebraic identity would let the
//! compiler cancel an error term is therefore multiplied by `xone_T()`: 1.0 at run time,
//! but read from the parameter block (word 0 of every kernel is a count below 2^31, never
//! `0xffffffff`), so no compiler can fold it. Products whose exactness matters are split so
//! that every partial product is exact: then fusing a multiply into an add (the one
//! contraction Vulkan allows everywhere) changes nothing.

use gpuarrays_core::DType;

use super::helpers::Helpers;
use super::types::{f64_lit, ty};

/// The condition that is false at run time but unknown to the compiler.
const NEVER: &str = "(P.w[0].x == 0xffffffffu)";

/// `xone_T()`: 1.0 of `d` that no compiler can constant-fold.
pub fn one(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("xone_{t}");
    let (a, b) = if d == DType::F32 {
        ("1.0f", "2.0f")
    } else {
        ("1.0lf", "2.0lf")
    };
    h.raw(&name, || {
        format!("fn {name}() -> {t} {{ return select({a}, {b}, {NEVER}); }}\n")
    })
}

/// `xnan_T()`: a quiet NaN made at run time (a NaN or ∞ constant is a WGSL compile error).
pub fn nan(h: &mut Helpers, d: DType) -> String {
    let name = format!("xnan_{}", ty(d));
    h.raw(&name, || {
        let bits = format!("bitcast<f32>(0x7fc00000u | select(0u, 1u, {NEVER}))");
        if d == DType::F32 {
            format!("fn {name}() -> f32 {{ return {bits}; }}\n")
        } else {
            format!("fn {name}() -> f64 {{ return f64({bits}); }}\n")
        }
    })
}

/// `xinf_T()`: +∞ made at run time.
pub fn inf(h: &mut Helpers, d: DType) -> String {
    let name = format!("xinf_{}", ty(d));
    h.raw(&name, || {
        let bits = format!("bitcast<f32>(0x7f800000u + select(0u, 1u, {NEVER}))");
        if d == DType::F32 {
            format!("fn {name}() -> f32 {{ return {bits}; }}\n")
        } else {
            format!("fn {name}() -> f64 {{ return f64({bits}); }}\n")
        }
    })
}

/// `two_sum_T(a, b)`: `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly (Knuth).
pub fn two_sum(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let one = one(h, d);
    let name = format!("two_sum_{t}");
    h.raw(&name, || {
        format!(
            "fn {name}(a: {t}, b: {t}) -> vec2<{t}> {{
  let s = (a + b) * {one}();
  let bb = (s - a) * {one}();
  return vec2<{t}>(s, (a - (s - bb)) + (b - bb));
}}
"
        )
    })
}

/// `fast_two_sum_T(a, b)`: as [`two_sum`] when `|a| ≥ |b|` or `a = 0` (Dekker).
pub fn fast_two_sum(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let one = one(h, d);
    let name = format!("fast_two_sum_{t}");
    h.raw(&name, || {
        format!(
            "fn {name}(a: {t}, b: {t}) -> vec2<{t}> {{
  let s = (a + b) * {one}();
  return vec2<{t}>(s, b - (s - a));
}}
"
        )
    })
}

/// `split_T(a)`: `(hi, lo)` with `a = hi + lo` exactly and both halves short enough that
/// products of halves are exact. f32: by masking the low 12 significand bits; f64:
/// Veltkamp's splitting with 2^27 + 1 (for `|a| < 2^996`).
pub fn split(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("split_{t}");
    if d == DType::F32 {
        return h.raw(&name, || {
            format!(
                "fn {name}(a: f32) -> vec2<f32> {{
  let hi = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u);
  return vec2<f32>(hi, a - hi);
}}
"
            )
        });
    }
    let one = one(h, d);
    h.raw(&name, || {
        format!(
            "fn {name}(a: f64) -> vec2<f64> {{
  let c = (134217729.0lf * a) * {one}();
  let t = (c - a) * {one}();
  let hi = c - t;
  return vec2<f64>(hi, a - hi);
}}
"
        )
    })
}

/// `two_prod_T(a, b)`: `(p, e)` with `p = fl(a·b)` and `a·b = p + e` (Dekker; exact for f32,
/// and for f64 when `|a|, |b| < 2^996` and nothing underflows).
pub fn two_prod(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let sp = split(h, d);
    let name = format!("two_prod_{t}");
    h.raw(&name, || {
        format!(
            "fn {name}(a: {t}, b: {t}) -> vec2<{t}> {{
  let p = a * b;
  let x = {sp}(a);
  let y = {sp}(b);
  return vec2<{t}>(p, ((x.x * y.x - p) + x.x * y.y + x.y * y.x) + x.y * y.y);
}}
"
        )
    })
}

/// Registers `mulhilo(a, b) -> vec2<u32>`: the 64-bit product `a·b` as (high, low) words,
/// from 16-bit halves (WGSL has no `mulhi`), and returns its name.
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

/// `mac(acc, a, b, c)`: `acc + a·b + c` over u32 words as `(low word, carry word)`.
pub fn mac(h: &mut Helpers) -> String {
    mulhilo(h);
    h.raw("mac", || {
        "fn mac(acc: u32, a: u32, b: u32, c: u32) -> vec2<u32> {
  let p = mulhilo(a, b);
  let s1 = acc + p.y;
  let s2 = s1 + c;
  return vec2<u32>(s2, p.x + select(0u, 1u, s1 < p.y) + select(0u, 1u, s2 < c));
}
"
        .to_string()
    })
}

/// `frexp1_f64(x)`: `(m, e)` with `x = m·2^e`, `m` in [1, 2), for finite `x > 0`, by
/// scaling with exact powers of two (lavapipe's compiler cannot build an f64 `frexp`, and
/// WGSL has no f64 bit casts without 64-bit integers). The exponent comes back as an f64.
pub fn frexp1_f64(h: &mut Helpers) -> String {
    h.raw("frexp1_f64", || {
        let mut s = String::from(
            "fn frexp1_f64(x: f64) -> vec2<f64> {
  var y = x;
  var e = 0;
",
        );
        // Subnormals first (2^-1074 .. 2^-1022), then a binary search on the exponent.
        s.push_str(&format!(
            "  if (y < {}) {{ y = y * {}; e = e - 64; }}\n",
            f64_lit(f64::MIN_POSITIVE),
            f64_lit(2f64.powi(64))
        ));
        for k in [512, 256, 128, 64, 32, 16, 8, 4, 2, 1] {
            s.push_str(&format!(
                "  if (y >= {}) {{ y = y * {}; e = e + {k}; }}\n",
                f64_lit(2f64.powi(k)),
                f64_lit(2f64.powi(-k))
            ));
        }
        for k in [512, 256, 128, 64, 32, 16, 8, 4, 2, 1] {
            s.push_str(&format!(
                "  if (y < {}) {{ y = y * {}; e = e - {k}; }}\n",
                f64_lit(2f64.powi(1 - k)),
                f64_lit(2f64.powi(k))
            ));
        }
        s.push_str("  return vec2<f64>(y, f64(e));\n}\n");
        s
    })
}
