//! C++ of the inclusive-scan kernels for one (op, type).
//!
//! **Rows (inner = 1), single pass (`GPUARRAYS_SCAN=lookback`; the default for rows of at
//! most 64 tiles until 2026-12-01, see the reduce-then-scan below):
//! `ga_scan_lookback[_vec]`.** A row is cut into
//! tiles of `BLOCK·ITEMS` elements (16 KiB), one block per tile, tiles taken in order from an
//! atomic counter. Each warp owns a contiguous segment of the tile and reads it as 16-byte
//! vectors, warp-striped (vector `j·32 + lane`), so every load and store instruction of a warp
//! moves 512 contiguous bytes and no shared-memory transposition is needed. The scan inside a
//! tile: each vector scanned in registers, one warp scan per vector column `j` (shuffles),
//! the warp's running total across `j`, and the warps' totals combined in warp order.
//!
//! A tile's carry (the combination of every earlier tile of its row) must come out the same
//! on every run, so it is defined by a fixed tree, not by whatever a look-back happens to
//! find: with `A(k, i)` the aggregate of tiles `[i·2^k, (i+1)·2^k)` (built as
//! `A(k-1, 2i) ⊕ A(k-1, 2i+1)`), the carry of tile `t` is the left-to-right combination of the
//! aggregates of the binary decomposition of `t` (for t = 6: `A(2, 0) ⊕ A(1, 2)`). Tile `t`
//! publishes `A(0, t)` as soon as its own total is known, and every `A(k, ·)` whose range ends
//! at `t` (waiting only for the left halves, published by earlier tiles); its carry needs at
//! most one aggregate per set bit of `t`, read by the lanes of one warp in parallel. A tile
//! therefore waits for about one round trip to L2, not for a chain of earlier tiles.
//!
//! Why the earlier single-pass scan (a decoupled look-back with a forward fold, 2026-11-29)
//! measured 1.716 ms against 1.194 ms for the 3-pass scan on 1 GiB of f32: to stay
//! deterministic it found the nearest tile that had published an inclusive prefix `P(j)` and
//! folded the totals `j+1 .. t-1` *serially*, one `ga_shfl_idx` + combine per tile, 32 tiles
//! per round trip to L2. With ~1000 tiles resident and finishing together, `t - j` was in the
//! hundreds, so each tile spent tens of microseconds in that serial fold while holding its
//! 16 KiB of shared memory and its block slot; the fold's length then grew with the time it
//! took (the later tiles found the inclusive prefix even further back). It also loaded the tile
//! with scalar 4-byte loads into shared memory. The fixed tree above keeps determinism with
//! `O(log t)` independent loads instead of an `O(t - j)` serial chain, and the tile lives in
//! registers.
//!
//! **Rows of any length, reduce-then-scan over register tiles (default):
//! `ga_scan_tile_totals[_vec]`, the scan of the totals (recursively, the same scan),
//! `ga_scan_tiles_regs[_vec]`.** Both passes load a tile exactly as the look-back
//! kernel does (16-byte vectors, warp-striped, held in registers) and the scan pass scans it
//! the same way, then starts from the scanned total of the tiles before it. Determinism is
//! free: every total and carry is a fixed tree or a fixed left-to-right chain. The input is
//! read twice (3 bytes moved per output byte written instead of 2), but each pass streams at
//! the copy bandwidth, while a single pass is bound by how fast carries travel between tiles
//! (see above): at the H200's ~4.2 TB/s, 1 GiB of f32 needs ~0.25 ms + ~0.51 ms, against
//! PyTorch's 0.851 ms.
//!
//! **Many rows, one pass per row (`ga_scan_rows_regs[_vec]`, chosen automatically when
//! there are at least four rows per resident block, `scan::rows_in_one_pass`).** One block
//! walks its row's tiles in order, each loaded, scanned and stored as by
//! `ga_scan_tiles_regs`, carrying the running total of the tiles before it. The input is
//! read once (2 bytes moved per byte written, as a copy), and no block waits for another.
//! It needs rows enough to keep every multiprocessor busy until the last wave, so one long
//! row, or a few, keep the reduce-then-scan. Why it was added: the suite's 16384 × 8192 i64
//! cumsum along rows (4 tiles per row) ran at 0.96× PyTorch with the reduce-then-scan,
//! whose traffic, 3 GiB for 1 GiB of output, is what the H200 streams in that time.
//!
//! **Rows, 3 passes through shared memory (`GPUARRAYS_SCAN=multipass`, the previous default
//! for long rows):** `ga_scan_tile_reduce` + `ga_scan_tiles`, reduce-then-scan through shared
//! memory with scalar loads; the per-tile totals are scanned by the same scan one level up.
//! 1 GiB f32 cumsum on the H200: 1.194 ms (0.71× PyTorch's 0.851 ms); Nsight Compute: the
//! totals pass at 44 % of DRAM bandwidth (too few bytes in flight), the scan pass at 55 %
//! (64 registers, 50 % occupancy).
//!
//! Strided axes (inner > 1) give each thread one column of a split of the axis, scanned
//! sequentially (coalesced across threads); splits after the first start from a carry
//! computed the same way.
//!
//! Tile totals, split totals and carries live in memory as `GaT`: elements for every type
//! but the halves (`ga_finish`, read back with `ga_map`), so the recursive scan of the totals
//! is the same scan, and the accumulator `GaA` may be larger than an element (a complex
//! product carries a "holds a factor" flag, see `cpp::combine`). Halves keep their f32
//! running value (`GaA` is f32) and round each output once: their totals stay f32 (a half
//! would round the running value again), and are scanned by the f32 scan of the same
//! operation. Every stored total covers at least one element.

