//! The conversions of f16 and bf16 in generated C++, without `cuda_fp16.h`/`hip_fp16.h`:
//! NVRTC and hiprtc ship those headers differently (or not at all without an include path),
//! and the host `g++` of the syntax test and the emulator has neither. Every value goes
//! through f32 (see [`super::element_types`]), so four functions and the round-once entries
//! are all a kernel needs.
//!
//! On NVIDIA devices (`__CUDA_ARCH__`) f16 ↔ f32 are the hardware's `cvt.f32.f16` and
//! `cvt.rn.f16.f32` (inline PTX; round to nearest even, subnormals kept, as below): the
//! branchy integer version held f16 rows of the bench to 34 % (axpy) and 71 % (sum) of the
//! copy bandwidth at 1 GiB on an H100, while bf16, whose conversions are two integer
//! operations, ran at 98–102 %. Elsewhere (AMD, and the host compilers of the tests) the
//! integer version below, which `tests/half_convert_exact.rs` checks bit for bit against the
//! CPU reference; the GPU conformance run checks the PTX one.
//!
//! Rounding is to nearest, ties to even, **once** from the exact source value, as the CPU
//! reference rounds:
//! - f32 → f16: the exponent rebiased and the 13 dropped bits rounded with the usual
//!   `+ 0xfff + lsb` carry; results below 2^-14 are f16 subnormals, computed as
//!   `rint(|x|·2^24)` (exact scaling, one rounding); `|x| ≥ 65520` overflows to infinity.
//! - f32 → bf16: the 16 dropped bits rounded the same way (bf16 has f32's exponent range).
//! - f64 and 64-bit integers → a half: first to f32 "to odd" (truncate, then set the lowest
//!   bit if anything was dropped), so that the second rounding to 11 or 8 bits is the single
//!   rounding of the exact value (rounding to nearest twice is wrong: `1 + 2^-11 + 2^-40`
//!   would become the f16 tie `1 + 2^-11` and then 1). 64-bit integers take the same step
//!   into f64 first (53 bits kept, the rest folded into the lowest bit).
//! - NaN: quiet, the top payload bits kept (the `half` crate's rule); the sign is kept.

/// The C++ text: the `f16`/`bf16` bit structs and their conversions.
pub const HALF_TYPES: &str = r#"
struct f16 { u16 bits; };
struct bf16 { u16 bits; };
GA_INLINE f16 ga_f16_bits(const u32 b) { f16 r; r.bits = (u16)b; return r; }
GA_INLINE bf16 ga_bf16_bits(const u32 b) { bf16 r; r.bits = (u16)b; return r; }
#if defined(__CUDA_ARCH__)
GA_INLINE f32 ga_f32_of(const f16 h) {
  f32 f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
GA_INLINE f16 ga_to_f16(const f32 f) {
  u16 b;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(b) : "f"(f));
  return ga_f16_bits(b);
}
#else
GA_INLINE f32 ga_f32_of(const f16 h) {
  const u32 s = ((u32)h.bits & 0x8000u) << 16;
  const u32 e = ((u32)h.bits >> 10) & 0x1fu, m = (u32)h.bits & 0x3ffu;
  if (e == 0x1fu) return __uint_as_float(s | 0x7f800000u | (m << 13));
  if (e == 0u) {
    const f32 v = (f32)m * 5.9604644775390625e-8f;
    return s != 0u ? -v : v;
  }
  return __uint_as_float(s | ((e + 112u) << 23) | (m << 13));
}
GA_INLINE f16 ga_to_f16(const f32 f) {
  const u32 x = __float_as_uint(f);
  const u32 s = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return ga_f16_bits(s | 0x7e00u | ((a & 0x7fffffu) >> 13));
  if (a >= 0x477ff000u) return ga_f16_bits(s | 0x7c00u);
  if (a < 0x38800000u) return ga_f16_bits(s | (u32)rintf(__uint_as_float(a) * 16777216.0f));
  const u32 r = a - 0x38000000u;
  return ga_f16_bits(s | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
}
#endif
GA_INLINE f32 ga_f32_of(const bf16 h) { return __uint_as_float((u32)h.bits << 16); }
GA_INLINE bf16 ga_to_bf16(const f32 f) {
  const u32 x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return ga_bf16_bits((x >> 16) | 0x40u);
  return ga_bf16_bits((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
GA_INLINE f32 ga_f32_odd(const f64 d) {
  const f32 n = (f32)d;
  if ((f64)n == d || d != d || (__float_as_uint(n) & 0x7fffffffu) == 0x7f800000u) return n;
  u32 b = __float_as_uint(n);
  if (fabs((f64)n) > fabs(d)) b -= 1u;
  return __uint_as_float(b | 1u);
}
GA_INLINE f64 ga_f64_odd(const u64 m) {
  const int n = 64 - __clzll((i64)m);
  if (n <= 53) return (f64)m;
  const int sh = n - 53;
  const u64 kept = (m >> sh) | ((m & ((1ULL << sh) - 1ULL)) != 0ULL ? 1ULL : 0ULL);
  return (f64)kept * __longlong_as_double((i64)(1023 + sh) << 52);
}
GA_INLINE f64 ga_f64_odd(const i64 x) {
  return x < 0 ? -ga_f64_odd(0ULL - (u64)x) : ga_f64_odd((u64)x);
}
#define GA_ROUND_HALF(T, WIDE)                                                           \
  GA_INLINE f32 ga_round_f16(const T x) { return ga_f32_of(ga_to_f16(WIDE)); }        \
  GA_INLINE f32 ga_round_bf16(const T x) { return ga_f32_of(ga_to_bf16(WIDE)); }
GA_ROUND_HALF(i8, (f32)x)
GA_ROUND_HALF(u8, (f32)x)
GA_ROUND_HALF(i16, (f32)x)
GA_ROUND_HALF(u16, (f32)x)
GA_ROUND_HALF(i32, ga_f32_odd((f64)x))
GA_ROUND_HALF(u32, ga_f32_odd((f64)x))
GA_ROUND_HALF(i64, ga_f32_odd(ga_f64_odd(x)))
GA_ROUND_HALF(u64, ga_f32_odd(ga_f64_odd(x)))
GA_ROUND_HALF(f32, x)
GA_ROUND_HALF(f64, ga_f32_odd(x))
"#;
