//! `find`: the ascending positions of the true bytes of a mask, by flag counting, a scan and
//! a scatter. Tiles of `BLOCK·ITEMS` mask bytes are counted (`ga_find_count`), the counts
//! are scanned with the i64 sum scan, the total is read back (it sizes the output), and each
//! tile writes its positions from its offset (`ga_find_scatter`: a warp-shuffle block scan
//! of the per-thread counts gives each thread its place, so positions stay in order).
//!
//! The scatter stages a tile's positions in shared memory (2-byte offsets in the tile, 8 KiB)
//! and then writes them with consecutive threads, so every warp store is 256 contiguous
//! bytes. Written directly by the threads that own them, a warp's 32 stores went to 32
//! different places; with half the mask true that is 1 GiB of scattered 8-byte stores at
//! 1 GiB of mask, which held findall at 0.44× PyTorch on the H200 (2026-12-01).
//!
//! Each thread owns 16 consecutive mask bytes of its tile. With the mask 16-byte aligned
//! (which is the usual case), `ga_find_count_vec` and
//! `ga_find_scatter_vec` read them as one 16-byte vector (a warp moves 512 contiguous bytes
//! per instruction) and count a word's non-zero bytes with a mask and a popcount; the byte
//! kernels issue 16 one-byte loads per thread, which kept 1 GiB findall at 0.46× PyTorch on
//! the H200 (2026-12-01, docs/results/hip-scan-sort.md), so they remain only for masks that are not 16-byte aligned. A thread
//! whose bytes cross the end of the mask takes the byte path.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ReduceOp, ScanOp};

use super::KernelSource;
use super::args::KernelArgs;
use super::cpp::combine::{self, LIBRARY};
use super::device_kernels::DeviceKernels;
use super::scan::{self, ScanLaunch};
use crate::device::DeviceBuffer;
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::Stream;

const BLOCK: u32 = 256;
const ITEMS: usize = 16;
const TILE: usize = BLOCK as usize * ITEMS;

/// The kernels of the find module.
pub const KERNELS: [&str; 4] = [
    "ga_find_count",
    "ga_find_scatter",
    "ga_find_count_vec",
    "ga_find_scatter_vec",
];