use gpuarrays_core::DType;

use crate::kernels::cpp::combine::{Combiner, LIBRARY};
use crate::kernels::cpp::element_types::{load, mty};

/// Threads per block of every scan kernel.
pub const BLOCK: u32 = 256;

/// Blocks per multiprocessor `ga_scan_tiles_regs` is compiled for (`__launch_bounds__`):
/// 4 × 256 threads caps it at 64 registers, and 4 resident tiles of 16 KiB keep 64 KiB of
/// loads in flight per multiprocessor (HBM3e needs about 40 KiB). The shared-memory scan it
/// replaces used 64 registers without a cap and reached 50 % occupancy (Nsight Compute,
/// 2026-12-01), which is what this budget pins down.
pub const REG_MIN_BLOCKS: u32 = 4;

/// Elements per thread in a row tile: 16 KiB of shared memory per tile for every type.
pub fn items(t: DType) -> u32 {
    (64 / t.size()).clamp(4, 16) as u32
}

/// Elements per 16-byte vector of `t` (1 for 16-byte types).
pub fn vec_width(t: DType) -> u32 {
    (16 / t.size()).max(1) as u32
}

/// Elements per row tile.
pub fn tile(t: DType) -> usize {
    (BLOCK * items(t)) as usize
}

/// The shared stages and the shared-memory and look-back kernels of scanning `t` with `c`
/// (`register_kernels.rs` appends the rest of the module).
pub fn body(t: DType, c: &Combiner) -> String {
    let m = mty(t);
    let items = items(t);
    let x = |e: &str| load(t, e);
    let mut s = String::new();
    s.push_str(&c.definitions);
    s.push_str(LIBRARY);
    let (tot, total, carry) = if t.is_half() {
        ("f32", "a", "c")
    } else {
        (m, "ga_finish(a)", "ga_map(c, 0)")
    };
    s.push_str(&format!(
        "// Tile totals, split totals and carries in memory (see the module docs).\n\
         typedef {tot} GaT;\n\
         GA_INLINE GaT ga_total(const GaA a) {{ return {total}; }}\n\
         GA_INLINE GaA ga_carry(const GaT c) {{ return {carry}; }}\n"
    ));
    s.push_str(&format!(
        r#"
#define GA_ITEMS {items}
#define GA_TILE ({BLOCK} * GA_ITEMS)
#define GA_PAD(e) ((e) + (e) / 32)

// The stages every row-tile kernel shares. Load: the tile coalesced into shared memory, each
// thread scans its GA_ITEMS consecutive elements in place, a block scan of the thread totals;
// returns the thread's exclusive prefix and the tile total. Store: combine the prefix (when
// `has`) into the thread's elements, then write the tile coalesced.
GA_INLINE GaA ga_tile_load_scan(GaA* tile, const {m}* xr, const i64 start, const i64 cnt, GaA* total) {{
#pragma unroll
  for (int j = 0; j < GA_ITEMS; ++j) {{
    const int e = j * {BLOCK} + threadIdx.x;
    tile[GA_PAD(e)] = e < cnt ? ga_map({xe}, start + e) : ga_identity();
  }}
  __syncthreads();
  const int first = threadIdx.x * GA_ITEMS;
  GaA acc = tile[GA_PAD(first)];
#pragma unroll
  for (int j = 1; j < GA_ITEMS; ++j) {{
    acc = ga_combine(acc, tile[GA_PAD(first + j)]);
    tile[GA_PAD(first + j)] = acc;
  }}
  return ga_block_exclusive_scan(acc, total);
}}

GA_INLINE void ga_tile_apply_store(GaA* tile, {m}* yr, const i64 cnt, const GaA prefix, const bool has) {{
  const int first = threadIdx.x * GA_ITEMS;
  if (has) {{
#pragma unroll
    for (int j = 0; j < GA_ITEMS; ++j) tile[GA_PAD(first + j)] = ga_combine(prefix, tile[GA_PAD(first + j)]);
  }}
  __syncthreads();
#pragma unroll
  for (int j = 0; j < GA_ITEMS; ++j) {{
    const int e = j * {BLOCK} + threadIdx.x;
    if (e < cnt) yr[e] = ga_finish(tile[GA_PAD(e)]);
  }}
  __syncthreads();
}}

__global__ void __launch_bounds__({BLOCK}) ga_scan_tile_reduce(const {m}* __restrict__ x, GaT* agg, const i64 outer, const i64 len, const i64 tpr) {{
  for (i64 b = blockIdx.x; b < outer * tpr; b += gridDim.x) {{
    const i64 o = b / tpr, t = b % tpr;
    const i64 start = t * GA_TILE;
    const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
    const {m}* xr = x + o * len + start;
    GaA acc = ga_identity();
    for (i64 e = threadIdx.x; e < cnt; e += blockDim.x) acc = ga_combine(acc, ga_map({xe}, start + e));
    acc = ga_block_reduce(acc);
    if (threadIdx.x == 0) agg[b] = ga_total(acc);
  }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_scan_tiles(const {m}* __restrict__ x, {m}* y, const GaT* __restrict__ carry, const i64 outer, const i64 len, const i64 tpr, const int has_carry) {{
  __shared__ GaA tile[GA_PAD(GA_TILE)];
  for (i64 b = blockIdx.x; b < outer * tpr; b += gridDim.x) {{
    const i64 o = b / tpr, t = b % tpr;
    const i64 start = t * GA_TILE;
    const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
    const {m}* xr = x + o * len + start;
    {m}* yr = y + o * len + start;
    GaA total;
    GaA prefix = ga_tile_load_scan(tile, xr, start, cnt, &total);
    bool has = threadIdx.x > 0;
    if (t > 0 && has_carry) {{
      const GaA c = ga_carry(carry[o * tpr + t - 1]);
      prefix = has ? ga_combine(c, prefix) : c;
      has = true;
    }}
    ga_tile_apply_store(tile, yr, cnt, prefix, has);
  }}
}}

// ---- single pass: carries from a fixed tree of tile aggregates (see the module docs) ----
#define GA_AW ((sizeof(GaA) + 7) / 8)
#define GA_VEC {vec}
#define GA_NV {nv}
#define GA_WSEG (GA_WARP * GA_NV * GA_VEC)
#ifndef GA_SPIN_WAIT
#define GA_SPIN_WAIT()
#endif
union GaAWords {{ GaA a; u64 w[GA_AW]; }};
struct alignas({valign}) GaScanVec {{ {m} v[GA_VEC]; }};
GA_INLINE void ga_publish(u64* vals, u32* flags, const i64 slot, const GaA v) {{
  GaAWords u; for (int i = 0; i < (int)GA_AW; ++i) u.w[i] = 0; u.a = v;
  for (int i = 0; i < (int)GA_AW; ++i) ((volatile u64*)vals)[slot * GA_AW + i] = u.w[i];
  __threadfence();
  ((volatile u32*)flags)[slot] = 1u;
}}
GA_INLINE GaA ga_await(const u64* vals, const u32* flags, const i64 slot) {{
  while (((volatile const u32*)flags)[slot] == 0u) {{ GA_SPIN_WAIT(); }}
  __threadfence();
  GaAWords u;
  for (int i = 0; i < (int)GA_AW; ++i) u.w[i] = ((volatile const u64*)vals)[slot * GA_AW + i];
  return u.a;
}}
// Slot of aggregate A(k, i) (tiles [i * 2^k, (i + 1) * 2^k) of a row) among a row's slots.
GA_INLINE i64 ga_slot(const i64 tpr, const int k, const i64 i) {{
  i64 off = 0;
  for (int m = 0; m < k; ++m) off += tpr >> m;
  return off + i;
}}
GA_INLINE GaA ga_opt(const bool has, const GaA a, const GaA b) {{ return has ? ga_combine(a, b) : b; }}

// Register tiles. Thread (warp w, lane l) holds the GA_VEC-element vectors j * GA_WARP + l
// (j < GA_NV) of its warp's segment of GA_WSEG elements; a full tile with VEC_IO moves them
// as 16-byte vectors (every load/store instruction of a warp covers 512 contiguous bytes),
// anything else element by element, padded with the identity.
template <bool VEC_IO>
GA_INLINE void ga_reg_load(GaA (&v)[GA_NV][GA_VEC], const {m}* __restrict__ xr, const i64 start, const i64 cnt, const i64 seg, const int lane) {{
  const bool full = VEC_IO && cnt == GA_TILE;
#pragma unroll
  for (int j = 0; j < GA_NV; ++j) {{
    const i64 e = seg + ((i64)j * GA_WARP + lane) * GA_VEC;
    if (full) {{
      const GaScanVec q = *reinterpret_cast<const GaScanVec*>(xr + e);
#pragma unroll
      for (int i = 0; i < GA_VEC; ++i) v[j][i] = ga_map({xq}, start + e + i);
    }} else {{
#pragma unroll
      for (int i = 0; i < GA_VEC; ++i) v[j][i] = e + i < cnt ? ga_map({xei}, start + e + i) : ga_identity();
    }}
  }}
}}
// Each vector scanned in registers, one warp scan per vector column j, the warp's running
// total across j: afterwards v[j][i] is the scan within the thread's vector j, pre[j] (when
// has_pre[j]) everything of the warp's segment before that vector; returns the segment total.
GA_INLINE GaA ga_reg_warp_scan(GaA (&v)[GA_NV][GA_VEC], GaA (&pre)[GA_NV], bool (&has_pre)[GA_NV], const int lane) {{
  GaA run = ga_identity();
  bool has_run = false;
#pragma unroll
  for (int j = 0; j < GA_NV; ++j) {{
#pragma unroll
    for (int i = 1; i < GA_VEC; ++i) v[j][i] = ga_combine(v[j][i - 1], v[j][i]);
    const GaA s = ga_warp_inclusive_scan(v[j][GA_VEC - 1], lane);
    const GaA e = ga_shfl_up(s, 1);
    const GaA wt = ga_shfl_idx(s, GA_WARP - 1);
    if (lane > 0) {{ pre[j] = ga_opt(has_run, run, e); has_pre[j] = true; }}
    else {{ pre[j] = run; has_pre[j] = has_run; }}
    run = ga_opt(has_run, run, wt);
    has_run = true;
  }}
  return run;
}}
// Writes ((carry ⊕ wpre) ⊕ pre[j]) ⊕ v[j][i], leaving out the parts that are absent: the
// same association for every element, tile and run.
template <bool VEC_IO>
GA_INLINE void ga_reg_store(const GaA (&v)[GA_NV][GA_VEC], const GaA (&pre)[GA_NV], const bool (&has_pre)[GA_NV], {m}* __restrict__ yr, const i64 cnt, const i64 seg, const int lane, const int warp, const GaA carry, const bool has_carry, const GaA wpre) {{
  const bool full = VEC_IO && cnt == GA_TILE;
#pragma unroll
  for (int j = 0; j < GA_NV; ++j) {{
    GaA p = carry;
    bool has = has_carry;
    if (warp > 0) {{ p = ga_opt(has, p, wpre); has = true; }}
    if (has_pre[j]) {{ p = ga_opt(has, p, pre[j]); has = true; }}
    const i64 e = seg + ((i64)j * GA_WARP + lane) * GA_VEC;
    if (full) {{
      GaScanVec q;
#pragma unroll
      for (int i = 0; i < GA_VEC; ++i) q.v[i] = ga_finish(ga_opt(has, p, v[j][i]));
      *reinterpret_cast<GaScanVec*>(yr + e) = q;
    }} else {{
#pragma unroll
      for (int i = 0; i < GA_VEC; ++i) {{
        if (e + i < cnt) yr[e + i] = ga_finish(ga_opt(has, p, v[j][i]));
      }}
    }}
  }}
}}
// The combination of the totals of the warps before this thread's warp (shared `s_warp`
// filled and synchronised), in warp order.
GA_INLINE GaA ga_warps_before(const GaA* s_warp, const int warp) {{
  GaA wpre = ga_identity();
  for (int w = 0; w < warp; ++w) wpre = w == 0 ? s_warp[0] : ga_combine(wpre, s_warp[w]);
  return wpre;
}}
// The block's scan of a tile held in registers: each warp scans its part
// (`ga_reg_warp_scan`), publishes its total in `s_warp` (synchronised, so the caller may read
// every warp's total afterwards), and gets the combination of the warps before it.
GA_INLINE GaA ga_reg_block_scan(GaA (&v)[GA_NV][GA_VEC], GaA (&pre)[GA_NV], bool (&has_pre)[GA_NV], GaA* s_warp, const int lane, const int warp) {{
  const GaA run = ga_reg_warp_scan(v, pre, has_pre, lane);
  if (lane == 0) s_warp[warp] = run;
  __syncthreads();
  return ga_warps_before(s_warp, warp);
}}

// Row tiles of GA_TILE elements; tile order from `counter`.
template <bool VEC_IO>
__device__ void ga_scan_lookback_impl(const {m}* __restrict__ x, {m}* __restrict__ y, u32* flags, u64* vals, unsigned long long* counter, const i64 outer, const i64 len, const i64 tpr, const i64 slots) {{
  __shared__ GaA s_warp[GA_MAX_WARPS];
  __shared__ GaA s_carry;
  __shared__ i64 s_b;
  if (threadIdx.x == 0) s_b = (i64)atomicAdd(counter, 1ULL);
  __syncthreads();
  const i64 b = s_b;
  const i64 o = b / tpr, t = b % tpr;
  const i64 start = t * GA_TILE;
  const i64 cnt = len - start < GA_TILE ? len - start : GA_TILE;
  const {m}* xr = x + o * len + start;
  {m}* yr = y + o * len + start;
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const int nw = {BLOCK} / GA_WARP;
  const i64 seg = (i64)warp * GA_WSEG;
  GaA v[GA_NV][GA_VEC];
  ga_reg_load<VEC_IO>(v, xr, start, cnt, seg, lane);
  GaA pre[GA_NV];
  bool has_pre[GA_NV];
  const GaA wpre = ga_reg_block_scan(v, pre, has_pre, s_warp, lane, warp);
  if (warp == 0 && tpr > 1) {{
    u32* fr = flags + o * slots;
    u64* vr = vals + o * slots * GA_AW;
    if (lane == 0) {{
      // Publish A(0, t) and every aggregate whose range ends at tile t.
      GaA agg = s_warp[0];
      for (int w = 1; w < nw; ++w) agg = ga_combine(agg, s_warp[w]);
      ga_publish(vr, fr, ga_slot(tpr, 0, t), agg);
      for (int k = 1; k < 62 && ((t + 1) & ((1LL << k) - 1)) == 0; ++k) {{
        const i64 i = ((t + 1) >> k) - 1;
        agg = ga_combine(ga_await(vr, fr, ga_slot(tpr, k - 1, 2 * i)), agg);
        ga_publish(vr, fr, ga_slot(tpr, k, i), agg);
      }}
    }}
    if (t > 0) {{
      // Carry: the aggregates of t's binary decomposition, left to right, lane l the l-th.
      const int nb = __popcll((unsigned long long)t);
      int k = -1;
      for (int bit = 62, seen = 0; bit >= 0; --bit) {{
        if ((t >> bit) & 1) {{
          if (seen == lane) k = bit;
          ++seen;
        }}
      }}
      GaA a = ga_identity();
      if (lane < nb) a = ga_await(vr, fr, ga_slot(tpr, k, (t >> (k + 1)) << 1));
      GaA carry = ga_shfl_idx(a, 0);
      for (int l = 1; l < nb; ++l) carry = ga_combine(carry, ga_shfl_idx(a, l));
      if (lane == 0) s_carry = carry;
    }}
  }}
  __syncthreads();
  const bool has_carry = t > 0;
  ga_reg_store<VEC_IO>(v, pre, has_pre, yr, cnt, seg, lane, warp, s_carry, has_carry, wpre);
}}
// Launched with exactly outer * tpr blocks; `flags` (outer * slots) and `counter` zeroed.
__global__ void __launch_bounds__({BLOCK}) ga_scan_lookback(const {m}* __restrict__ x, {m}* __restrict__ y, u32* flags, u64* vals, unsigned long long* counter, const i64 outer, const i64 len, const i64 tpr, const i64 slots) {{
  ga_scan_lookback_impl<false>(x, y, flags, vals, counter, outer, len, tpr, slots);
}}
// The same with 16-byte loads and stores (x, y and rows 16-byte aligned).
__global__ void __launch_bounds__({BLOCK}) ga_scan_lookback_vec(const {m}* __restrict__ x, {m}* __restrict__ y, u32* flags, u64* vals, unsigned long long* counter, const i64 outer, const i64 len, const i64 tpr, const i64 slots) {{
  ga_scan_lookback_impl<true>(x, y, flags, vals, counter, outer, len, tpr, slots);
}}

"#,
        nv = items / vec_width(t),
        valign = vec_width(t) as usize * t.size(),
        vec = vec_width(t),
        xe = x("xr[e]"),
        xei = x("xr[e + i]"),
        xq = x("q.v[i]"),
    ));
    s
}

/// The kernels of a scan module.
pub const KERNELS: [&str; 12] = [
    "ga_scan_tile_reduce",
    "ga_scan_tiles",
    "ga_scan_lookback",
    "ga_scan_lookback_vec",
    "ga_scan_tile_totals",
    "ga_scan_tile_totals_vec",
    "ga_scan_tiles_regs",
    "ga_scan_tiles_regs_vec",
    "ga_scan_rows_regs",
    "ga_scan_rows_regs_vec",
    "ga_scan_cols_reduce",
    "ga_scan_cols",
];
