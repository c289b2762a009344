//! The C++ of the gather and scatter variants that the launcher picks for common shapes
//! (gathers take the same `bad` report pointer as the general one, see `super::codegen`)
//! (when: `super::IndexingLaunch::plan`; the general kernels: [`super::codegen`]). The
//! times below are the general kernels' and the reason for each variant; the variants' own
//! are printed by `tests/indexing_gpu.rs` (not yet measured when they were written).
//!
//! - *Rows* (`ga_gather_rows`, `ga_scatter_rows`): whole rows selected along a contiguous
//!   inner axis (`index_select`, `take` of rows, assigning to rows). The general kernel
//!   spends one index read, one position and a three-way split on every element; for an
//!   index_select of 8192 rows × 32768 f32 on an H200 that ran at 1141 GB/s (941 µs, PyTorch
//!   267 µs, copies ~4200 GB/s). Here a thread moves a chunk of 16 bytes of one row: one
//!   index read and one position serve the chunk, the split divides by the chunk count in
//!   32 bits where the work fits, and the chunk moves as one 16-byte access when both of its
//!   ends are 16-byte aligned and it is whole (else element by element: a row's tail, or rows
//!   whose offsets are not aligned). Each element still lands as one store of its width or
//!   inside one vector store, so an assigning scatter leaves every element one update whole.
//! - *Lines* (`ga_gather_lines`): gathers along the last axis (`inner == 1`: take_along_axis,
//!   1-D take) of fewer than 2^32 - 256 points, which the general kernel served at 2.86 ms for
//!   16384 × 16384 f32 on an H200 (PyTorch 2.01 ms). The loop counter and the split are
//!   32-bit, with no inner division and no per-point choice of division width; only the
//!   addresses are formed in 64 bits (strides and positions can exceed 32 bits).
//! - *Histogram* (`ga_scatter_add_hist`): adds into a small 1-D target (`outer == inner == 1`,
//!   at most [`HIST_BYTES`] of bins: bincount, histograms). Every update of the general
//!   kernel is a global atomic, and with few bins they all contend: bincount into 256 bins of
//!   2^28 ones took 44 ms on an H200 (PyTorch 2.5 ms). Here each block adds its grid-stride
//!   share into a private copy of the bins in shared memory (shared atomics), then adds each
//!   bin that changed to the target with one global atomic. Float bins start at -0.0, the
//!   identity of addition (`-0 + x == x` for every x, +0 included), and a bin still holding
//!   -0.0 is skipped (adding it would change nothing), so untouched bins leave the target bit
//!   for bit as it was; sums come in an unspecified order and grouping, as every GPU add
//!   does. Types: those with native atomics (u32 lanes for i32 and u32, u64 for i64 and u64,
//!   f32, f64; complex as two lanes); u8 keeps the general kernel. The bins are static
//!   shared memory ([`HIST_BYTES`] per block whatever the extent: the emulator has no
//!   dynamic shared memory).

use gpuarrays_core::DType;

use super::moves::{BLOCK, move_type};
use crate::kernels::cpp::element_types::cty;

/// The gather of whole row chunks.
pub const GATHER_ROWS: &str = "ga_gather_rows";
/// The gather along the last axis (`inner == 1`) of a space below 2^32 points.
pub const GATHER_LINES: &str = "ga_gather_lines";
/// The assigning scatter of whole row chunks.
pub const SCATTER_ROWS: &str = "ga_scatter_rows";
/// The adding scatter through per-block bins in shared memory.
pub const SCATTER_ADD_HIST: &str = "ga_scatter_add_hist";

/// Bytes of one row chunk (one vector access).
pub const CHUNK_BYTES: usize = 16;
/// Shared-memory bins per block, in bytes (static, so every histogram launch reserves it).
pub const HIST_BYTES: usize = 32 * 1024;

/// Elements of `dtype` in one row chunk (1 for c64, which gains nothing from the rows kernels).
pub fn chunk_elements(dtype: DType) -> usize {
    (CHUNK_BYTES / move_type(dtype).1).max(1)
}

