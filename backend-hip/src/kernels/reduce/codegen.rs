//! C++ of the reduction kernels for one (op, type). One module holds every variant:
//!
//! | kernel | layout | work split |
//! |---|---|---|
//! | `ga_rows_thread` | inner = 1, short rows | one thread per row |
//! | `ga_rows_warp` | inner = 1, rows < 1024 | one warp per row, lanes stride the row |
//! | `ga_rows_block[_vec]` | inner = 1, long rows | `bpr` blocks per row, grid-stride with vector loads, warp-shuffle tree, one partial per block |
//! | `ga_rows_partials` | | one block per row combines its `bpr` partials in order |
//! | `ga_cols[_vec]` | inner > 1 | one thread per (outer, column group, split of the axis), sequential over its split, coalesced across threads |
//! | `ga_cols_partials` | | one thread per column combines its splits in order |
//!
//! Two passes instead of atomics: the partition depends only on the sizes and the device, so
//! a reduction gives the same bits every run.

use gpuarrays_core::DType;

use crate::kernels::cpp::combine::{Combiner, LIBRARY};
use crate::kernels::cpp::element_types::{load, mty};

/// Threads per block of `ga_rows_block`: 132×8 blocks of 512 with float4 loads reached
/// 4320 GB/s for a 1 GiB f32 sum on the H200 (DESIGN.md, measured facts).
pub const ROWS_BLOCK: u32 = 512;
/// Threads per block of the other reduction kernels.
pub const BLOCK: u32 = 256;

/// Elements per vector load for `t` (16 bytes; 1 for 16-byte types).
pub fn vec_width(t: DType) -> u32 {
    (16 / t.size()).max(1) as u32
}

