//! Philox4x32-10 in C++, with the exact recipe of `gpuarrays_core::kernel::random`: element
//! `i` of a draw taking `w` words per element uses stream words `w·i ..`, i.e. words
//! `(w·i) mod 4 ..` of Philox call `(w·i) / 4` (counter `(lo32, hi32, 0, 0)`, key
//! `(lo32(s), hi32(s))`). Everything before `log`/`cos`/`sqrt` is exact integer or
//! exactly-representable float arithmetic, so uniforms are bit-identical to the CPU's.
//! Emitted only into programs that draw random numbers.
//!
//! One call feeds `4/w` consecutive elements: the elementwise kernel's vector loop evaluates
//! each call of its vector once (`ga_philox` into `rq[c]`) and gives element `j` its words with
//! `ga_vec_words` (a constant call and offset per unrolled `j`); the scalar tail uses
//! `ga_draw_words`. (Left to common-subexpression elimination, the host compiler kept one
//! Philox evaluation per element.)

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;

/// The Philox generator and the four distribution functions.
pub const PHILOX: &str = r#"
struct GaWords { u32 r0; u32 r1; u32 r2; u32 r3; };
GA_INLINE u32 ga_mulhi(u32 a, u32 b) { return (u32)(((u64)a * (u64)b) >> 32); }
GA_INLINE GaWords ga_philox(u64 index, u64 seed) {
  u32 c0 = (u32)index, c1 = (u32)(index >> 32), c2 = 0u, c3 = 0u;
  u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    const u32 hi0 = ga_mulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const u32 hi1 = ga_mulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    const u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
  }
  GaWords w; w.r0 = c0; w.r1 = c1; w.r2 = c2; w.r3 = c3;
  return w;
}
GA_INLINE u32 ga_pick(const GaWords r, const u32 o) {
  return o == 0u ? r.r0 : (o == 1u ? r.r1 : (o == 2u ? r.r2 : r.r3));
}
// The words of element `index` of a draw taking W words per element, first word in r0.
template <int W>
GA_INLINE GaWords ga_draw_words(const u64 index, const u64 seed) {
  const u64 word = index * (u64)W;
  const GaWords r = ga_philox(word >> 2, seed);
  if (W == 4) return r;
  const u32 o = (u32)word & 3u;
  GaWords w; w.r0 = ga_pick(r, o); w.r1 = ga_pick(r, (o + 1u) & 3u); w.r2 = 0u; w.r3 = 0u;
  return w;
}
// Element j of a vector whose W-word draws start at a stream word `off` (mod 4) of call q[0]:
// with NC > 1 calls the vector starts on a call boundary (off = 0) and j's call is constant.
template <int W, int NC>
GA_INLINE GaWords ga_vec_words(const GaWords* q, const int j, const u32 off) {
  const u32 word = (u32)(j * W) + (NC == 1 ? off : 0u);
  const GaWords r = q[NC == 1 ? 0 : (j * W) >> 2];
  if (W == 4) return r;
  const u32 o = word & 3u;
  GaWords w; w.r0 = ga_pick(r, o); w.r1 = ga_pick(r, (o + 1u) & 3u); w.r2 = 0u; w.r3 = 0u;
  return w;
}
GA_INLINE f64 ga_unit_f64(u32 a, u32 b) { return ((f64)(a >> 5) * 67108864.0 + (f64)(b >> 6)) * 0x1p-53; }
GA_INLINE f32 ga_uniform_f32(GaWords w) { return (f32)(w.r0 >> 8) * 0x1p-24f; }
GA_INLINE f64 ga_uniform_f64(GaWords w) { return ga_unit_f64(w.r0, w.r1); }
GA_INLINE f32 ga_normal_f32(GaWords w) {
  const f32 u1 = (f32)((w.r0 >> 8) + 1u) * 0x1p-24f;
  const f32 u2 = (f32)(w.r1 >> 8) * 0x1p-24f;
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}
GA_INLINE f64 ga_normal_f64(GaWords w) {
  const f64 u1 = ga_unit_f64(w.r0, w.r1) + 0x1p-53;
  const f64 u2 = ga_unit_f64(w.r2, w.r3);
  return sqrt(-2.0 * log(u1)) * cos(6.28318530717958647692 * u2);
}
"#;

/// The C++ expression of one draw of `dist` in `dtype` from the element's words `words` (a
/// `GaWords` expression, first word in `r0`: see `ga_draw_words` and `ga_vec_words`).
pub fn transform(dist: Distribution, dtype: DType, words: &str) -> Option<String> {
    let f = match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => "ga_uniform_f32",
        (Distribution::Uniform, DType::F64) => "ga_uniform_f64",
        (Distribution::Normal, DType::F32) => "ga_normal_f32",
        (Distribution::Normal, DType::F64) => "ga_normal_f64",
        _ => return None,
    };
    Some(format!("{f}({words})"))
}
