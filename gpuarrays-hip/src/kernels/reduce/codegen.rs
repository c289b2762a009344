//! C++ of the reduction kernels for one (op, type). One module holds every variant:
//!
//! | kernel | layout | work split |
//! |---|---|---|
//! | `ga_rows_thread` | inner = 1, short rows | one thread per row |
//! | `ga_rows_warp` | inner = 1, rows < 1024 | one warp per row, lanes stride the row |
//! | `ga_rows_block[_vec]` | inner = 1, long rows | `bpr` blocks per row, grid-stride with vector loads, warp-shuffle tree, one partial per block |
//! | `ga_rows_block_vec_best` | argmin/argmax, as `ga_rows_block_vec` | the same, each thread keeping its first best value and offset with two compares per element (`ga_thread_vectors`) |
//! | `ga_rows_partials` | | one block per row combines its `bpr` partials in order |
//! | `ga_cols[_vec]` | inner > 1 | one thread per (outer, column group, split of the axis), sequential over its split, coalesced across threads |
//! | `ga_cols_slices[_vec]` | inner > 1 (default) | one block per (outer, 32 column groups, split of the axis): warps take interleaved rows of the split in batches of 4 loads in flight, combined in warp order in shared memory |
//! | `ga_cols_partials` | | one thread per column combines its splits in order |
//!
//! The partition depends only on the sizes and the device, and partials are combined in a
//! fixed order, so a reduction gives the same bits every run. Partials are combined in the
//! same launch by whichever block (rows) or thread (columns) finishes last — found with an
//! atomic counter, the order of combination does not depend on which one it is — or, with
//! `GPUARRAYS_REDUCE=twopass`, by the `*_partials` kernels in a second launch.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ReduceOp;

use crate::kernels::cpp::combine::{Combiner, LIBRARY};
use crate::kernels::cpp::element_types::{cty, load, mty};

/// Threads per block of `ga_rows_block`: 132×8 blocks of 512 with float4 loads reached
/// 4320 GB/s for a 1 GiB f32 sum on the H200 (docs/architecture.md, measured facts).
pub const ROWS_BLOCK: u32 = 512;
/// Threads per block of the other reduction kernels.
pub const BLOCK: u32 = 256;

/// Elements per vector load for `t` (16 bytes; 1 for 16-byte types).
pub fn vec_width(t: DType) -> u32 {
    (16 / t.size()).max(1) as u32
}

/// `ga_accum(acc, x, k)`: `acc` combined with element `x` at index `k`, for a thread that
/// visits its elements in increasing `k`. The general `ga_combine(acc, ga_map(x, k))` for
/// most operations; for argmin/argmax the same decision in fewer instructions (`k` is above
/// every index in `acc` except the identity's, which `x == acc.v && k < acc.i` covers).
fn accumulate(t: DType, op: ReduceOp) -> String {
    let c = cty(t);
    let better = match op {
        ReduceOp::ArgMax => "x > a.v",
        ReduceOp::ArgMin => "x < a.v",
        _ => {
            return format!(
                "GA_INLINE GaA ga_accum(const GaA a, const {c} x, const i64 k) {{ return ga_combine(a, ga_map(x, k)); }}\n"
            );
        }
    };
    let take = if t.is_float() {
        format!("!ga_isnan(a.v) && (ga_isnan(x) || {better} || (x == a.v && k < a.i))")
    } else {
        format!("{better} || (x == a.v && k < a.i)")
    };
    format!(
        "GA_INLINE GaA ga_accum(const GaA a, const {c} x, const i64 k) {{ return ({take}) ? ga_arg(x, k) : a; }}\n"
    )
}

