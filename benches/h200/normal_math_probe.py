#!/usr/bin/env python3
"""Probe for the f32 normal draw of the HIP backend: speed and accuracy of the C library's
logf/sqrtf/sincosf against the restricted-domain `ga_unit_ln`/`ga_sincos_turn` of
`gpuarrays-hip/src/kernels/cpp/unit_math.rs`, both around the backend's Philox generator
(printed by `cpp/philox.rs` from core's lowering; the C++ is read from `unit_math.rs` and
from that printed text, so the probe runs the exact text the backend compiles), on the GPU
through CuPy's NVRTC with the backend's no-contraction flag. Write the Philox text first (on
any machine: the crate's `philox_text` test does it), then run on the GPU machine from the
repository root:

    GPUARRAYS_DUMP_PHILOX=target/philox.cu cargo test -p gpuarrays-hip --test philox_text
    python3 benches/h200/normal_math_probe.py

Speed: 2^28 outputs (1 GiB of f32), four normals per Philox4x32-10 call stored as one float4,
the structure of the backend's elementwise kernel; median of 20 launches (CUDA events).
Accuracy, every possible argument: u1 = m·2^-24 (m = 1 .. 2^24) for ln, θ = fl(2π·k·2^-24)
(k = 0 .. 2^24 - 1) for sin and cos, each in units in the last place of the f32 result against
double precision; and 2^24 normals of seed 7 (ρ·cos θ, ρ·sin θ) against the same recipe in
double precision from the same f32 u1 and θ, in units of eps·ρ (the NumPy cross-check allows
4·eps·(|ρ| + |z|))."""
import os
import re
import statistics

import cupy as cp

def rust_const(path, name):
    """The C++ text of a `pub const NAME: &str = r#"..."#;` of the backend."""
    src = open(path).read()
    return re.search(r"pub const " + name + r': &str = r#"(.*?)"#;', src, re.S).group(1)


UNIT_MATH = rust_const("gpuarrays-hip/src/kernels/cpp/unit_math.rs", "UNIT_MATH")
PHILOX = open(os.environ.get("GPUARRAYS_DUMP_PHILOX", "target/philox.cu")).read()

