//! C++ of the register sort of short rows: the bitonic network of [`super::codegen`] (same
//! order-preserving keys, same padding with the greatest key, so the same sorted sequence),
//! with the keys held in registers instead of a shared-memory tile.
//!
//! Why: the shared-memory tile pays one `__syncthreads` and two shared accesses per key for each
//! of the network's 55 steps at 1024 keys, and two extra launches convert values to keys and
//! back through a scratch buffer. On the H200, 2^26 f32 keys in rows of 1024 took 4.86 ms that
//! way (PyTorch: 2.15 ms). Here one launch reads the values, sorts and writes them back, and a
//! barrier is paid only when the keys change hands between warps.
//!
//! A block of [`THREADS`] threads sorts one tile of [`TILE`] keys: whole rows padded to
//! `p = 2^lp <= TILE` (`TILE / p` rows per block, so short rows still fill blocks). Each thread
//! holds [`ITEMS`] keys in one of two layouts of the tile's positions `i`:
//!
//! | layout | thread `t` holds | steps of distance `j` done there |
//! |---|---|---|
//! | A | `t * ITEMS + r` | `j < ITEMS`: inside the thread; `ITEMS <= j < THREADS`: with lane `lane ^ (j / ITEMS)` by `ga_shfl_xor` |
//! | B | `r * THREADS + t` | `j >= THREADS`: inside the thread |
//!
//! `j / ITEMS < 32` in layout A, so the shuffle partner is in the same warp for warps of 32
//! (NVIDIA) and 64 lanes (AMD wavefronts) alike; nothing else depends on the warp size. Stage
//! `k` of rows longer than [`THREADS`] moves the keys to layout B through shared memory, does
//! its steps `j >= THREADS` there and moves them back: two barriers per such stage (three
//! stages at 2048), plus one to load (coalesced, in layout B) and one to store. The shared slots
//! are padded (one slot per 128 bytes of keys: 64 two-byte, 32 four-byte or 16 eight-byte
//! keys) so that both layouts' accesses are free of bank conflicts.
//!
//! The stages are written out by the generator (every `(k, j)` a template instance), so every
//! register index is a constant and the keys never leave registers; `lp` only switches whole
//! stages on and off, uniformly across the block.

use gpuarrays_core::DType;

use super::codegen::key_bytes;
use crate::kernels::cpp::element_types::mty;

/// Keys per thread.
pub const ITEMS: usize = 8;
/// Threads per block.
pub const THREADS: usize = 256;
/// Keys per block: the longest (padded) row the register sort takes.
pub const TILE: usize = ITEMS * THREADS;

/// The kernel of this part of the sort module.
pub const KERNELS: [&str; 1] = ["ga_rsort_rows"];

/// The network's stages for rows padded to `2^lp`, `lp` up to log2([`TILE`]): C++ statements.
fn stages() -> String {
    let mut out = String::new();
    let log_tile = TILE.trailing_zeros();
    for lk in 1..=log_tile {
        let k = 1usize << lk;
        out.push_str(&format!("  if (lp >= {lk}) {{\n"));
        let mut j = k / 2;
        if j >= THREADS {
            out.push_str("    ga_rs_a_to_b(v, s, t);\n");
            while j >= THREADS {
                out.push_str(&format!("    ga_rs_thread_b<{k}, {j}>(v, t, p);\n"));
                j /= 2;
            }
            out.push_str("    ga_rs_b_to_a(v, s, t);\n");
        }
        while j >= ITEMS {
            out.push_str(&format!("    ga_rs_warp_a<{k}, {j}>(v, t, p);\n"));
            j /= 2;
        }
        while j >= 1 {
            out.push_str(&format!("    ga_rs_thread_a<{k}, {j}>(v, t, p);\n"));
            j /= 2;
        }
        out.push_str("  }\n");
    }
    out
}

