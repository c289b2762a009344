//! C++ of the LSD radix sort for one element type: 8-bit digits of the order-preserving keys
//! of [`super::codegen`] (so NaNs sort last and come back as one positive quiet NaN, exactly as
//! the bitonic sort does), least significant digit first, `key bits / 8` passes.
//!
//! Only keys are sorted (a sort of values returns values), so the result is the sorted key
//! sequence and equal keys are equal values: the output is the same bits on every run and on
//! every path. Each pass must still be stable (LSD correctness), and is, by construction: a
//! key's destination depends only on its digit and on the keys before it.
//!
//! | kernel | job |
//! |---|---|
//! | `ga_radix_hist` | digit counts of every pass for every row, in one read of the input |
//! | `ga_radix_pass` | one pass of a onesweep sort over tiles of [`tile`] keys (below) |
//! | `ga_radix_rows` | a whole row of at most [`rows_max`] keys sorted by one block in shared memory |
//! | `ga_radix_fill` | one-pass types (bool, u8): the sorted row written from its histogram |
//!
//! **A onesweep pass** (`ga_radix_pass`, after Adinets & Merrill, "Onesweep", 2022): each block
//! takes the next tile from an atomic counter (so every tile it waits for was taken earlier and
//! is running), loads its keys warp-striped (coalesced), and ranks them with a warp-level
//! multi-split: eight ballots give each key the mask of lanes holding the same digit, the
//! highest such lane advances the warp's shared counter, and a key's rank is the counter before
//! plus the peers below it — keys ranked in (item, lane) order, which is their order in the tile.
//! The block's digit counts are published per (tile, digit) as one 64-bit status word
//! (pass tag | aggregate-or-inclusive flag | count); thread `d` then walks back over the earlier
//! tiles of the row, adding aggregates until it meets an inclusive count (decoupled look-back),
//! and publishes its own inclusive count. With the row's digit bases (an exclusive scan of the
//! histogram), every key's destination is known; keys are first placed in digit order in shared
//! memory, then written out with consecutive threads writing consecutive addresses of a digit's
//! run. The first pass reads values (converting them to keys), the last writes values back; the
//! passes in between alternate between one scratch buffer and the caller's buffer, which has
//! the same size as the keys for every type sorted in several passes.
//!
//! The tag in the status words (`pass + 1`) lets one zeroed status array serve every pass: a
//! word of the previous pass reads as "nothing published yet".
//!
//! Integer sums only (counts and positions), so the look-back order cannot change a result.

use gpuarrays_core::DType;

use crate::kernels::cpp::element_types::mty;

/// Bits per digit.
pub const RADIX_BITS: u32 = 8;
/// Threads per block of `ga_radix_pass` (one per digit of the block's counts).
pub const PASS_BLOCK: u32 = 256;
/// Keys per thread in `ga_radix_pass` by default.
pub const PASS_ITEMS: u32 = 16;
/// Keys per thread in `ga_radix_pass` for `t`: [`PASS_ITEMS`]. (Measured on the H200,
/// 2026-12-02, docs/results/hip-scan-sort.md: 2^28 f32 in one row / the suite's rows: 12 keys 11.2 / 10.1 ms, 16 keys 10.25 /
/// 9.04 ms, 20 keys 10.5 / 10.6 ms, 24 keys 10.16 / 10.13 ms (80 registers, 37.5 %
/// occupancy): 16 for every key size. 8-byte keys could not take more: their tile is 32 KiB
/// of the 48 KiB of static shared memory a block may have.)
pub fn pass_items(_t: DType) -> u32 {
    PASS_ITEMS
}

