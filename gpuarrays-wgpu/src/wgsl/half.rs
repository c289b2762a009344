//! f16 and bf16 in WGSL without SHADER_F16: conversions between the 16-bit encodings and
//! f32 written with integer operations on the bits, so they are exact on every adapter (a
//! driver's `pack2x16float` may round any way, and may flush half subnormals).
//!
//! A half value lives in an f32 holding it exactly (`types`); core computes every half
//! operation in f32, and the conversion back rounds once to nearest, ties to even
//! ([`round_into`]). A conversion from a wider source (i32, u32, their 64-bit forms, f64)
//! must round the *exact* value once, never through f32 to nearest (two roundings): the
//! source is first brought to f32 rounding to odd (truncate, then set the last bit if
//! anything was cut off), which keeps 13 more bits than a half has, so rounding that f32 to
//! the half gives the single correctly rounded result.
//!
//! The functions are added to a kernel's source where it names them ([`complete`]).

use std::borrow::Cow;

use gpuarrays_core::DType;

/// f16 bits ↔ f32, bf16 bits ↔ f32, and the rounding of an f32 to either type.
const CONVERSIONS: &str = "
fn ga_h2f(h: u32) -> f32 {
  let s = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0u) { return bitcast<f32>(bitcast<u32>(f32(m) * 0x1p-24f) | s); }
  if (e == 31u) { return bitcast<f32>(s | 0x7f800000u | (m << 13u)); }
  return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}
fn ga_f2h(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  let s = (b >> 16u) & 0x8000u;
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return s | 0x7e00u | ((a >> 13u) & 0x3ffu); }
  if (a >= 0x477ff000u) { return s | 0x7c00u; }
  if (a >= 0x38800000u) { return s | ((a + 0xfffu + ((a >> 13u) & 1u) - 0x38000000u) >> 13u); }
  return s | u32(round(bitcast<f32>(a) * 0x1p24f));
}
fn ga_f2bf(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return (b >> 16u) | 0x40u; }
  return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}
fn ga_round_f16(x: f32) -> f32 { return ga_h2f(ga_f2h(x)); }
fn ga_round_bf16(x: f32) -> f32 { return bitcast<f32>(ga_f2bf(x) << 16u); }
";

/// Integer and f64 sources brought to f32 rounding to odd.
const TO_ODD_32: &str = "
fn ga_u32_odd(m: u32) -> f32 {
  if (m < 0x1000000u) { return f32(m); }
  let sh = 8u - countLeadingZeros(m);
  let sticky = select(0u, 1u, (m & ((1u << sh) - 1u)) != 0u);
  return ldexp(f32((m >> sh) | sticky), i32(sh));
}
fn ga_i32_odd(v: i32) -> f32 {
  let r = ga_u32_odd(bitcast<u32>(abs(v)));
  return select(r, -r, v < 0);
}
";

const TO_ODD_64: &str = "
fn ga_u64_odd(m: u64) -> f32 {
  let hi = u32(m >> 32u);
  if (hi == 0u) { return ga_u32_odd(u32(m)); }
  let sh = 40u - countLeadingZeros(hi);
  let sticky = select(0u, 1u, (m & ((1lu << sh) - 1lu)) != 0lu);
  return ldexp(f32(u32(m >> sh) | sticky), i32(sh));
}
fn ga_i64_odd(v: i64) -> f32 {
  let r = ga_u64_odd(bitcast<u64>(abs(v)));
  return select(r, -r, v < 0li);
}
";

const F64_TO_ODD: &str = "
fn ga_f64_odd(x: f64) -> f32 {
  let f = f32(x);
  if (f64(f) == x || !(x == x)) { return f; }
  var b = bitcast<u32>(f);
  if (abs(f64(f)) > abs(x)) { b = b - 1u; }
  return bitcast<f32>(b | 1u);
}
";

/// The conversion of `a` (of type `from`, not a half) to half type `to`, held as f32.
pub fn round_into(from: DType, to: DType, a: &str) -> String {
    let round = if to == DType::F16 {
        "ga_round_f16"
    } else {
        "ga_round_bf16"
    };
    let odd = match from {
        DType::F32 => a.to_string(),
        DType::I32 => format!("ga_i32_odd({a})"),
        DType::U32 => format!("ga_u32_odd({a})"),
        DType::I64 => format!("ga_i64_odd({a})"),
        DType::U64 => format!("ga_u64_odd({a})"),
        DType::F64 => format!("ga_f64_odd({a})"),
        // 8- and 16-bit integers (and bool, already 0/1) are exact in f32.
        _ => format!("f32({a})"),
    };
    format!("{round}({odd})")
}

/// `source` with the half functions it calls appended (WGSL functions may be declared after
/// their use).
pub fn complete(source: &str) -> Cow<'_, str> {
    if !source.contains("ga_") {
        return Cow::Borrowed(source);
    }
    let mut parts: Vec<&str> = Vec::new();
    if source.contains("ga_h2f")
        || source.contains("ga_f2h")
        || source.contains("ga_f2bf")
        || source.contains("ga_round_")
    {
        parts.push(CONVERSIONS);
    }
    let odd64 = source.contains("ga_u64_odd") || source.contains("ga_i64_odd");
    if odd64 || source.contains("ga_u32_odd") || source.contains("ga_i32_odd") {
        parts.push(TO_ODD_32);
    }
    if odd64 {
        parts.push(TO_ODD_64);
    }
    if source.contains("ga_f64_odd") {
        parts.push(F64_TO_ODD);
    }
    if parts.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut s = source.to_string();
    for p in parts {
        s.push_str(p);
    }
    Cow::Owned(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_source_calls_is_added() {
        assert!(matches!(complete("fn main() {}"), Cow::Borrowed(_)));
        let s = complete("let x = ga_round_f16(ga_i64_odd(v));");
        assert!(
            s.contains("fn ga_h2f") && s.contains("fn ga_u32_odd") && s.contains("fn ga_u64_odd")
        );
        assert!(!s.contains("fn ga_f64_odd"));
    }
}