/// The register-sort part of the sort module for `t` (after [`super::codegen::body`], whose
/// key functions and `GaKey` it uses).
pub fn body(t: DType) -> String {
    let m = mty(t);
    // One pad slot per 128 bytes of keys: conflict-free in both layouts (module docs).
    let pad_shift = match key_bytes(t) {
        8 => 4,
        4 => 5,
        _ => 6,
    };
    let stages = stages();
    format!(
        r#"
// ---- register sort of rows padded to 2^lp <= GA_RS_TILE keys (one launch) ----
#define GA_RS_ITEMS {ITEMS}
#define GA_RS_THREADS {THREADS}
#define GA_RS_TILE {TILE}
#define GA_RS_PAD_SHIFT {pad_shift}
#define GA_RS_SLOTS (GA_RS_TILE + (GA_RS_TILE >> GA_RS_PAD_SHIFT))
static_assert(GA_WARP >= 32 && GA_RS_THREADS % GA_WARP == 0,
              "layout A's shuffles reach 32 lanes: warps of 32 or 64 lanes");
static_assert(GA_RS_ITEMS * 32 == GA_RS_THREADS, "layout A's lane steps end where layout B's begin");

GA_INLINE int ga_rs_slot(const int i) {{ return i + (i >> GA_RS_PAD_SHIFT); }}

// Positions i < l of a pair: ascending when `up`.
GA_INLINE void ga_rs_cas(GaKey& a, GaKey& b, const bool up) {{
  const GaKey lo = a < b ? a : b, hi = a < b ? b : a;
  a = up ? lo : hi;
  b = up ? hi : lo;
}}

// Step (K, J) in layout A (thread t holds positions t * ITEMS + r), J < ITEMS: inside the thread.
template <int K, int J>
GA_INLINE void ga_rs_thread_a(GaKey (&v)[GA_RS_ITEMS], const int t, const int p) {{
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) {{
    if ((r & J) == 0) ga_rs_cas(v[r], v[r | J], K >= p || ((t * GA_RS_ITEMS + r) & K) == 0);
  }}
}}

// Step (K, J) in layout A, ITEMS <= J < THREADS: the partner of every key is the same register
// of lane ^ (J / ITEMS), fewer than 32 lanes away. The lower position keeps the smaller key
// when the pair ascends.
template <int K, int J>
GA_INLINE void ga_rs_warp_a(GaKey (&v)[GA_RS_ITEMS], const int t, const int p) {{
  const int i = t * GA_RS_ITEMS;
  const bool keep_min = (K >= p || (i & K) == 0) == ((i & J) == 0);
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) {{
    const GaKey o = ga_shfl_xor(v[r], J / GA_RS_ITEMS);
    v[r] = keep_min ? (o < v[r] ? o : v[r]) : (o < v[r] ? v[r] : o);
  }}
}}

// Step (K, J) in layout B (thread t holds positions r * THREADS + t), J >= THREADS.
template <int K, int J>
GA_INLINE void ga_rs_thread_b(GaKey (&v)[GA_RS_ITEMS], const int t, const int p) {{
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) {{
    if ((r & (J / GA_RS_THREADS)) == 0) {{
      ga_rs_cas(v[r], v[r | (J / GA_RS_THREADS)], K >= p || ((r * GA_RS_THREADS + t) & K) == 0);
    }}
  }}
}}

// Layout changes through shared memory. A thread's next write goes to the slots it has just
// read (and no other thread reads those), so each change needs one barrier.
GA_INLINE void ga_rs_a_to_b(GaKey (&v)[GA_RS_ITEMS], GaKey* s, const int t) {{
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) s[ga_rs_slot(t * GA_RS_ITEMS + r)] = v[r];
  __syncthreads();
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) v[r] = s[ga_rs_slot(r * GA_RS_THREADS + t)];
}}
GA_INLINE void ga_rs_b_to_a(GaKey (&v)[GA_RS_ITEMS], GaKey* s, const int t) {{
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) s[ga_rs_slot(r * GA_RS_THREADS + t)] = v[r];
  __syncthreads();
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) v[r] = s[ga_rs_slot(t * GA_RS_ITEMS + r)];
}}

// Rows of len elements, padded to p = 2^lp keys (2 <= p <= GA_RS_TILE); block b sorts rows
// [b * TILE / p, (b + 1) * TILE / p) in place.
__global__ void __launch_bounds__(GA_RS_THREADS) ga_rsort_rows({m}* x, const i64 rows, const i64 len, const int lp) {{
  __shared__ GaKey s[GA_RS_SLOTS];
  const int t = threadIdx.x;
  const int p = 1 << lp;
  const i64 row0 = (i64)blockIdx.x * (GA_RS_TILE >> lp);
  GaKey v[GA_RS_ITEMS];
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) {{
    const int i = r * GA_RS_THREADS + t;
    const i64 row = row0 + (i >> lp), col = i & (p - 1);
    v[r] = (row < rows && col < len) ? ga_to_key(x[row * len + col]) : GA_KEY_MAX;
  }}
  ga_rs_b_to_a(v, s, t);
{stages}  ga_rs_a_to_b(v, s, t);
#pragma unroll
  for (int r = 0; r < GA_RS_ITEMS; ++r) {{
    const int i = r * GA_RS_THREADS + t;
    const i64 row = row0 + (i >> lp), col = i & (p - 1);
    if (row < rows && col < len) x[row * len + col] = ga_from_key(v[r]);
  }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated stage list is the bitonic network: for every k, every j from k/2 down to
    /// 1 exactly once, in that order, each in the layout that holds its partners.
    #[test]
    fn stages_cover_the_network_in_order() {
        let text = stages();
        let mut steps = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            for (prefix, layout) in [
                ("ga_rs_thread_a<", 'a'),
                ("ga_rs_warp_a<", 'w'),
                ("ga_rs_thread_b<", 'b'),
            ] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    let args = rest.split('>').next().expect("template arguments");
                    let mut it = args
                        .split(", ")
                        .map(|n| n.parse::<usize>().expect("number"));
                    let (k, j) = (it.next().expect("k"), it.next().expect("j"));
                    steps.push((k, j, layout));
                }
            }
        }
        let mut want = Vec::new();
        let mut k = 2;
        while k <= TILE {
            let mut j = k / 2;
            while j >= 1 {
                let layout = if j < ITEMS {
                    'a'
                } else if j < THREADS {
                    'w'
                } else {
                    'b'
                };
                want.push((k, j, layout));
                j /= 2;
            }
            k *= 2;
        }
        assert_eq!(steps, want);
    }
}