/// `ga_thread_vectors<VEC>(row, first, vend, step, acc)`: `acc` combined with the thread's
/// vectors at `first, first + step, … < vend`. For argmin/argmax with vectors the thread keeps
/// the first best value it has seen and its offset from `first` (two compares, two selects
/// and an add per element; a NaN, once held, is never replaced, so the first NaN wins as
/// documented) and folds that into `acc` once; Nsight Compute found the per-element
/// (value, index) `ga_accum` made `ga_rows_block_vec` compute-bound (67 % SM, 53 % DRAM). The
/// host calls it only when a block's chunk spans fewer than 2^32 elements.
fn thread_vectors(t: DType, op: ReduceOp) -> String {
    let c = cty(t);
    let m = mty(t);
    let xv = load(t, "w.v[j]");
    let better = match (op, t.is_float()) {
        (ReduceOp::ArgMax, true) => "!(x <= bv) && !ga_isnan(bv)",
        (ReduceOp::ArgMin, true) => "!(x >= bv) && !ga_isnan(bv)",
        (ReduceOp::ArgMax, false) => "x > bv",
        (ReduceOp::ArgMin, false) => "x < bv",
        _ => {
            return format!(
                r#"template <int VEC>
GA_INLINE GaA ga_thread_vectors(const {m}* __restrict__ row, const i64 first, const i64 vend, const i64 step, GaA acc) {{
#pragma unroll 4
  for (i64 k = first; k < vend; k += step) {{
    const GaVecIn w = *reinterpret_cast<const GaVecIn*>(row + k);
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc = ga_accum(acc, {xv}, k + j);
  }}
  return acc;
}}
"#
            );
        }
    };
    let x0 = load(t, "row[first]");
    format!(
        r#"template <int VEC>
GA_INLINE GaA ga_thread_vectors(const {m}* __restrict__ row, const i64 first, const i64 vend, const i64 step, GaA acc) {{
  if (first >= vend) return acc;
  {c} bv = {x0};
  u32 bo = 0u;
#pragma unroll 4
  for (i64 k = first; k < vend; k += step) {{
    const GaVecIn w = *reinterpret_cast<const GaVecIn*>(row + k);
    const u32 base = (u32)(k - first);
#pragma unroll
    for (int j = 0; j < VEC; ++j) {{
      const {c} x = {xv};
      if ({better}) {{ bv = x; bo = base + (u32)j; }}
    }}
  }}
  return ga_accum(acc, bv, first + (i64)bo);
}}
"#
    )
}