/// The lanes the histogram adds `dtype` in: lane type, lanes per element, the identity's
/// literal and a test of `x` for it. `None`: no histogram kernel for `dtype`.
fn lanes(dtype: DType) -> Option<(&'static str, usize, &'static str, &'static str)> {
    let f32_id = "__int_as_float((int)0x80000000u)";
    let f32_is = "__float_as_uint(x) == 0x80000000u";
    let f64_id = "__longlong_as_double((i64)0x8000000000000000ULL)";
    let f64_is = "(u64)__double_as_longlong(x) == 0x8000000000000000ULL";
    Some(match dtype {
        DType::I32 | DType::U32 => ("u32", 1, "0u", "x == 0u"),
        DType::I64 | DType::U64 => ("u64", 1, "0ULL", "x == 0ULL"),
        DType::F32 => ("f32", 1, f32_id, f32_is),
        DType::C32 => ("f32", 2, f32_id, f32_is),
        DType::F64 => ("f64", 1, f64_id, f64_is),
        DType::C64 => ("f64", 2, f64_id, f64_is),
        DType::Bool
        | DType::I8
        | DType::U8
        | DType::I16
        | DType::U16
        | DType::F16
        | DType::BF16 => return None,
    })
}

/// Whether `dtype` has the histogram kernel.
pub fn has_hist(dtype: DType) -> bool {
    lanes(dtype).is_some()
}

/// The variant kernels of `dtype`.
pub fn kernels(dtype: DType) -> Vec<&'static str> {
    let mut k = vec![GATHER_ROWS, SCATTER_ROWS, GATHER_LINES];
    if has_hist(dtype) {
        k.push(SCATTER_ADD_HIST);
    }
    k
}