/// Keys per onesweep tile of `t`.
pub fn tile(t: DType) -> usize {
    (PASS_BLOCK * pass_items(t)) as usize
}
/// Threads per block of `ga_radix_rows`.
pub const ROWS_BLOCK: u32 = 512;
/// Threads per block of `ga_radix_hist` and `ga_radix_fill`.
pub const HIST_BLOCK: u32 = 256;
/// The unit, in elements, of the spans the histogram blocks split a row into (a span is a
/// multiple of it, so spans after the first of a 16-byte aligned row stay aligned for the
/// 16-byte loads of every element size).
pub const HIST_RUN: usize = 16;

/// Significant key bits of `t`: the sort makes `key_bits / RADIX_BITS` passes.
pub fn key_bits(t: DType) -> u32 {
    match t.size() {
        1 => 8,
        2 => 16,
        4 => 32,
        _ => 64,
    }
}

/// Passes of the radix sort for `t`.
pub fn passes(t: DType) -> u32 {
    key_bits(t) / RADIX_BITS
}

/// Keys per thread in `ga_radix_rows` (the row's keys live in shared memory: 32 KiB).
pub fn rows_items(t: DType) -> u32 {
    if t.size() == 8 { 8 } else { 16 }
}

/// The longest row `ga_radix_rows` sorts (one block, keys in shared memory).
pub fn rows_max(t: DType) -> usize {
    (ROWS_BLOCK * rows_items(t)) as usize
}

