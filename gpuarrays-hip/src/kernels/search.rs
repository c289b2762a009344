//! `search_sorted`: insertion points of u32 or u64 keys in an ascending table of keys, by
//! binary search (core turns every ordered type into these keys).
//!
//! A sample of the table — every `step`-th key, 32 KiB at most (8,192 u32 or 4,096 u64
//! keys) — is gathered side by side once (`ga_search_pick`); each block of a persistent grid
//! copies it into shared memory and bisects it there. A table that fits is the sample and
//! is searched in shared memory only. In the
//! table's bucket between two sampled keys it bisects the heads of 32-byte chunks, then
//! counts the keys of one chunk read with two 16-byte loads. For the benchmark's 65,536
//! u32 keys that is one chunk per value: two global loads.
//!
//! Why: the global loads of a warp's 32 searches go to 32 different sectors, and the cost
//! is the number of such loads. With an 8 KiB sample and a global bisection of the 32-key
//! buckets (6 loads per value) `searchsorted` of 2^26 values ran at 0.90× PyTorch on the
//! H100, about the L1 throughput of 6 × 32 sectors per warp and value; with the 32 KiB
//! sample and chunks, 1.14×. What then bounds it is instructions (~13 dependent
//! bisection steps per value): positions are 32-bit wherever the table allows.
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

const BLOCK: u32 = 512;
/// Bytes of shared memory the sample of the table takes.
const SAMPLE_BYTES: usize = 32 << 10;
/// Bytes of a chunk: the keys the last step reads with two 16-byte loads.
const CHUNK_BYTES: usize = 32;
/// Blocks per multiprocessor of the persistent grid (32 KiB of shared memory each).
const BLOCKS_PER_SM: u32 = 4;

/// The kernels of a search module.
pub const KERNELS: [&str; 5] = [
    "ga_search_pick",
    "ga_search_left",
    "ga_search_right",
    "ga_search_left_wide",
    "ga_search_right_wide",
];

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

/// Keys per chunk for keys of `dtype`.
fn chunk_len(dtype: DType) -> usize {
    CHUNK_BYTES / dtype.size()
}

/// The distance between sampled keys for a table of `n` keys: 1 (the whole table in shared
/// memory) when it fits the sample, else a multiple of the chunk, so that chunks measured
/// from a sampled key start 32-byte aligned in an aligned table.
pub fn sample_step(dtype: DType, n: usize) -> usize {
    let step = n.div_ceil(sample_len(dtype)).max(1);
    if step == 1 {
        1
    } else {
        step.next_multiple_of(chunk_len(dtype))
    }
}

