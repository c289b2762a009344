//! Philox4x32-10 in C++, with the exact recipe of `gpuarrays_core::kernel::random`: draw `d`
//! taking `w` words uses stream words `w·d ..`, i.e. words `(w·d) mod 4 ..` of Philox call
//! `(w·d) / 4` (counter `(lo32, hi32, 0, 0)`, key `(lo32(s), hi32(s))`), and yields `e`
//! elements (1 for a uniform; 2 for a normal: `ρ·cos θ`, `ρ·sin θ` of one Box–Muller pair,
//! with one `sincosf`/`sincos`). Everything before `log`/`sqrt`/`sincos` is exact integer or
//! correctly rounded float arithmetic (kernels are compiled without contraction), so uniforms
//! are bit-identical to the CPU's and normals differ by the rounding of those functions. The
//! f32 pair takes `ln` and `sincos` from [`super::unit_math`] (written for exactly these
//! arguments; it must be emitted before this text). Emitted only into programs that draw
//! random numbers.
//!
//! One call feeds `4/w` draws: the elementwise kernel's vector loop evaluates each call of its
//! vector once (`ga_philox` into `rq[c]`), each draw of the vector once (`ga_vec_words` gives
//! draw `k` its words, a constant call and offset per unrolled `k`; `ga_draw_*` writes its `e`
//! elements into `rv[k·e ..]`), and stores the vector with one 16-byte store: a float4 of
//! four normals from one call. The scalar tail computes element `i`'s whole draw and keeps
//! its element (`ga_at_*`). (Left to common-subexpression elimination, the host compiler kept
//! one Philox evaluation per element.)

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;