/// The module body (everything after the kernel header).
pub fn body() -> Result<String> {
    let c = combine::reduction(ReduceOp::Sum, DType::I64)?;
    Ok(format!(
        r#"{defs}{LIBRARY}
#define GA_ITEMS {ITEMS}
#define GA_FIND_TILE ({BLOCK} * GA_ITEMS)
// A tile's positions, staged in shared memory as offsets in the tile by the threads that own
// them, written out by consecutive threads: each warp store is 32 consecutive i64 (256 bytes)
// where direct stores from the owning threads scatter one warp store over up to 32 segments.
GA_INLINE void ga_find_write_staged(const unsigned short* staged, i64* out, const i64 tile_first, const int total) {{
  __syncthreads();
  for (int k = threadIdx.x; k < total; k += {BLOCK}) out[k] = tile_first + (i64)staged[k];
  __syncthreads();
}}
__global__ void __launch_bounds__({BLOCK}) ga_find_count(const u8* __restrict__ mask, i64* counts, const i64 len) {{
  const i64 tiles = (len + GA_FIND_TILE - 1) / GA_FIND_TILE;
  for (i64 b = blockIdx.x; b < tiles; b += gridDim.x) {{
    const i64 first = b * GA_FIND_TILE + (i64)threadIdx.x * GA_ITEMS;
    i64 c = 0;
#pragma unroll
    for (int j = 0; j < GA_ITEMS; ++j) c += (first + j < len && mask[first + j] != 0) ? 1 : 0;
    c = ga_block_reduce(c);
    if (threadIdx.x == 0) counts[b] = c;
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_find_scatter(const u8* __restrict__ mask, const i64* __restrict__ scanned, i64* out, const i64 len) {{
  __shared__ unsigned short staged[GA_FIND_TILE];
  const i64 tiles = (len + GA_FIND_TILE - 1) / GA_FIND_TILE;
  for (i64 b = blockIdx.x; b < tiles; b += gridDim.x) {{
    const int mine = threadIdx.x * GA_ITEMS;
    const i64 first = b * GA_FIND_TILE + mine;
    bool flag[GA_ITEMS];
    i64 c = 0;
#pragma unroll
    for (int j = 0; j < GA_ITEMS; ++j) {{
      flag[j] = first + j < len && mask[first + j] != 0;
      c += flag[j] ? 1 : 0;
    }}
    i64 total;
    int at = (int)ga_block_exclusive_scan(c, &total);
#pragma unroll
    for (int j = 0; j < GA_ITEMS; ++j) {{
      if (flag[j]) staged[at++] = (unsigned short)(mine + j);
    }}
    ga_find_write_staged(staged, out + (b > 0 ? scanned[b - 1] : 0), b * GA_FIND_TILE, (int)total);
  }}
}}
// 16-byte reads of a thread's mask bytes (mask 16-byte aligned): the bytes as 4 words.
struct alignas(16) GaMask16 {{ u32 w[4]; }};
// Non-zero bytes of a word: bit 7 of each byte of ((w & 0x7F..) + 0x7F..) | w is set iff the
// byte is non-zero.
GA_INLINE u32 ga_nonzero_bits(const u32 w) {{ return (((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | w) & 0x80808080u; }}
GA_INLINE int ga_mask16_count(const u8* __restrict__ mask, const i64 first, const i64 len, u32 (&nz)[4]) {{
  if (first + GA_ITEMS <= len) {{
    const GaMask16 q = *reinterpret_cast<const GaMask16*>(mask + first);
    int c = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {{ nz[i] = ga_nonzero_bits(q.w[i]); c += __popc(nz[i]); }}
    return c;
  }}
  int c = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {{
    nz[i] = 0u;
#pragma unroll
    for (int j = 0; j < 4; ++j) {{
      if (first + 4 * i + j < len && mask[first + 4 * i + j] != 0) {{ nz[i] |= 0x80u << (8 * j); ++c; }}
    }}
  }}
  return c;
}}
__global__ void __launch_bounds__({BLOCK}) ga_find_count_vec(const u8* __restrict__ mask, i64* counts, const i64 len) {{
  const i64 tiles = (len + GA_FIND_TILE - 1) / GA_FIND_TILE;
  for (i64 b = blockIdx.x; b < tiles; b += gridDim.x) {{
    const i64 first = b * GA_FIND_TILE + (i64)threadIdx.x * GA_ITEMS;
    u32 nz[4];
    i64 c = first < len ? ga_mask16_count(mask, first, len, nz) : 0;
    c = ga_block_reduce(c);
    if (threadIdx.x == 0) counts[b] = c;
  }}
}}
__global__ void __launch_bounds__({BLOCK}) ga_find_scatter_vec(const u8* __restrict__ mask, const i64* __restrict__ scanned, i64* out, const i64 len) {{
  __shared__ unsigned short staged[GA_FIND_TILE];
  const i64 tiles = (len + GA_FIND_TILE - 1) / GA_FIND_TILE;
  for (i64 b = blockIdx.x; b < tiles; b += gridDim.x) {{
    const int mine = threadIdx.x * GA_ITEMS;
    const i64 first = b * GA_FIND_TILE + mine;
    u32 nz[4] = {{0u, 0u, 0u, 0u}};
    const i64 c = first < len ? ga_mask16_count(mask, first, len, nz) : 0;
    i64 total;
    int at = (int)ga_block_exclusive_scan(c, &total);
#pragma unroll
    for (int i = 0; i < 4; ++i) {{
      u32 bits = nz[i];
      while (bits != 0u) {{
        staged[at++] = (unsigned short)(mine + 4 * i + ((__ffs((int)bits) - 1) >> 3));
        bits &= bits - 1u;
      }}
    }}
    ga_find_write_staged(staged, out + (b > 0 ? scanned[b - 1] : 0), b * GA_FIND_TILE, (int)total);
  }}
}}
"#,
        defs = c.definitions
    ))
}

/// The module source.
pub fn source(dev: &DeviceKernels) -> Result<KernelSource> {
    Ok(dev.source("ga_find".into(), &body()?, KERNELS.to_vec()))
}

/// Finds the true positions of `len` mask bytes at `mask` (offset applied): a new buffer of
/// ascending i64 positions, and their count. Blocks until the count is known.
pub fn run(
    dev: &DeviceKernels,
    stream: &Stream,
    mask: DevicePtr,
    len: usize,
) -> Result<(DeviceBuffer, usize)> {
    let module = dev.find.get(&(), dev.modules(), || source(dev))?;
    launch(dev, stream, module, mask, len)
}

/// Compiles (or finds) the kernels [`run`] launches, without launching: the ordering protocol calls it before it locks the operands (a compilation must not
/// hold them). With no stream, nothing can be enqueued.
pub fn prepare(dev: &DeviceKernels) -> Result<()> {
    dev.find.get(&(), dev.modules(), || source(dev))?;
    scan::prepare(dev, &count_scan(DevicePtr(0), DevicePtr(0), 1))
}

/// The scan of the per-tile counts.
fn count_scan(counts: DevicePtr, scanned: DevicePtr, tiles: usize) -> ScanLaunch {
    ScanLaunch {
        op: ScanOp::Sum,
        dtype: DType::I64,
        input: counts,
        output: scanned,
        outer: 1,
        len: tiles,
        inner: 1,
    }
}

fn launch(
    dev: &DeviceKernels,
    stream: &Stream,
    module: std::sync::Arc<super::cache::Module>,
    mask: DevicePtr,
    len: usize,
) -> Result<(DeviceBuffer, usize)> {
    let tiles = len.div_ceil(TILE).max(1);
    let grid = tiles.clamp(1, i32::MAX as usize) as u32;
    let counts = dev.scratch(tiles * 8, stream)?;
    let scanned = dev.scratch(tiles * 8, stream)?;
    let mut a = KernelArgs::with_capacity(3);
    a.ptr(mask).ptr(counts.ptr()).i64(len as i64);
    let vec = mask.0 % 16 == 0;
    let (count, scatter) = if vec {
        ("ga_find_count_vec", "ga_find_scatter_vec")
    } else {
        ("ga_find_count", "ga_find_scatter")
    };
    let f = module.function(count)?;
    // SAFETY: (mask, counts, len) is the parameter list of both count kernels; the mask covers `len`
    // bytes (caller's contract) and `counts` one i64 per tile; both outlive the kernel.
    unsafe { dev.launch(f, [grid, 1, 1], [BLOCK, 1, 1], 0, stream, &mut a)? };
    scan::run(dev, stream, &count_scan(counts.ptr(), scanned.ptr(), tiles))?;
    let total = dev.read_u64(scanned.ptr().offset((tiles - 1) * 8), stream)? as usize;
    let out = dev.scratch(total * 8, stream)?;
    if total > 0 {
        let mut a = KernelArgs::with_capacity(4);
        a.ptr(mask)
            .ptr(scanned.ptr())
            .ptr(out.ptr())
            .i64(len as i64);
        let f = module.function(scatter)?;
        // SAFETY: (mask, scanned, out, len) is the parameter list of both scatter kernels; `out` holds
        // `total` positions, exactly the number of true bytes the scan counted.
        unsafe { dev.launch(f, [grid, 1, 1], [BLOCK, 1, 1], 0, stream, &mut a)? };
    }
    Ok((out, total))
}