/// The variants' C++ for `dtype` (after codegen's common part, which defines `GaSpace3`,
/// `GaStrides3`, `GaPair64` and `ga_position`).
pub fn body(dtype: DType) -> String {
    let (m, _) = move_type(dtype);
    let e = chunk_elements(dtype);
    let head = "const i64* __restrict__ index, const GaStrides3 is";
    let points = "for (i64 w = (i64)blockIdx.x * blockDim.x + threadIdx.x; w < sp.total; w += (i64)gridDim.x * blockDim.x)";
    let mut s = format!(
        r#"
// Rows: sp.total counts row chunks of {e} elements; (o, j, chunk c) of work item w, divided in U.
template <class U>
GA_INLINE void ga_split_rows(const U w, const U chunks, const U count, const bool one_outer, i64* o, i64* j, i64* c) {{
  const U r = w / chunks;
  const U q = one_outer ? (U)0 : r / count;
  *c = (i64)(w - r * chunks);
  *j = (i64)(r - q * count);
  *o = (i64)q;
}}
// The row chunk of work item w: (o, j), its first element k0 and its length n.
GA_INLINE void ga_row_chunk(const i64 w, const GaSpace3& sp, i64* o, i64* j, i64* k0, i64* n) {{
  const i64 chunks = (sp.inner + {e} - 1) / {e};
  i64 c;
  if (sp.total <= 0xffffffffLL) {{
    ga_split_rows<u32>((u32)w, (u32)chunks, (u32)sp.count, sp.outer == 1, o, j, &c);
  }} else {{
    ga_split_rows<u64>((u64)w, (u64)chunks, (u64)sp.count, sp.outer == 1, o, j, &c);
  }}
  *k0 = c * {e};
  *n = sp.inner - *k0 < {e} ? sp.inner - *k0 : {e};
}}
// Moves n <= {e} elements: one 16-byte access where the chunk is whole and both ends aligned.
GA_INLINE void ga_move_chunk({m}* to, const {m}* from, const i64 n) {{
  if (n == {e} && ((reinterpret_cast<u64>(to) | reinterpret_cast<u64>(from)) & 15ULL) == 0) {{
    *reinterpret_cast<GaPair64*>(to) = *reinterpret_cast<const GaPair64*>(from);
  }} else {{
    for (i64 t = 0; t < n; ++t) to[t] = from[t];
  }}
}}
__global__ void __launch_bounds__({BLOCK}) {GATHER_ROWS}({head}, const {m}* __restrict__ source, const GaStrides3 ss, {m}* __restrict__ out, const GaSpace3 sp, const int mode, u32* bad) {{
  {points} {{
    i64 o, j, k0, n;
    ga_row_chunk(w, sp, &o, &j, &k0, &n);
    const i64 r = index[o * is.s0 + j * is.s1];
    ga_note_range(r, sp.extent, bad);
    const i64 p = ga_position(r, sp.extent, mode);
    ga_move_chunk(out + ((o * sp.count + j) * sp.inner + k0), source + (o * ss.s0 + p * ss.s1 + k0), n);
  }}
}}
__global__ void __launch_bounds__({BLOCK}) {GATHER_LINES}({head}, const {m}* __restrict__ source, const GaStrides3 ss, {m}* __restrict__ out, const GaSpace3 sp, const int mode, u32* bad) {{
  const u32 total = (u32)sp.total, count = (u32)sp.count;
  const bool one_outer = sp.outer == 1;
  const u32 stride = gridDim.x * blockDim.x;
  // The launcher keeps total + {BLOCK} below 2^32, so neither the first point nor the
  // stride wraps, and the loop leaves before a step could.
  for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {{
    const u32 o = one_outer ? 0u : i / count;
    const u32 j = i - o * count;
    const i64 r = index[(i64)o * is.s0 + (i64)j * is.s1];
    ga_note_range(r, sp.extent, bad);
    const i64 p = ga_position(r, sp.extent, mode);
    out[i] = source[(i64)o * ss.s0 + p * ss.s1];
    if (total - i <= stride) break;
  }}
}}
__global__ void __launch_bounds__({BLOCK}) {SCATTER_ROWS}({head}, const {m}* __restrict__ values, const GaStrides3 vs, {m}* __restrict__ target, const GaStrides3 ts, const GaSpace3 sp, const int mode) {{
  {points} {{
    i64 o, j, k0, n;
    ga_row_chunk(w, sp, &o, &j, &k0, &n);
    const i64 p = ga_position(index[o * is.s0 + j * is.s1], sp.extent, mode);
    ga_move_chunk(target + (o * ts.s0 + p * ts.s1 + k0), values + (o * vs.s0 + j * vs.s1 + k0), n);
  }}
}}
"#
    );
    if let Some((l, nl, id, is_id)) = lanes(dtype) {
        let t = cty(dtype);
        let slots = HIST_BYTES / 16;
        s.push_str(&format!(
            r#"GA_INLINE bool ga_hist_untouched(const {l} x) {{ return {is_id}; }}
__global__ void __launch_bounds__({BLOCK}) {SCATTER_ADD_HIST}({head}, const {t}* __restrict__ values, const GaStrides3 vs, {t}* __restrict__ target, const GaStrides3 ts, const GaSpace3 sp, const int mode) {{
  __shared__ GaPair64 ga_bins[{slots}];
  {l}* bins = reinterpret_cast<{l}*>(ga_bins);
  const {l}* vl = reinterpret_cast<const {l}*>(values);
  {l}* tl = reinterpret_cast<{l}*>(target);
  const i64 lanes = sp.extent * {nl};
  for (i64 b = threadIdx.x; b < lanes; b += blockDim.x) bins[b] = {id};
  __syncthreads();
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < sp.total; i += (i64)gridDim.x * blockDim.x) {{
    const i64 p = ga_position(index[i * is.s1], sp.extent, mode);
    for (int l = 0; l < {nl}; ++l) atomicAdd(bins + p * {nl} + l, vl[i * vs.s1 * {nl} + l]);
  }}
  __syncthreads();
  for (i64 b = threadIdx.x; b < lanes; b += blockDim.x) {{
    const {l} x = bins[b];
    if (!ga_hist_untouched(x)) atomicAdd(tl + (b / {nl}) * ts.s1 * {nl} + b % {nl}, x);
  }}
}}
"#
        ));
    }
    s
}
