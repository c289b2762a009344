//! C++ of the scan kernels over register tiles: the reduce-then-scan of long rows, the
//! one-pass row scan and the column scans (the algorithms are in `codegen.rs`'s module
//! documentation). Appended after `codegen::body`'s shared stages, whose macros and
//! helpers these kernels use.

use gpuarrays_core::DType;

use super::codegen::{BLOCK, REG_MIN_BLOCKS};
use crate::kernels::cpp::element_types::{load, mty};

/// The register-tile kernels of a scan module for `t`.
pub(super) fn register_kernels(t: DType) -> String {
    let m = mty(t);
    let x = |e: &str| load(t, e);
    let mut s = String::new();
    s.push_str(&format!(
        r#"// ---- reduce-then-scan over register tiles (the default for long rows, see the module docs) ----
// Tile totals: the tile loaded as the scan loads it, each thread's elements combined in
// (j, i) order, then the fixed block tree. `agg[o * tpr + t]` = total of tile t of row o.
template <bool VEC_IO>
__device__ void ga_scan_tile_totals_impl(const {m}* __restrict__ x, GaT* __restrict__ agg, const i64 outer, const i64 len, const i64 tpr) {{
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const i64 seg = (i64)warp * GA_WSEG;
  for (i64 b = blockIdx.x; b < outer * tpr; b += gridDim.x) {{
    const i64 o = b / tpr, t = b % tpr;
    const i64 start = t * GA_TILE;
    const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
    GaA v[GA_NV][GA_VEC];
    ga_reg_load<VEC_IO>(v, x + o * len + start, start, cnt, seg, lane);
    GaA acc = v[0][0];
#pragma unroll
    for (int j = 0; j < GA_NV; ++j) {{
#pragma unroll
      for (int i = (j == 0 ? 1 : 0); i < GA_VEC; ++i) acc = ga_combine(acc, v[j][i]);
    }}
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) agg[b] = ga_total(acc);
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_scan_tile_totals(const {m}* __restrict__ x, GaT* __restrict__ agg, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_tile_totals_impl<false>(x, agg, outer, len, tpr);
}}
// The same with 16-byte loads (x and every row 16-byte aligned).
__global__ void __launch_bounds__({BLOCK}) ga_scan_tile_totals_vec(const {m}* __restrict__ x, GaT* __restrict__ agg, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_tile_totals_impl<true>(x, agg, outer, len, tpr);
}}
// Tiles scanned in registers, tile t > 0 starting from `carry[o * tpr + t - 1]` (the
// inclusive scan of the tile totals), read before the tile so that its latency overlaps the
// loads. The register budget (GA_REG_MIN_BLOCKS blocks per multiprocessor) keeps enough
// tiles resident for the loads in flight that HBM needs.
template <bool VEC_IO>
__device__ void ga_scan_tiles_regs_impl(const {m}* __restrict__ x, {m}* __restrict__ y, const GaT* __restrict__ carry, const i64 outer, const i64 len, const i64 tpr) {{
  __shared__ GaA s_warp[GA_MAX_WARPS];
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const i64 seg = (i64)warp * GA_WSEG;
  for (i64 b = blockIdx.x; b < outer * tpr; b += gridDim.x) {{
    const i64 t = b % tpr;
    const i64 start = t * GA_TILE;
    const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
    const i64 row = (b / tpr) * len + start;
    const bool has_carry = t > 0;
    const GaA c = has_carry ? ga_carry(carry[b - 1]) : ga_identity();
    GaA v[GA_NV][GA_VEC];
    ga_reg_load<VEC_IO>(v, x + row, start, cnt, seg, lane);
    GaA pre[GA_NV];
    bool has_pre[GA_NV];
    const GaA wpre = ga_reg_block_scan(v, pre, has_pre, s_warp, lane, warp);
    ga_reg_store<VEC_IO>(v, pre, has_pre, y + row, cnt, seg, lane, warp, c, has_carry, wpre);
    __syncthreads();
  }}
}}
#define GA_REG_MIN_BLOCKS {reg_min_blocks}
__global__ void __launch_bounds__({BLOCK}, GA_REG_MIN_BLOCKS) ga_scan_tiles_regs(const {m}* __restrict__ x, {m}* __restrict__ y, const GaT* __restrict__ carry, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_tiles_regs_impl<false>(x, y, carry, outer, len, tpr);
}}
// The same with 16-byte loads and stores (x, y and every row 16-byte aligned).
__global__ void __launch_bounds__({BLOCK}, GA_REG_MIN_BLOCKS) ga_scan_tiles_regs_vec(const {m}* __restrict__ x, {m}* __restrict__ y, const GaT* __restrict__ carry, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_tiles_regs_impl<true>(x, y, carry, outer, len, tpr);
}}

// ---- one pass per row, one block per row (the default when there are rows enough to fill
// the device, see `scan::rows_in_one_pass`) ----
// The block walks its row's tiles in order, each tile loaded, scanned and stored exactly as
// `ga_scan_tiles_regs` does, its carry the running combination of the earlier tiles' totals
// ((T0 ⊕ T1) ⊕ T2 ...: a fixed chain, so every run gives the same bits). The input is read
// once (2 bytes moved per output byte, against 3 for the reduce-then-scan); rows are
// independent, so nothing waits on another block.
template <bool VEC_IO>
__device__ void ga_scan_rows_regs_impl(const {m}* __restrict__ x, {m}* __restrict__ y, const i64 outer, const i64 len, const i64 tpr) {{
  __shared__ GaA s_warp[GA_MAX_WARPS];
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const int nw = {BLOCK} / GA_WARP;
  const i64 seg = (i64)warp * GA_WSEG;
  for (i64 o = blockIdx.x; o < outer; o += gridDim.x) {{
    GaA c = ga_identity();
    bool has_carry = false;
    for (i64 t = 0; t < tpr; ++t) {{
      const i64 start = t * GA_TILE;
      const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
      const i64 row = o * len + start;
      GaA v[GA_NV][GA_VEC];
      ga_reg_load<VEC_IO>(v, x + row, start, cnt, seg, lane);
      GaA pre[GA_NV];
      bool has_pre[GA_NV];
      const GaA wpre = ga_reg_block_scan(v, pre, has_pre, s_warp, lane, warp);
      // The tile's total: every warp's, in warp order (s_warp is complete after the scan).
      const GaA total = ga_warps_before(s_warp, nw);
      ga_reg_store<VEC_IO>(v, pre, has_pre, y + row, cnt, seg, lane, warp, c, has_carry, wpre);
      c = ga_opt(has_carry, c, total);
      has_carry = true;
      __syncthreads();
    }}
  }}
}}
__global__ void __launch_bounds__({BLOCK}, GA_REG_MIN_BLOCKS) ga_scan_rows_regs(const {m}* __restrict__ x, {m}* __restrict__ y, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_rows_regs_impl<false>(x, y, outer, len, tpr);
}}
// The same with 16-byte loads and stores (x, y and every row 16-byte aligned).
__global__ void __launch_bounds__({BLOCK}, GA_REG_MIN_BLOCKS) ga_scan_rows_regs_vec(const {m}* __restrict__ x, {m}* __restrict__ y, const i64 outer, const i64 len, const i64 tpr) {{
  ga_scan_rows_regs_impl<true>(x, y, outer, len, tpr);
}}

__global__ void __launch_bounds__({BLOCK}) ga_scan_cols_reduce(const {m}* __restrict__ x, GaT* agg, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit) {{
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < outer * splits * inner; t += (i64)gridDim.x * blockDim.x) {{
    const i64 i = t % inner, s = (t / inner) % splits, o = t / inner / splits;
    const i64 k0 = s * ksplit;
    const i64 k1 = k0 + ksplit < len ? k0 + ksplit : len;
    GaA acc = ga_identity();
    for (i64 k = k0; k < k1; ++k) acc = ga_combine(acc, ga_map({xc}, k));
    agg[t] = ga_total(acc);
  }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_scan_cols(const {m}* __restrict__ x, {m}* y, const GaT* __restrict__ carry, const i64 outer, const i64 len, const i64 inner, const i64 splits, const i64 ksplit, const int has_carry) {{
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < outer * splits * inner; t += (i64)gridDim.x * blockDim.x) {{
    const i64 i = t % inner, s = (t / inner) % splits, o = t / inner / splits;
    const i64 k0 = s * ksplit;
    const i64 k1 = k0 + ksplit < len ? k0 + ksplit : len;
    GaA acc = (s > 0 && has_carry) ? ga_carry(carry[t - inner]) : ga_identity();
    for (i64 k = k0; k < k1; ++k) {{
      const i64 idx = (o * len + k) * inner + i;
      acc = ga_combine(acc, ga_map({xi}, k));
      y[idx] = ga_finish(acc);
    }}
  }}
}}
"#,
        reg_min_blocks = REG_MIN_BLOCKS,
        xc = x("x[(o * len + k) * inner + i]"),
        xi = x("x[idx]"),
    ));
    s
}