/// The radix part of the sort module for `t` (after [`super::codegen::body`], whose key
/// functions and `GaKey` it uses).
pub fn body(t: DType) -> String {
    let m = mty(t);
    let passes = passes(t);
    let pass_items = pass_items(t);
    let rows_items = rows_items(t);
    let rows_max = rows_max(t);
    // Elements per 16-byte vector of the histogram's loads.
    let hvec = (16 / t.size()).max(1);
    format!(
        r#"
// ---- LSD radix sort over the keys above: 8-bit digits, {passes} pass(es) ----
#define GA_RADIX_BITS {RADIX_BITS}
#define GA_RADIX (1 << GA_RADIX_BITS)
#define GA_PASSES {passes}
#define GA_TBLOCK {PASS_BLOCK}
#define GA_TITEMS {pass_items}
#define GA_TTILE (GA_TBLOCK * GA_TITEMS)
#define GA_TWARPS (GA_TBLOCK / GA_WARP)
#define GA_RBLOCK {ROWS_BLOCK}
#define GA_RITEMS {rows_items}
#define GA_RMAX {rows_max}
#define GA_RWARPS (GA_RBLOCK / GA_WARP)
#define GA_HBLOCK {HIST_BLOCK}
#define GA_HVEC {hvec}
// Status words of the look-back: tag (pass + 1) in bits 60..63, flag in 58..59 (1: the tile's
// own count, 2: inclusive count of the row's tiles up to this one), count in 0..57.
#define GA_ST_TAG_SHIFT 60
#define GA_ST_FLAG_SHIFT 58
#define GA_ST_VALUE ((1ULL << GA_ST_FLAG_SHIFT) - 1ULL)
#ifndef GA_SPIN_WAIT
#define GA_SPIN_WAIT()
#endif
static_assert(GA_TBLOCK == GA_RADIX, "ga_radix_pass gives each thread one digit");
typedef unsigned short u16;
typedef unsigned long long ga_ull;

GA_INLINE u32 ga_digit(const GaKey k, const int shift) {{ return (u32)(k >> shift) & (u32)(GA_RADIX - 1); }}

// Exclusive prefix sum of `v` over the threads of the block, in thread order (every thread
// calls it; `s_warp` holds GA_MAX_WARPS values).
template <class T>
__device__ T ga_radix_excl_scan(const T v, T* s_warp) {{
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  T x = v;
#pragma unroll
  for (int d = 1; d < GA_WARP; d <<= 1) {{
    const T y = ga_shfl_up(x, d);
    if (lane >= d) x += y;
  }}
  if (lane == GA_WARP - 1) s_warp[warp] = x;
  __syncthreads();
  T before = 0;
  for (int w = 0; w < warp; ++w) before += s_warp[w];
  __syncthreads();
  return before + x - v;
}}

// Warp-level multi-split. The warp's keys are k[j] of lane l at position j * GA_WARP + l of
// its segment (positions >= rem are absent). rank[j] becomes the count of the segment's keys
// with the same digit before it, plus whist[digit] on entry; whist[digit] ends with the
// segment's count added. Keys are taken in position order, so the ranks are stable.
template <int ITEMS, class C>
GA_INLINE void ga_radix_rank(const GaKey (&k)[ITEMS], const i64 rem, const int shift, C* whist, u32 (&rank)[ITEMS]) {{
  const int lane = threadIdx.x % GA_WARP;
  const u64 below = lane == 0 ? 0ULL : (~0ULL >> (64 - lane));
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {{
    if ((i64)j * GA_WARP >= rem) break;
    const bool valid = (i64)j * GA_WARP + lane < rem;
    const u32 d = valid ? ga_digit(k[j], shift) : 0u;
    u64 peers = GA_BALLOT(valid);
#pragma unroll
    for (int b = 0; b < GA_RADIX_BITS; ++b) {{
      const bool bit = ((d >> b) & 1u) != 0u;
      const u64 vote = GA_BALLOT(bit);
      peers &= bit ? vote : ~vote;
    }}
    const u32 before = valid ? (u32)whist[d] : 0u;
    GA_SYNCWARP();
    if (valid) {{
      rank[j] = before + (u32)__popcll(peers & below);
      if (lane == 63 - __clzll((long long)peers)) whist[d] = (C)(before + (u32)__popcll(peers));
    }}
    GA_SYNCWARP();
  }}
}}

// Counts one key's digits of every pass into the thread's open runs, adding a run to the
// block's counters when the digit changes (equal digits in a row cost one atomic).
GA_INLINE void ga_hist_count(u32* s_h, const GaKey k, u32 (&cur)[GA_PASSES], u32 (&run)[GA_PASSES], const int skip) {{
#pragma unroll
  for (int p = 0; p < GA_PASSES; ++p) {{
    if (p < skip) continue;
    const u32 d = ga_digit(k, p * GA_RADIX_BITS);
    if (run[p] != 0u && d == cur[p]) {{
      ++run[p];
    }} else {{
      if (run[p] != 0u) atomicAdd(&s_h[p * GA_RADIX + cur[p]], run[p]);
      cur[p] = d;
      run[p] = 1u;
    }}
  }}
}}
struct alignas(16) GaHistVec {{ {m} v[GA_HVEC]; }};
// Digit counts of every pass for row r in hist[(r * GA_PASSES + pass) * GA_RADIX + digit];
// block b counts elements [part * chunk, part * chunk + chunk) of row b / bpr. Passes below
// `skip` are not counted (they are not run).
__global__ void __launch_bounds__(GA_HBLOCK) ga_radix_hist(const {m}* __restrict__ x, ga_ull* hist, const i64 rows, const i64 len, const i64 bpr, const i64 chunk, const int skip) {{
  __shared__ u32 s_h[GA_PASSES * GA_RADIX];
  for (i64 b = blockIdx.x; b < rows * bpr; b += gridDim.x) {{
    for (int i = threadIdx.x; i < GA_PASSES * GA_RADIX; i += blockDim.x) s_h[i] = 0u;
    __syncthreads();
    const i64 row = b / bpr, part = b % bpr;
    const i64 s0 = part * chunk;
    const i64 n = (s0 + chunk < len ? s0 + chunk : len) - s0;
    const {m}* xs = x + row * len + s0;
    // Runs stay open across the thread's keys (a histogram does not care where a key was),
    // so a constant or sorted span costs a few atomics per thread, not one per key.
    u32 cur[GA_PASSES], run[GA_PASSES];
#pragma unroll
    for (int p = 0; p < GA_PASSES; ++p) {{ cur[p] = 0u; run[p] = 0u; }}
    if ((reinterpret_cast<unsigned long long>(xs) & 15ULL) == 0ULL) {{
      // 16-byte vectors, block-striped: each load instruction of a warp reads 512
      // contiguous bytes (scalar loads of consecutive elements per thread, as before
      // 2026-12-02, made every warp load touch 32 cache lines).
      const i64 nv = n / GA_HVEC;
      const GaHistVec* xv = reinterpret_cast<const GaHistVec*>(xs);
      for (i64 v = threadIdx.x; v < nv; v += blockDim.x) {{
        const GaHistVec q = xv[v];
#pragma unroll
        for (int i = 0; i < GA_HVEC; ++i) ga_hist_count(s_h, ga_to_key(q.v[i]), cur, run, skip);
      }}
      for (i64 e = nv * GA_HVEC + threadIdx.x; e < n; e += blockDim.x) ga_hist_count(s_h, ga_to_key(xs[e]), cur, run, skip);
    }} else {{
      for (i64 e = threadIdx.x; e < n; e += blockDim.x) ga_hist_count(s_h, ga_to_key(xs[e]), cur, run, skip);
    }}
#pragma unroll
    for (int p = 0; p < GA_PASSES; ++p) {{
      if (run[p] != 0u) atomicAdd(&s_h[p * GA_RADIX + cur[p]], run[p]);
    }}
    __syncthreads();
    for (int i = threadIdx.x; i < GA_PASSES * GA_RADIX; i += blockDim.x) {{
      if (s_h[i] != 0u) atomicAdd(&hist[row * GA_PASSES * GA_RADIX + i], (ga_ull)s_h[i]);
    }}
    __syncthreads();
  }}
}}

// One onesweep pass (see the module docs). Launched with exactly rows * tpr blocks; tiles are
// taken from counter[pass]. Reads values from xv (first) or keys from xk; writes keys to yk,
// or values to yv (last), or, given yp (last pass only), the low 32 bits of each key as i64
// (the positions of a sorting permutation's packed words).
__global__ void __launch_bounds__(GA_TBLOCK) ga_radix_pass(const {m}* __restrict__ xv, const GaKey* __restrict__ xk, {m}* __restrict__ yv, GaKey* __restrict__ yk, i64* __restrict__ yp, const ga_ull* __restrict__ hist, ga_ull* status, ga_ull* counter, const i64 rows, const i64 len, const i64 tpr, const int pass, const int first, const int last) {{
  __shared__ GaKey s_keys[GA_TTILE];
  __shared__ u32 s_whist[GA_TWARPS * GA_RADIX];
  __shared__ i64 s_off[GA_RADIX];
  __shared__ u32 s_lstart[GA_RADIX];
  __shared__ u32 s_scan32[GA_MAX_WARPS];
  __shared__ ga_ull s_scan64[GA_MAX_WARPS];
  __shared__ i64 s_tile;
  if (threadIdx.x == 0) s_tile = (i64)atomicAdd(counter + pass, 1ULL);
  for (int i = threadIdx.x; i < GA_TWARPS * GA_RADIX; i += GA_TBLOCK) s_whist[i] = 0u;
  __syncthreads();
  const i64 tile = s_tile;
  const i64 row = tile / tpr, t = tile % tpr;
  const i64 start = t * GA_TTILE;
  const i64 cnt = len - start < GA_TTILE ? len - start : GA_TTILE;
  const i64 base = row * len + start;
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const i64 seg = (i64)warp * GA_WARP * GA_TITEMS;
  const int shift = pass * GA_RADIX_BITS;
  GaKey k[GA_TITEMS];
  u32 rank[GA_TITEMS];
#pragma unroll
  for (int j = 0; j < GA_TITEMS; ++j) {{
    const i64 e = seg + (i64)j * GA_WARP + lane;
    k[j] = 0;
    rank[j] = 0u;
    if (e < cnt) k[j] = first ? ga_to_key(xv[base + e]) : xk[base + e];
  }}
  ga_radix_rank<GA_TITEMS, u32>(k, cnt - seg, shift, s_whist + warp * GA_RADIX, rank);
  __syncthreads();
  // Thread d: digit d. Exclusive counts per warp (in place) and the tile's count.
  const int d = threadIdx.x;
  u32 count = 0u;
  for (int w = 0; w < GA_TWARPS; ++w) {{
    const u32 c = s_whist[w * GA_RADIX + d];
    s_whist[w * GA_RADIX + d] = count;
    count += c;
  }}
  // Decoupled look-back over the row's earlier tiles for digit d.
  volatile ga_ull* st = status;
  const ga_ull tag = (ga_ull)(pass + 1);
  const ga_ull tag_bits = tag << GA_ST_TAG_SHIFT;
  ga_ull excl = 0ULL;
  if (t == 0) {{
    st[tile * GA_RADIX + d] = tag_bits | (2ULL << GA_ST_FLAG_SHIFT) | (ga_ull)count;
  }} else {{
    st[tile * GA_RADIX + d] = tag_bits | (1ULL << GA_ST_FLAG_SHIFT) | (ga_ull)count;
    i64 q = tile - 1;
    while (true) {{
      const ga_ull s = st[q * GA_RADIX + d];
      if ((s >> GA_ST_TAG_SHIFT) != tag) {{
        GA_SPIN_WAIT();
        continue;
      }}
      excl += s & GA_ST_VALUE;
      if (((s >> GA_ST_FLAG_SHIFT) & 3ULL) == 2ULL) break;
      --q;
    }}
    st[tile * GA_RADIX + d] = tag_bits | (2ULL << GA_ST_FLAG_SHIFT) | (excl + (ga_ull)count);
  }}
  const ga_ull dbase = ga_radix_excl_scan<ga_ull>(hist[(row * GA_PASSES + pass) * GA_RADIX + d], s_scan64);
  const u32 lstart = ga_radix_excl_scan<u32>(count, s_scan32);
  // Global position of the tile's i-th key in digit order is s_off[digit] + i.
  s_off[d] = row * len + (i64)dbase + (i64)excl - (i64)lstart;
  s_lstart[d] = lstart;
  __syncthreads();
#pragma unroll
  for (int j = 0; j < GA_TITEMS; ++j) {{
    const i64 e = seg + (i64)j * GA_WARP + lane;
    if (e < cnt) {{
      const u32 dj = ga_digit(k[j], shift);
      s_keys[s_lstart[dj] + s_whist[warp * GA_RADIX + dj] + rank[j]] = k[j];
    }}
  }}
  __syncthreads();
  for (int i = threadIdx.x; i < cnt; i += GA_TBLOCK) {{
    const GaKey key = s_keys[i];
    const i64 dst = s_off[ga_digit(key, shift)] + i;
    if (yp) yp[dst] = (i64)((ga_ull)key & 0xffffffffULL);
    else if (last) yv[dst] = ga_from_key(key);
    else yk[dst] = key;
  }}
}}

// Each row of len <= GA_RMAX elements sorted by one block: keys in registers and shared memory,
// every pass ranked as in ga_radix_pass, the row written back once.
// Passes below `skip` are left out (their digits are already in order).
__global__ void __launch_bounds__(GA_RBLOCK) ga_radix_rows({m}* x, const i64 rows, const i64 len, const int skip) {{
  __shared__ GaKey s_keys[GA_RMAX];
  __shared__ u16 s_whist[GA_RWARPS * GA_RADIX];
  __shared__ u32 s_lstart[GA_RADIX];
  __shared__ u32 s_scan32[GA_MAX_WARPS];
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const i64 seg = (i64)warp * GA_WARP * GA_RITEMS;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {{
    {m}* xr = x + row * len;
    GaKey k[GA_RITEMS];
    u32 rank[GA_RITEMS];
#pragma unroll
    for (int j = 0; j < GA_RITEMS; ++j) {{
      const i64 e = seg + (i64)j * GA_WARP + lane;
      k[j] = e < len ? ga_to_key(xr[e]) : (GaKey)0;
      rank[j] = 0u;
    }}
    for (int pass = skip; pass < GA_PASSES; ++pass) {{
      const int shift = pass * GA_RADIX_BITS;
      for (int i = threadIdx.x; i < GA_RWARPS * GA_RADIX; i += GA_RBLOCK) s_whist[i] = (u16)0;
      __syncthreads();
      ga_radix_rank<GA_RITEMS, u16>(k, len - seg, shift, s_whist + warp * GA_RADIX, rank);
      __syncthreads();
      u32 count = 0u;
      if (threadIdx.x < GA_RADIX) {{
        for (int w = 0; w < GA_RWARPS; ++w) {{
          const u32 c = s_whist[w * GA_RADIX + threadIdx.x];
          s_whist[w * GA_RADIX + threadIdx.x] = (u16)count;
          count += c;
        }}
      }}
      const u32 lstart = ga_radix_excl_scan<u32>(count, s_scan32);
      if (threadIdx.x < GA_RADIX) s_lstart[threadIdx.x] = lstart;
      __syncthreads();
#pragma unroll
      for (int j = 0; j < GA_RITEMS; ++j) {{
        const i64 e = seg + (i64)j * GA_WARP + lane;
        if (e < len) {{
          const u32 dj = ga_digit(k[j], shift);
          s_keys[s_lstart[dj] + (u32)s_whist[warp * GA_RADIX + dj] + rank[j]] = k[j];
        }}
      }}
      __syncthreads();
      if (pass + 1 < GA_PASSES) {{
#pragma unroll
        for (int j = 0; j < GA_RITEMS; ++j) {{
          const i64 e = seg + (i64)j * GA_WARP + lane;
          if (e < len) k[j] = s_keys[e];
        }}
      }}
    }}
    for (i64 i = threadIdx.x; i < len; i += GA_RBLOCK) xr[i] = ga_from_key(s_keys[i]);
    __syncthreads();
  }}
}}

// One-pass types: row r is the histogram's digits in order, each repeated its count times.
__global__ void __launch_bounds__(GA_HBLOCK) ga_radix_fill({m}* y, const ga_ull* __restrict__ hist, const i64 rows, const i64 len, const i64 bpr, const i64 chunk) {{
  __shared__ ga_ull s_end[GA_RADIX];
  __shared__ ga_ull s_scan64[GA_MAX_WARPS];
  for (i64 b = blockIdx.x; b < rows * bpr; b += gridDim.x) {{
    const i64 row = b / bpr, part = b % bpr;
    const i64 s0 = part * chunk;
    const i64 s1 = s0 + chunk < len ? s0 + chunk : len;
    const ga_ull h = threadIdx.x < GA_RADIX ? hist[row * GA_PASSES * GA_RADIX + threadIdx.x] : 0ULL;
    const ga_ull before = ga_radix_excl_scan<ga_ull>(h, s_scan64);
    if (threadIdx.x < GA_RADIX) s_end[threadIdx.x] = before + h;
    __syncthreads();
    for (i64 i = s0 + threadIdx.x; i < s1; i += blockDim.x) {{
      int lo = 0, hi = GA_RADIX - 1;
      while (lo < hi) {{
        const int mid = (lo + hi) >> 1;
        if ((i64)s_end[mid] > i) hi = mid; else lo = mid + 1;
      }}
      y[row * len + i] = ga_from_key((GaKey)lo);
    }}
    __syncthreads();
  }}
}}
"#
    )
}

/// The radix kernels of a sort module.
pub const KERNELS: [&str; 4] = [
    "ga_radix_hist",
    "ga_radix_pass",
    "ga_radix_rows",
    "ga_radix_fill",
];