CODE = r"""
typedef unsigned int u32; typedef unsigned long long u64; typedef float f32; typedef double f64;
typedef long long i64;
#define GA_INLINE __device__ __forceinline__
struct c32 { f32 re; f32 im; };
struct c64 { f64 re; f64 im; };
GA_INLINE c32 ga_c32(f32 re, f32 im) { c32 r; r.re = re; r.im = im; return r; }
GA_INLINE c64 ga_c64(f64 re, f64 im) { c64 r; r.re = re; r.im = im; return r; }
""" + UNIT_MATH + PHILOX + r"""
GA_INLINE uint4 philox(u64 index, u64 seed) {
  const GaWords w = ga_philox(index, seed);
  return make_uint4(w.r0, w.r1, w.r2, w.r3);
}
GA_INLINE f32 u1_of(u32 w) { return (f32)((w >> 8) + 1u) * 0x1p-24f; }
GA_INLINE f32 u2_of(u32 w) { return (f32)(w >> 8) * 0x1p-24f; }
template <bool UNIT>
GA_INLINE void pair(u32 a, u32 b, f32* z) {
  const f32 u1 = u1_of(a), theta = 6.28318530717958647692f * u2_of(b);
  f32 s, c, rho;
  if (UNIT) { rho = sqrtf(-2.0f * ga_unit_ln(u1)); ga_sincos_turn(theta, &s, &c); }
  else { rho = sqrtf(-2.0f * logf(u1)); sincosf(theta, &s, &c); }
  z[0] = rho * c; z[1] = rho * s;
}
template <bool UNIT>
GA_INLINE void normals(float4* out, u64 n4, u64 seed) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
    const uint4 w = philox(i, seed);
    f32 z[4];
    pair<UNIT>(w.x, w.y, z); pair<UNIT>(w.z, w.w, z + 2);
    out[i] = make_float4(z[0], z[1], z[2], z[3]);
  }
}
extern "C" __global__ void normal_lib(float4* out, u64 n4, u64 seed) { normals<false>(out, n4, seed); }
extern "C" __global__ void normal_unit(float4* out, u64 n4, u64 seed) { normals<true>(out, n4, seed); }
extern "C" __global__ void uniform_only(float4* out, u64 n4, u64 seed) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
    const uint4 w = philox(i, seed);
    out[i] = make_float4(u2_of(w.x), u2_of(w.y), u2_of(w.z), u2_of(w.w));
  }
}
__device__ double ulps(f32 got, double want) {
  if (want == 0.0) return got == 0.0f ? 0.0 : 1e30;
  return fabs((double)got - want) / ldexp(1.0, ilogb(want) - 23);
}
// e: [ln lib, ln unit, sin lib, sin unit, cos lib, cos unit] per argument index.
extern "C" __global__ void args_accuracy(double* e, u64 n) {
  const u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  if (k >= n) return;
  const f32 u = (f32)(k + 1) * 0x1p-24f;
  const double lref = log((double)u);
  e[k] = ulps(logf(u), lref); e[n + k] = ulps(ga_unit_ln(u), lref);
  const f32 theta = 6.28318530717958647692f * ((f32)k * 0x1p-24f);
  f32 s, c; sincosf(theta, &s, &c);
  f32 s2, c2; ga_sincos_turn(theta, &s2, &c2);
  const double sref = sin((double)theta), cref = cos((double)theta);
  e[2 * n + k] = ulps(s, sref); e[3 * n + k] = ulps(s2, sref);
  e[4 * n + k] = ulps(c, cref); e[5 * n + k] = ulps(c2, cref);
}
// e: [lib, unit] error of each normal in units of eps*rho (double rho).
extern "C" __global__ void normal_accuracy(double* e, u64 pairs, u64 seed) {
  const u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  const uint4 w = philox(i >> 1, seed);
  const u32 a = (i & 1) ? w.z : w.x, b = (i & 1) ? w.w : w.y;
  f32 zl[2], zu[2];
  pair<false>(a, b, zl); pair<true>(a, b, zu);
  const f32 u1 = u1_of(a), theta = 6.28318530717958647692f * u2_of(b);
  const double rho = sqrt(-2.0 * log((double)u1));
  const double ref[2] = {rho * cos((double)theta), rho * sin((double)theta)};
  const double unit = rho * 0x1p-23;
  for (int j = 0; j < 2; ++j) {
    e[4 * i + j] = unit > 0 ? fabs((double)zl[j] - ref[j]) / unit : fabs((double)zl[j]);
    e[4 * i + 2 + j] = unit > 0 ? fabs((double)zu[j] - ref[j]) / unit : fabs((double)zu[j]);
  }
}
"""

mod = cp.RawModule(code=CODE, options=("--fmad=false", "-std=c++17"))
n4 = 1 << 26
out = cp.empty(n4 * 4, dtype=cp.float32)
grid, block = (n4 // 256,), (256,)


def timed(name):
    f = mod.get_function(name)
    for _ in range(3):
        f(grid, block, (out, cp.uint64(n4), cp.uint64(7)))
    ts = []
    for _ in range(20):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f(grid, block, (out, cp.uint64(n4), cp.uint64(7)))
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
    return statistics.median(ts)


print("speed, 2^28 f32 outputs (median of 20, µs):")
for name in ("uniform_only", "normal_lib", "normal_unit", "normal_lib", "normal_unit"):
    print(f"  {name:14s} {timed(name):9.1f}")

n = 1 << 24
e = cp.empty(6 * n, dtype=cp.float64)
mod.get_function("args_accuracy")(((n + 255) // 256,), (256,), (e, cp.uint64(n)))
e = e.reshape(6, n)
print("accuracy over every argument (max ulps of the f32 result; share of results not correctly rounded):")
for j, name in enumerate(["ln  logf", "ln  ga_unit_ln", "sin sincosf", "sin ga_sincos_turn", "cos sincosf", "cos ga_sincos_turn"]):
    row = e[j]
    print(f"  {name:20s} max {float(row.max()):.3f}  >0.5ulp {float((row > 0.5).mean()):.2e}")
pairs = 1 << 24
e = cp.empty(4 * pairs, dtype=cp.float64)
mod.get_function("normal_accuracy")(((pairs + 255) // 256,), (256,), (e, cp.uint64(pairs), cp.uint64(7)))
e = e.reshape(pairs, 2, 2)
print("normals (2^25 values, seed 7): error in units of eps*rho, max / 99.99th percentile")
for j, name in enumerate(["library", "unit_math"]):
    row = e[:, j, :].ravel()
    print(f"  {name:10s} max {float(row.max()):.3f}  p99.99 {float(cp.percentile(row, 99.99)):.3f}")