/// The Philox generator and the four distribution functions.
pub const PHILOX: &str = r#"
struct GaWords { u32 r0; u32 r1; u32 r2; u32 r3; };
// The full 64-bit product of two 32-bit words. NVRTC turned `(u64)a * (u64)b` into a wide
// multiply plus an add of a zero high word (SASS of the normal kernel, H200: 20 extra IADD3
// per Philox call), so on NVIDIA devices it is PTX's `mul.wide.u32`, one instruction.
GA_INLINE u64 ga_mul_wide(const u32 a, const u32 b) {
#if defined(__CUDA_ARCH__)
  u64 p;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
  return p;
#else
  return (u64)a * (u64)b;
#endif
}
GA_INLINE GaWords ga_philox(u64 index, u64 seed) {
  u32 c0 = (u32)index, c1 = (u32)(index >> 32), c2 = 0u, c3 = 0u;
  u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    // One 32x32 -> 64-bit product per multiplier gives both halves (written as a high-half
    // product and a separate low product, NVRTC issued two multiplies for each).
    const u64 p0 = ga_mul_wide(0xD2511F53u, c0), p1 = ga_mul_wide(0xCD9E8D57u, c2);
    const u32 n0 = (u32)(p1 >> 32) ^ c1 ^ k0, n2 = (u32)(p0 >> 32) ^ c3 ^ k1;
    c0 = n0; c1 = (u32)p1; c2 = n2; c3 = (u32)p0;
  }
  GaWords w; w.r0 = c0; w.r1 = c1; w.r2 = c2; w.r3 = c3;
  return w;
}
GA_INLINE u32 ga_pick(const GaWords r, const u32 o) {
  return o == 0u ? r.r0 : (o == 1u ? r.r1 : (o == 2u ? r.r2 : r.r3));
}
// The words of draw `draw` taking W words, first word in r0.
template <int W>
GA_INLINE GaWords ga_draw_words(const u64 draw, const u64 seed) {
  const u64 word = draw * (u64)W;
  const GaWords r = ga_philox(word >> 2, seed);
  if (W == 4) return r;
  const u32 o = (u32)word & 3u;
  GaWords w; w.r0 = ga_pick(r, o); w.r1 = ga_pick(r, (o + 1u) & 3u); w.r2 = 0u; w.r3 = 0u;
  return w;
}
// Draw k of a vector whose W-word draws start at a stream word `off` (mod 4) of call q[0]:
// with NC > 1 calls the vector starts on a call boundary (off = 0) and k's call is constant.
template <int W, int NC>
GA_INLINE GaWords ga_vec_words(const GaWords* q, const int k, const u32 off) {
  const u32 word = (u32)(k * W) + (NC == 1 ? off : 0u);
  const GaWords r = q[NC == 1 ? 0 : (k * W) >> 2];
  if (W == 4) return r;
  const u32 o = word & 3u;
  GaWords w; w.r0 = ga_pick(r, o); w.r1 = ga_pick(r, (o + 1u) & 3u); w.r2 = 0u; w.r3 = 0u;
  return w;
}
GA_INLINE f64 ga_unit_f64(u32 a, u32 b) { return ((f64)(a >> 5) * 67108864.0 + (f64)(b >> 6)) * 0x1p-53; }
// Each draw writes its elements (1, or the Box-Muller pair cos, sin) to z.
GA_INLINE void ga_draw_uniform_f32(const GaWords w, f32* z) { z[0] = (f32)(w.r0 >> 8) * 0x1p-24f; }
GA_INLINE void ga_draw_uniform_f64(const GaWords w, f64* z) { z[0] = ga_unit_f64(w.r0, w.r1); }
GA_INLINE void ga_draw_normal_f32(const GaWords w, f32* z) {
  const f32 u1 = (f32)((w.r0 >> 8) + 1u) * 0x1p-24f;
  const f32 u2 = (f32)(w.r1 >> 8) * 0x1p-24f;
  const f32 rho = sqrtf(-2.0f * ga_unit_ln(u1));
  f32 s, c;
  ga_sincos_turn(6.28318530717958647692f * u2, &s, &c);
  z[0] = rho * c; z[1] = rho * s;
}
GA_INLINE void ga_draw_normal_f64(const GaWords w, f64* z) {
  const f64 u1 = ga_unit_f64(w.r0, w.r1) + 0x1p-53;
  const f64 u2 = ga_unit_f64(w.r2, w.r3);
  const f64 rho = sqrt(-2.0 * log(u1));
  f64 s, c;
  sincos(6.28318530717958647692 * u2, &s, &c);
  z[0] = rho * c; z[1] = rho * s;
}
// Element `index` alone (the scalar tail): its whole draw, then its element.
GA_INLINE f32 ga_at_uniform_f32(const u64 index, const u64 seed) { f32 z[1]; ga_draw_uniform_f32(ga_draw_words<1>(index, seed), z); return z[0]; }
GA_INLINE f64 ga_at_uniform_f64(const u64 index, const u64 seed) { f64 z[1]; ga_draw_uniform_f64(ga_draw_words<2>(index, seed), z); return z[0]; }
GA_INLINE f32 ga_at_normal_f32(const u64 index, const u64 seed) { f32 z[2]; ga_draw_normal_f32(ga_draw_words<2>(index >> 1, seed), z); return z[index & 1u]; }
GA_INLINE f64 ga_at_normal_f64(const u64 index, const u64 seed) { f64 z[2]; ga_draw_normal_f64(ga_draw_words<4>(index >> 1, seed), z); return z[index & 1u]; }
"#;

/// The C++ name part of draws of `dist` in `dtype` (`uniform_f32`, ..., `normal_f64`): the
/// functions are `ga_draw_{name}` (one draw into an array) and `ga_at_{name}` (one element).
pub fn draw_name(dist: Distribution, dtype: DType) -> Option<&'static str> {
    Some(match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => "uniform_f32",
        (Distribution::Uniform, DType::F64) => "uniform_f64",
        (Distribution::Normal, DType::F32) => "normal_f32",
        (Distribution::Normal, DType::F64) => "normal_f64",
        _ => return None,
    })
}
