//! `search_sorted`: insertion points of u32 or u64 keys in an ascending table of keys, by
//! binary search (core turns every ordered type into these keys).
//!
//! A persistent grid of blocks walks the values. Each block first copies a sample of the
//! table into shared memory — every `step`-th key, `SAMPLE` at most (8 KiB) — so the first
//! ~11 of a search's steps are shared-memory reads; the rest (`log2(step)` steps) read the
//! table through the cache. A table of at most `SAMPLE` keys is searched in shared memory
//! only. Searching in global memory alone, each value waits for ~`log2(n)` dependent loads
//! from L2; the sample leaves 5 of 16 for the 65,536-key table of the benchmark.
//!
//! Every step reads a position inside `[0, table_len)` and every answer lies in
//! `0..=table_len`, whatever the table holds: a table that is not sorted gives unspecified
//! answers, never an out-of-range read.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Side;

use super::KernelSource;
use super::args::KernelArgs;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::stream::Stream;

const BLOCK: u32 = 256;
/// Bytes of shared memory the sample of the table takes.
const SAMPLE_BYTES: usize = 8 << 10;
/// Blocks per multiprocessor of the persistent grid (8 KiB of shared memory each).
const BLOCKS_PER_SM: u32 = 8;

/// The kernels of a search module.
pub const KERNELS: [&str; 2] = ["ga_search_left", "ga_search_right"];

fn key_type(dtype: DType) -> Result<&'static str> {
    match dtype {
        DType::U32 => Ok("u32"),
        DType::U64 => Ok("u64"),
        other => Err(HipError::InvalidArgument(format!(
            "the search kernel takes u32 or u64 keys, not {other}"
        ))),
    }
}

/// Keys in the shared-memory sample for keys of `dtype`.
fn sample_len(dtype: DType) -> usize {
    SAMPLE_BYTES / dtype.size()
}

/// The module body for keys of `dtype` (u32 or u64).
pub fn body(dtype: DType) -> Result<String> {
    let k = key_type(dtype)?;
    let sample = sample_len(dtype);
    Ok(format!(
        r#"
typedef {k} GaKey;
#define GA_SAMPLE {sample}
// The number of keys of t[0..n) (n >= 1) that come before v: smaller (left) or not larger
// (right). Branch-free: the trip count depends on n alone, and t[0..n) is all it reads.
template <bool RIGHT>
GA_INLINE i64 ga_before(const GaKey* t, i64 n, const GaKey v) {{
  i64 base = 0;
  while (n > 1) {{
    const i64 half = n >> 1;
    const GaKey x = t[base + half];
    base = (RIGHT ? x <= v : x < v) ? base + half : base;
    n -= half;
  }}
  const GaKey x = t[base];
  return base + ((RIGHT ? x <= v : x < v) ? 1 : 0);
}}
template <bool RIGHT>
GA_INLINE void ga_search(const GaKey* __restrict__ table, const i64 n, const i64 step,
    const GaKey* __restrict__ values, i64* __restrict__ out, const i64 len) {{
  __shared__ GaKey sample[GA_SAMPLE];
  // sample[i] = table[i * step]: m keys, m <= GA_SAMPLE.
  const i64 m = (n + step - 1) / step;
  for (i64 i = threadIdx.x; i < m; i += blockDim.x) sample[i] = table[i * step];
  __syncthreads();
  for (i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += (i64)gridDim.x * blockDim.x) {{
    const GaKey v = values[j];
    const i64 c = ga_before<RIGHT>(sample, m, v);
    i64 at = c * step;
    if (step > 1 && c > 0) {{
      // table[(c - 1) * step] comes before v and table[c * step] (if any) does not: the
      // answer lies in ((c - 1) * step, min(c * step, n)].
      const i64 lo = (c - 1) * step + 1;
      const i64 hi = at < n ? at : n;
      at = lo < hi ? lo + ga_before<RIGHT>(table + lo, hi - lo, v) : lo;
    }}
    out[j] = at < n ? at : n;
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_search_left(const GaKey* __restrict__ table, const i64 n, const i64 step, const GaKey* __restrict__ values, i64* __restrict__ out, const i64 len) {{
  ga_search<false>(table, n, step, values, out, len);
}}
__global__ void __launch_bounds__({BLOCK}) ga_search_right(const GaKey* __restrict__ table, const i64 n, const i64 step, const GaKey* __restrict__ values, i64* __restrict__ out, const i64 len) {{
  ga_search<true>(table, n, step, values, out, len);
}}
"#
    ))
}

/// The module source for keys of `dtype`.
pub fn source(dev: &DeviceKernels, dtype: DType) -> Result<KernelSource> {
    Ok(dev.source(
        format!("ga_search[{}]", dtype.name()),
        &body(dtype)?,
        KERNELS.to_vec(),
    ))
}

/// Compiles (or finds) the module [`run`] launches for keys of `dtype`, without launching.
pub fn prepare(dev: &DeviceKernels, dtype: DType) -> Result<()> {
    dev.search
        .get(&dtype, dev.modules(), || source(dev, dtype))?;
    Ok(())
}

/// One search: `len` keys at `values` looked up in `table_len` keys at `table`, i64 answers
/// to `out` (offsets applied).
#[derive(Debug, Clone, Copy)]
pub struct SearchJob {
    pub dtype: DType,
    pub side: Side,
    pub table: DevicePtr,
    pub table_len: usize,
    pub values: DevicePtr,
    pub out: DevicePtr,
    pub len: usize,
}

/// Enqueues the search on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, job: &SearchJob) -> Result<()> {
    let module = dev
        .search
        .get(&job.dtype, dev.modules(), || source(dev, job.dtype))?;
    let name = match job.side {
        Side::Left => "ga_search_left",
        Side::Right => "ga_search_right",
    };
    let f = module.function(name)?;
    let step = job.table_len.div_ceil(sample_len(job.dtype)).max(1);
    let blocks = job.len.div_ceil(BLOCK as usize);
    let grid = blocks.clamp(1, (dev.sm_count() * BLOCKS_PER_SM) as usize) as u32;
    let mut a = KernelArgs::with_capacity(6);
    a.ptr(job.table)
        .i64(job.table_len as i64)
        .i64(step as i64)
        .ptr(job.values)
        .ptr(job.out)
        .i64(job.len as i64);
    // SAFETY: (table, n, step, values, out, len) is the parameter list of both search
    // kernels; the table holds `table_len` keys and the values and the output `len` each
    // (the backend checked the ranges), all live until the kernel ends (stream order). The
    // kernels read only positions below `n` (`step · (m - 1) < n` for `m = ⌈n / step⌉`).
    unsafe { dev.launch(f, [grid, 1, 1], [BLOCK, 1, 1], 0, stream, &mut a) }
}
