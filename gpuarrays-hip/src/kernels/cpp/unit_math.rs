//! `ln` and `sincos` for the f32 normal draw only, where the arguments are known: `u1` is in
//! (0, 1] (a multiple of 2^-24, never subnormal, zero, negative or infinite) and
//! `θ = fl(2π·u2)` is in [0, 2π). The library's `logf` and `sincosf` must also handle
//! subnormals, special values and arguments up to 3.4e38 (a Payne–Hanek reduction behind a
//! branch); here none of that can occur, so each function is a short reduction and one
//! polynomial. Both round like the library functions (within about one unit in the last place,
//! checked for every possible argument by `benches/h200/normal_math_probe.py`), so the draws
//! stay inside the tolerance the backends are held to against the CPU reference (which calls
//! Rust's `ln` and `sin_cos`): the recipe in `gpuarrays_core::kernel::random` is unchanged,
//! only the rounding of these functions, which it leaves to each backend, differs.
//!
//! Why: the f32 normal kernel was issue-bound (Nsight Compute on the H200, 2026-12-01: 84 % SM
//! throughput, ALU pipe 49 %, FMA pipe 42 %, XU 10 %; 70 instructions per output), and the
//! general-purpose `sincosf` and `logf` were most of those instructions.
//!
//! - `ga_unit_ln(u)`: `u = 2^e·f` with `f` in [√½, √2) (integer arithmetic on the bits, no
//!   conversion), `ln u = e·ln2 + log1p(f − 1)`; `f − 1` is exact, `log1p(t) = t + t·(t·(−½ +
//!   t·R(t)))` with `R` a degree-7 polynomial fitted (weighted least squares, Lawson
//!   iterations, float64) for relative error 5.8e-9 on the interval, and `e·ln2` in two parts,
//!   the first exact.
//! - `ga_sincos_turn(θ, s, c)`: the quadrant `q = round(θ·2/π)` (the 1.5·2^23 trick: an add
//!   rounds to an integer), `r = θ − q·π/2` with π/2 in three parts (the first product and
//!   difference are exact for q ≤ 4; two parts left cos off by up to 5.8 ulp next to its
//!   zeros), `sin r = r + r·r²·S(r²)` (degree 2, relative error
//!   3.8e-9 on |r| ≤ π/4) and `cos r = 1 + r²·C(r²)` (degree 3, 6.4e-11), then the quadrant's
//!   swap and signs. `θ = 0` gives `(+0, 1)`, as the library does.
//!
//! Compiled without contraction like every kernel: each `fmaf` here is explicit.

/// The C++ device functions (HIP dialect; `fmaf`, `__float_as_uint` and friends exist on both
/// platforms).
pub const UNIT_MATH: &str = r#"
GA_INLINE f32 ga_unit_ln(const f32 u) {
  const u32 bits = __float_as_uint(u);
  // e = floor(log2(u / sqrt(1/2))): the exponent that puts the mantissa in [sqrt(1/2), sqrt(2)).
  const int e = ((int)(bits - 0x3F3504F3u)) >> 23;
  const f32 t = __uint_as_float(bits - ((u32)e << 23)) - 1.0f;
  f32 p = -0.07634538412094116f;
  p = fmaf(p, t, 0.12761640548706055f);
  p = fmaf(p, t, -0.1316019743680954f);
  p = fmaf(p, t, 0.14201751351356506f);
  p = fmaf(p, t, -0.16623355448246002f);
  p = fmaf(p, t, 0.20001226663589478f);
  p = fmaf(p, t, -0.250008225440979f);
  p = fmaf(p, t, 0.3333333134651184f);
  p = fmaf(p, t, -0.5f);
  const f32 l = fmaf(t, t * p, t);
  // e in [-24, 0] as a float without a conversion: 2^23 + 2^22 + e, minus the offset.
  const f32 ef = __int_as_float(0x4B400000 + e) - 12582912.0f;
  return fmaf(ef, 0.693145751953125f, fmaf(ef, 1.428606765330187e-06f, l));
}
GA_INLINE void ga_sincos_turn(const f32 theta, f32* s, f32* c) {
  const f32 k = theta * 0.636619772367581343f + 12582912.0f;
  const u32 q = __float_as_uint(k);
  const f32 qf = k - 12582912.0f;
  // π/2 in three parts (24 bits each): θ − q·hi is exact, the others round once, so r keeps
  // its relative accuracy next to the zeros of sin and cos.
  f32 r = fmaf(-qf, 1.57079637050628662f, theta);
  r = fmaf(-qf, -4.3711388286737929e-08f, r);
  r = fmaf(-qf, -1.7151245100058819e-15f, r);
  const f32 x = r * r;
  f32 sp = fmaf(x, -0.00019515250460244715f, 0.00833216030150652f);
  sp = fmaf(x, sp, -0.16666655242443085f);
  const f32 sr = fmaf(r * x, sp, r);
  f32 cp = fmaf(x, 2.438352385070175e-05f, -0.0013886680826544762f);
  cp = fmaf(x, cp, 0.04166661947965622f);
  cp = fmaf(x, cp, -0.5f);
  const f32 cr = fmaf(x, cp, 1.0f);
  const bool swap = (q & 1u) != 0u;
  const u32 sv = __float_as_uint(swap ? cr : sr) ^ ((q & 2u) << 30);
  const u32 cv = __float_as_uint(swap ? sr : cr) ^ (((q + 1u) & 2u) << 30);
  *s = __uint_as_float(sv);
  *c = __uint_as_float(cv);
}
"#;