/// The module body for reducing `t` with `op`, whose combiner is `c`.
pub fn body(t: DType, op: ReduceOp, c: &Combiner) -> String {
    let m = mty(t);
    let om = mty(c.out_dtype);
    let v = vec_width(t);
    let x = |e: &str| load(t, e);
    let mut s = String::new();
    s.push_str(&c.definitions);
    s.push_str(LIBRARY);
    s.push_str(&accumulate(t, op));
    s.push_str(&format!(
        r#"
struct alignas({align}) GaVecIn {{ {m} v[{v}]; }};
{thread_vectors}
__global__ void __launch_bounds__({BLOCK}) ga_rows_thread(const {m}* __restrict__ x, {om}* out, const i64 outer, const i64 len) {{
  for (i64 o = (i64)blockIdx.x * blockDim.x + threadIdx.x; o < outer; o += (i64)gridDim.x * blockDim.x) {{
    GaA acc = ga_identity();
    for (i64 k = 0; k < len; ++k) acc = ga_accum(acc, {x_thread}, k);
    out[o] = ga_finish(acc);
  }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_rows_warp(const {m}* __restrict__ x, {om}* out, const i64 outer, const i64 len) {{
  const int lane = threadIdx.x % GA_WARP;
  const i64 warps = (i64)gridDim.x * (blockDim.x / GA_WARP);
  for (i64 o = (i64)blockIdx.x * (blockDim.x / GA_WARP) + threadIdx.x / GA_WARP; o < outer; o += warps) {{
    GaA acc = ga_identity();
    for (i64 k = lane; k < len; k += GA_WARP) acc = ga_accum(acc, {x_warp}, k);
    acc = ga_warp_reduce(acc);
    if (lane == 0) out[o] = ga_finish(acc);
  }}
}}

// A partial written by another block (after its __threadfence), read around the L1 cache.
GA_INLINE GaA ga_ld_partial(const GaA* p) {{
  GaA r;
  if constexpr (sizeof(GaA) % 4 == 0) {{
    const volatile u32* s = reinterpret_cast<const volatile u32*>(p);
    u32* d = reinterpret_cast<u32*>(&r);
    for (int i = 0; i < (int)(sizeof(GaA) / 4); ++i) d[i] = s[i];
  }} else {{
    const volatile u8* s = reinterpret_cast<const volatile u8*>(p);
    u8* d = reinterpret_cast<u8*>(&r);
    for (int i = 0; i < (int)sizeof(GaA); ++i) d[i] = s[i];
  }}
  return r;
}}

// With `counter` non-null, the last block of a row to finish (atomic count of finished
// blocks) combines the row's partials in index order and writes the result: one launch.
template <int VEC, bool CHUNK>
__device__ void ga_rows_block_impl(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  __shared__ bool s_last;
  for (i64 b = blockIdx.x; b < outer * bpr; b += gridDim.x) {{
    const i64 o = b / bpr, part = b % bpr;
    const i64 start = part * chunk;
    const i64 end = start + chunk < len ? start + chunk : len;
    const {m}* row = x + o * len;
    GaA acc = ga_identity();
    const i64 vend = start + (end - start) / VEC * VEC;
    if constexpr (CHUNK) {{
      acc = ga_thread_vectors<VEC>(row, start + (i64)threadIdx.x * VEC, vend, (i64)blockDim.x * VEC, acc);
    }} else {{
#pragma unroll 4
    for (i64 k = start + (i64)threadIdx.x * VEC; k < vend; k += (i64)blockDim.x * VEC) {{
      if constexpr (VEC == 1) {{
        acc = ga_accum(acc, {x_row}, k);
      }} else {{
        const GaVecIn w = *reinterpret_cast<const GaVecIn*>(row + k);
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc = ga_accum(acc, {x_vec}, k + j);
      }}
    }}
    }}
    for (i64 k = vend + threadIdx.x; k < end; k += blockDim.x) acc = ga_accum(acc, {x_row}, k);
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) {{
      if (bpr == 1) out[o] = ga_finish(acc); else partial[b] = acc;
    }}
    if (bpr > 1 && counter != nullptr) {{
      if (threadIdx.x == 0) {{
        __threadfence();
        s_last = atomicAdd(counter + o, 1u) == (unsigned int)(bpr - 1);
      }}
      __syncthreads();
      if (s_last) {{
        __threadfence();
        GaA r = ga_identity();
        for (i64 p = threadIdx.x; p < bpr; p += blockDim.x) r = ga_combine(r, ga_ld_partial(partial + o * bpr + p));
        r = ga_block_reduce(r);
        if (threadIdx.x == 0) out[o] = ga_finish(r);
      }}
      __syncthreads();
    }}
  }}
}}
__global__ void __launch_bounds__({ROWS_BLOCK}) ga_rows_block(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  ga_rows_block_impl<1, false>(x, out, partial, counter, outer, len, bpr, chunk);
}}
__global__ void __launch_bounds__({ROWS_BLOCK}) ga_rows_block_vec(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  ga_rows_block_impl<{v}, false>(x, out, partial, counter, outer, len, bpr, chunk);
}}
// The same through `ga_thread_vectors` (argmin/argmax: a cheap per-thread best, see there).
__global__ void __launch_bounds__({ROWS_BLOCK}) ga_rows_block_vec_best(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 bpr, const i64 chunk) {{
  ga_rows_block_impl<{v}, true>(x, out, partial, counter, outer, len, bpr, chunk);
}}

__global__ void __launch_bounds__({BLOCK}) ga_rows_partials(const GaA* __restrict__ partial, {om}* out, const i64 outer, const i64 bpr) {{
  for (i64 o = blockIdx.x; o < outer; o += gridDim.x) {{
    GaA acc = ga_identity();
    for (i64 p = threadIdx.x; p < bpr; p += blockDim.x) acc = ga_combine(acc, partial[o * bpr + p]);
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) out[o] = ga_finish(acc);
  }}
}}

// The results of columns col..col+VEC of `o` from their `splits` partials, combined in split
// order (called by whichever split of the column group finishes last).
template <int VEC>
GA_INLINE void ga_cols_combine_splits(const GaA* partial, {om}* out, const i64 o, const i64 inner, const i64 col, const i64 splits) {{
#pragma unroll
  for (int j = 0; j < VEC; ++j) {{
    const GaA* q = partial + o * splits * inner + col + j;
    GaA r = ga_ld_partial(q);
    for (i64 s2 = 1; s2 < splits; ++s2) r = ga_combine(r, ga_ld_partial(q + s2 * inner));
    out[o * inner + col + j] = ga_finish(r);
  }}
}}

// With `counter` non-null, the last split of a column group to finish combines the group's
// partials in split order and writes the results: one launch.
template <int VEC>
__device__ void ga_cols_impl(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
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
        acc[0] = ga_accum(acc[0], {x_col}, k);
      }} else {{
        const GaVecIn w = *reinterpret_cast<const GaVecIn*>(p);
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] = ga_accum(acc[j], {x_vec}, k);
      }}
    }}