/// The module body for keys of `dtype` (u32 or u64).
pub fn body(dtype: DType) -> Result<String> {
    let k = key_type(dtype)?;
    let sample = sample_len(dtype);
    let chunk = chunk_len(dtype);
    // The keys of a chunk from its two 16-byte loads.
    let unpack = match dtype {
        DType::U32 => {
            "const GaKey key[8] = {q[0].w[0], q[0].w[1], q[0].w[2], q[0].w[3], \
                       q[1].w[0], q[1].w[1], q[1].w[2], q[1].w[3]};"
        }
        _ => {
            "const GaKey key[4] = {q[0].w[0] | ((u64)q[0].w[1] << 32), q[0].w[2] | ((u64)q[0].w[3] << 32), \
              q[1].w[0] | ((u64)q[1].w[1] << 32), q[1].w[2] | ((u64)q[1].w[3] << 32)};"
        }
    };
    let wrappers: String = [
        ("ga_search_left", "false", "int"),
        ("ga_search_right", "true", "int"),
        ("ga_search_left_wide", "false", "i64"),
        ("ga_search_right_wide", "true", "i64"),
    ]
    .iter()
    .map(|(name, right, i)| {
        format!(
            "__global__ void __launch_bounds__({BLOCK}) {name}(const GaKey* __restrict__ table, \
             const i64 n, const i64 step, const int aligned, const GaKey* __restrict__ picked, \
             const GaKey* __restrict__ values, i64* __restrict__ out, const i64 len) {{\n  \
             ga_search<{right}, {i}>(table, ({i})n, ({i})step, aligned, picked, values, out, len);\n}}\n"
        )
    })
    .collect();
    Ok(format!(
        r#"
typedef {k} GaKey;
#define GA_SAMPLE {sample}
#define GA_CHUNK {chunk}
// 16 bytes of keys, one load.
struct alignas(16) GaQuad {{ u32 w[4]; }};
template <bool RIGHT>
GA_INLINE int ga_is_before(const GaKey x, const GaKey v) {{ return (RIGHT ? x <= v : x < v) ? 1 : 0; }}
// The number of keys t[0], t[S], ..., t[(n - 1) S] (n >= 1) that come before v: smaller
// (left) or not larger (right). Branch-free: the trip count depends on n alone, and those
// n keys are all it reads. I: the index type (int where the table allows: half the
// instructions of i64 arithmetic, and the search is bound by instructions).
template <bool RIGHT, int S, typename I>
GA_INLINE I ga_before(const GaKey* t, I n, const GaKey v) {{
  I base = 0;
  while (n > 1) {{
    const I half = n >> 1;
    base = ga_is_before<RIGHT>(t[(base + half) * S], v) ? base + half : base;
    n -= half;
  }}
  return base + ga_is_before<RIGHT>(t[base * S], v);
}}
// The keys of t[h .. min(h + GA_CHUNK, end)) that come before v: one 32-byte chunk by two
// 16-byte loads when it is whole and the table aligned, else key by key.
template <bool RIGHT, typename I>
GA_INLINE I ga_chunk_before(const GaKey* t, const I h, const I end, const GaKey v, const int aligned) {{
  I c = 0;
  if (aligned && h + GA_CHUNK <= end) {{
    const GaQuad* p = reinterpret_cast<const GaQuad*>(t + h);
    const GaQuad q[2] = {{p[0], p[1]}};
    {unpack}
#pragma unroll
    for (int i = 0; i < GA_CHUNK; ++i) c += ga_is_before<RIGHT>(key[i], v);
  }} else {{
    for (I i = h; i < end && i < h + GA_CHUNK; ++i) c += ga_is_before<RIGHT>(t[i], v);
  }}
  return c;
}}
template <bool RIGHT, typename I>
GA_INLINE void ga_search(const GaKey* __restrict__ table, const I n, const I step,
    const int aligned, const GaKey* __restrict__ picked, const GaKey* __restrict__ values,
    i64* __restrict__ out, const i64 len) {{
  __shared__ GaKey sample[GA_SAMPLE];
  // sample[i] = table[i * step] (m keys, m <= GA_SAMPLE), copied from `picked`.
  const int m = (int)((n + step - 1) / step);
  for (int i = threadIdx.x; i < m; i += blockDim.x) sample[i] = picked[i];
  __syncthreads();
  for (i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += (i64)gridDim.x * blockDim.x) {{
    const GaKey v = values[j];
    const I c = ga_before<RIGHT, 1, int>(sample, m, v);
    I at = c;
    if (step > 1) {{
      at = 0;
      if (c > 0) {{
        // table[b0] comes before v and table[b0 + step] (if any) does not. Bisect the heads
        // of the bucket's chunks after the first, then count in the chunk found.
        const I b0 = (c - 1) * step;
        const I end = b0 + step < n ? b0 + step : n;
        const I chunks = (end - b0 + GA_CHUNK - 1) / GA_CHUNK;
        const I k = chunks > 1 ? ga_before<RIGHT, GA_CHUNK, I>(table + b0 + GA_CHUNK, chunks - 1, v) : 0;
        const I h = b0 + k * GA_CHUNK;
        at = h + ga_chunk_before<RIGHT, I>(table, h, end, v, aligned);
      }}
    }}
    out[j] = (i64)at;
  }}
}}
// picked[i] = table[i * step] for i < m, once per search: each block then copies m
// consecutive keys instead of m keys from m different sectors of the table.
__global__ void __launch_bounds__({BLOCK}) ga_search_pick(const GaKey* __restrict__ table, const i64 step, const i64 m, GaKey* __restrict__ picked) {{
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) picked[i] = table[i * step];
}}
{wrappers}"#
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
    let step = sample_step(job.dtype, job.table_len);
    // 32-bit positions unless a bucket's end could pass i32::MAX.
    let narrow = job.table_len + 2 * step < i32::MAX as usize;
    let name = match (job.side, narrow) {
        (Side::Left, true) => "ga_search_left",
        (Side::Right, true) => "ga_search_right",
        (Side::Left, false) => "ga_search_left_wide",
        (Side::Right, false) => "ga_search_right_wide",
    };
    let f = module.function(name)?;
    let m = job.table_len.div_ceil(step);
    // The sampled keys side by side (the table itself when every key is sampled).
    let picked_buf = match step {
        1 => None,
        _ => Some(dev.scratch(m * job.dtype.size(), stream)?),
    };
    let picked = picked_buf.as_ref().map_or(job.table, |b| b.ptr());
    if step > 1 {
        let mut a = KernelArgs::with_capacity(4);
        a.ptr(job.table).i64(step as i64).i64(m as i64).ptr(picked);
        let blocks = m.div_ceil(BLOCK as usize) as u32;
        // SAFETY: (table, step, m, picked) is ga_search_pick's parameter list; it reads
        // table[i · step] for i < m (below `table_len`) and writes the m keys `picked` holds;
        // both live until the kernel ends (the scratch buffer is freed in stream order).
        unsafe {
            dev.launch(
                module.function("ga_search_pick")?,
                [blocks, 1, 1],
                [BLOCK, 1, 1],
                0,
                stream,
                &mut a,
            )?
        };
    }
    // A block per BLOCK values up to a full device: the search is bound by instructions, so
    // the small searches need every multiprocessor (with a quarter of them, 2^19 values took
    // 29 µs on the H100); each block's copy of the sample is 16 keys per thread.
    let blocks = job.len.div_ceil(BLOCK as usize);
    let grid = blocks.clamp(1, (dev.sm_count() * BLOCKS_PER_SM) as usize) as u32;
    let mut a = KernelArgs::with_capacity(8);
    a.ptr(job.table)
        .i64(job.table_len as i64)
        .i64(step as i64)
        .i32(i32::from(job.table.0 % 16 == 0))
        .ptr(picked)
        .ptr(job.values)
        .ptr(job.out)
        .i64(job.len as i64);
    // SAFETY: (table, n, step, aligned, picked, values, out, len) is the parameter list of
    // both search kernels (`picked` holds the m sampled keys, written above in stream order); the table holds `table_len` keys and the values and the output `len`
    // each (the backend checked the ranges), all live until the kernel ends (stream order).
    // The kernels read only positions below `n` (`step · (m - 1) < n` for `m = ⌈n / step⌉`,
    // chunks cut at `n`), and 16-byte loads only where `aligned` says the table allows.
    unsafe { dev.launch(f, [grid, 1, 1], [BLOCK, 1, 1], 0, stream, &mut a) }
}