/// The module body for reducing `t` with `c`.
pub fn body(t: DType, c: &Combiner) -> String {
    let m = mty(t);
    let om = mty(c.out_dtype);
    let v = vec_width(t);
    let x = |e: &str| load(t, e);
    let mut s = String::new();
    s.push_str(&c.definitions);
    s.push_str(LIBRARY);
    s.push_str(&format!(
        r#"
struct alignas({align}) GaVecIn {{ {m} v[{v}]; }};

__global__ void __launch_bounds__({BLOCK}) ga_rows_thread(const {m}* __restrict__ x, {om}* out, const i64 outer, const i64 len) {{
  for (i64 o = (i64)blockIdx.x * blockDim.x + threadIdx.x; o < outer; o += (i64)gridDim.x * blockDim.x) {{
    GaA acc = ga_identity();
    for (i64 k = 0; k < len; ++k) acc = ga_combine(acc, ga_map({x_thread}, k));
    out[o] = ga_finish(acc);
  }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_rows_warp(const {m}* __restrict__ x, {om}* out, const i64 outer, const i64 len) {{
  const int lane = threadIdx.x % GA_WARP;
  const i64 warps = (i64)gridDim.x * (blockDim.x / GA_WARP);
  for (i64 o = (i64)blockIdx.x * (blockDim.x / GA_WARP) + threadIdx.x / GA_WARP; o < outer; o += warps) {{
    GaA acc = ga_identity();
    for (i64 k = lane; k < len; k += GA_WARP) acc = ga_combine(acc, ga_map({x_warp}, k));
    acc = ga_warp_reduce(acc);
    if (lane == 0) out[o] = ga_finish(acc);
  }}
}}

template <int VEC>
__device__ void ga_rows_block_impl(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  for (i64 b = blockIdx.x; b < outer * bpr; b += gridDim.x) {{
    const i64 o = b / bpr, part = b % bpr;
    const i64 start = part * chunk;
    const i64 end = start + chunk < len ? start + chunk : len;
    const {m}* row = x + o * len;
    GaA acc = ga_identity();
    const i64 vend = start + (end - start) / VEC * VEC;
#pragma unroll 4
    for (i64 k = start + (i64)threadIdx.x * VEC; k < vend; k += (i64)blockDim.x * VEC) {{
      if constexpr (VEC == 1) {{
        acc = ga_combine(acc, ga_map({x_row}, k));
      }} else {{
        const GaVecIn w = *reinterpret_cast<const GaVecIn*>(row + k);
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc = ga_combine(acc, ga_map({x_vec}, k + j));
      }}
    }}
    for (i64 k = vend + threadIdx.x; k < end; k += blockDim.x) acc = ga_combine(acc, ga_map({x_row}, k));
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) {{
      if (bpr == 1) out[o] = ga_finish(acc); else partial[b] = acc;
    }}
  }}
}}
__global__ void __launch_bounds__({ROWS_BLOCK}) ga_rows_block(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  ga_rows_block_impl<1>(x, out, partial, outer, len, bpr, chunk);
}}
__global__ void __launch_bounds__({ROWS_BLOCK}) ga_rows_block_vec(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  ga_rows_block_impl<{v}>(x, out, partial, outer, len, bpr, chunk);
}}

__global__ void __launch_bounds__({BLOCK}) ga_rows_partials(const GaA* __restrict__ partial, {om}* out, const i64 outer, const i64 bpr) {{
  for (i64 o = blockIdx.x; o < outer; o += gridDim.x) {{
    GaA acc = ga_identity();
    for (i64 p = threadIdx.x; p < bpr; p += blockDim.x) acc = ga_combine(acc, partial[o * bpr + p]);
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) out[o] = ga_finish(acc);
  }}
}}

template <int VEC>
__device__ void ga_cols_impl(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  const i64 groups = inner / VEC;
  const i64 total = outer * splits * groups;
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (i64)gridDim.x * blockDim.x) {{
    const i64 g = t % groups, s = (t / groups) % splits, o = t / groups / splits;
    const i64 k0 = s * ksplit;
    const i64 k1 = k0 + ksplit < len ? k0 + ksplit : len;
    const i64 col = g * VEC;
    GaA acc[VEC];
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[j] = ga_identity();
    const {m}* p = x + (o * len + k0) * inner + col;
#pragma unroll 8
    for (i64 k = k0; k < k1; ++k, p += inner) {{
      if constexpr (VEC == 1) {{
        acc[0] = ga_combine(acc[0], ga_map({x_col}, k));
      }} else {{
        const GaVecIn w = *reinterpret_cast<const GaVecIn*>(p);
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] = ga_combine(acc[j], ga_map({x_vec}, k));
      }}
    }}
#pragma unroll
    for (int j = 0; j < VEC; ++j) {{
      if (splits == 1) out[o * inner + col + j] = ga_finish(acc[j]);
      else partial[(o * splits + s) * inner + col + j] = acc[j];
    }}
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_impl<1>(x, out, partial, outer, len, inner, splits, ksplit);
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols_vec(const {m}* __restrict__ x, {om}* out, GaA* partial, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_impl<{v}>(x, out, partial, outer, len, inner, splits, ksplit);
}}

__global__ void __launch_bounds__({BLOCK}) ga_cols_partials(const GaA* __restrict__ partial, {om}* out, const i64 outer, const i64 inner, const i64 splits) {{
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < outer * inner; t += (i64)gridDim.x * blockDim.x) {{
    const i64 o = t / inner, i = t % inner;
    GaA acc = ga_identity();
    for (i64 s = 0; s < splits; ++s) acc = ga_combine(acc, partial[(o * splits + s) * inner + i]);
    out[t] = ga_finish(acc);
  }}
}}
"#,
        align = (v as usize * t.size()).min(16),
        x_thread = x("x[o * len + k]"),
        x_warp = x("x[o * len + k]"),
        x_row = x("row[k]"),
        x_vec = x("w.v[j]"),
        x_col = x("p[0]"),
    ));
    s
}

/// The kernels of a reduction module.
pub const KERNELS: [&str; 8] = [
    "ga_rows_thread",
    "ga_rows_warp",
    "ga_rows_block",
    "ga_rows_block_vec",
    "ga_rows_partials",
    "ga_cols",
    "ga_cols_vec",
    "ga_cols_partials",
];