#pragma unroll
    for (int j = 0; j < VEC; ++j) {{
      if (splits == 1) out[o * inner + col + j] = ga_finish(acc[j]);
      else partial[(o * splits + s) * inner + col + j] = acc[j];
    }}
    if (splits > 1 && counter != nullptr) {{
      __threadfence();
      if (atomicAdd(counter + o * groups + g, 1u) == (unsigned int)(splits - 1)) {{
        __threadfence();
        ga_cols_combine_splits<VEC>(partial, out, o, inner, col, splits);
      }}
    }}
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_impl<1>(x, out, partial, counter, outer, len, inner, splits, ksplit);
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols_vec(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_impl<{v}>(x, out, partial, counter, outer, len, inner, splits, ksplit);
}}

// Column slices: a block owns 32 column groups (one per lane, 512 contiguous bytes per warp
// and row with vectors) and a split of the axis; warp w takes the split's rows w, w + nw, ...
// in GA_COL_BATCH-row batches whose loads are all issued before they are combined (in row
// order), so every thread keeps GA_COL_BATCH vectors in flight. The warps' results are then
// combined in warp order through shared memory. With `counter` non-null, the last block of a
// column block to finish combines the splits' partials in split order: one launch.
#define GA_COL_BATCH 4
// VEC consecutive elements at p: one 16-byte vector, or one element (VEC = 1).
template <int VEC>
GA_INLINE void ga_load_cols({m} (&w)[VEC], const {m}* p) {{
  if constexpr (VEC == 1) {{
    w[0] = p[0];
  }} else {{
    const GaVecIn q = *reinterpret_cast<const GaVecIn*>(p);
#pragma unroll
    for (int j = 0; j < VEC; ++j) w[j] = q.v[j];
  }}
}}
template <int VEC>
__device__ void ga_cols_slices_impl(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  // The block combines its warps' accumulators through shared memory SJ columns at a
  // time: all VEC at once would need 64 KiB for the 16-byte (value, index) of a u8/bool
  // argmax (above the 48 KiB a static allocation may take); 32 KiB is the cap.
  constexpr int SJ_FIT = (int)(32768 / ({BLOCK} * sizeof(GaA)));
  constexpr int SJ = SJ_FIT >= VEC ? VEC : (SJ_FIT > 0 ? SJ_FIT : 1);
  static_assert(SJ == 1 || sizeof(GaA) * {BLOCK} * SJ <= 32768, "ga_cols_slices: shared accumulators above 32 KiB");
  __shared__ GaA s_acc[{BLOCK} / GA_WARP][GA_WARP][SJ];
  __shared__ bool s_last;
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const int nw = {BLOCK} / GA_WARP;
  const i64 groups = inner / VEC;
  const i64 cblocks = (groups + GA_WARP - 1) / GA_WARP;
  for (i64 b = blockIdx.x; b < outer * splits * cblocks; b += gridDim.x) {{
    const i64 cb = b % cblocks, s = (b / cblocks) % splits, o = b / cblocks / splits;
    const i64 g = cb * GA_WARP + lane;
    const bool live = g < groups;
    const i64 col = g * VEC;
    const i64 k0 = s * ksplit;
    const i64 k1 = k0 + ksplit < len ? k0 + ksplit : len;
    GaA acc[VEC];
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[j] = ga_identity();
    if (live) {{
      const {m}* base = x + o * len * inner + col;
      i64 k = k0 + warp;
      for (; k + (GA_COL_BATCH - 1) * nw < k1; k += GA_COL_BATCH * nw) {{
        {m} w[GA_COL_BATCH][VEC];
#pragma unroll
        for (int u = 0; u < GA_COL_BATCH; ++u) ga_load_cols<VEC>(w[u], base + (k + (i64)u * nw) * inner);
#pragma unroll
        for (int u = 0; u < GA_COL_BATCH; ++u) {{
#pragma unroll
          for (int j = 0; j < VEC; ++j) acc[j] = ga_accum(acc[j], {x_wu}, k + (i64)u * nw);
        }}
      }}
      for (; k < k1; k += nw) {{
        {m} w0[VEC];
        ga_load_cols<VEC>(w0, base + k * inner);
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[j] = ga_accum(acc[j], {x_w0}, k);
      }}
    }}
#pragma unroll
    for (int j0 = 0; j0 < VEC; j0 += SJ) {{
#pragma unroll
      for (int j = 0; j < SJ; ++j) {{
        if (j0 + j < VEC) s_acc[warp][lane][j] = acc[j0 + j];
      }}
      __syncthreads();
      if (warp == 0 && live) {{
#pragma unroll
        for (int j = 0; j < SJ; ++j) {{
          if (j0 + j < VEC) {{
            GaA r = s_acc[0][lane][j];
            for (int w2 = 1; w2 < nw; ++w2) r = ga_combine(r, s_acc[w2][lane][j]);
            if (splits == 1) out[o * inner + col + j0 + j] = ga_finish(r);
            else partial[(o * splits + s) * inner + col + j0 + j] = r;
          }}
        }}
      }}
      __syncthreads();
    }}
    if (splits > 1 && counter != nullptr) {{
      // Every lane that wrote a partial fences it before the block counts itself finished.
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) {{
        s_last = atomicAdd(counter + o * cblocks + cb, 1u) == (unsigned int)(splits - 1);
      }}
      __syncthreads();
      if (s_last && warp == 0 && live) {{
        __threadfence();
        ga_cols_combine_splits<VEC>(partial, out, o, inner, col, splits);
      }}
    }}
    __syncthreads();
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols_slices(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_slices_impl<1>(x, out, partial, counter, outer, len, inner, splits, ksplit);
}}
__global__ void __launch_bounds__({BLOCK}) ga_cols_slices_vec(const {m}* __restrict__ x, {om}* out, GaA* partial, unsigned int* counter, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  ga_cols_slices_impl<{v}>(x, out, partial, counter, outer, len, inner, splits, ksplit);
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
        thread_vectors = thread_vectors(t, op),
        x_wu = x("w[u][j]"),
        x_w0 = x("w0[j]"),
    ));
    s
}

/// The kernels of a reduction module.
pub const KERNELS: [&str; 11] = [
    "ga_rows_thread",
    "ga_rows_warp",
    "ga_rows_block",
    "ga_rows_block_vec",
    "ga_rows_block_vec_best",
    "ga_rows_partials",
    "ga_cols",
    "ga_cols_vec",
    "ga_cols_slices",
    "ga_cols_slices_vec",
    "ga_cols_partials",
];
