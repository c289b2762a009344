//! Host side of the radix sort ([`super::radix_codegen`]): work splits, scratch layout and the
//! launch sequence.

use super::radix_codegen::{
    HIST_BLOCK, HIST_RUN, PASS_BLOCK, RADIX_BITS, ROWS_BLOCK, key_bits, passes, tile,
};
use crate::error::{HipError, Result};
use crate::kernels::args::KernelArgs;
use crate::kernels::cache::Module;
use crate::kernels::device_kernels::DeviceKernels;
use crate::platform::DevicePtr;
use crate::stream::Stream;

use super::SortJob;

/// Digits per pass.
const RADIX: usize = 1 << RADIX_BITS;
/// Histogram blocks per multiprocessor (each ends with one global atomic per nonzero count).
const HIST_BLOCKS_PER_SM: usize = 4;
/// Largest span one histogram block counts (its shared counters are 32-bit).
const HIST_CHUNK_MAX: usize = 1 << 30;

fn launch(
    dev: &DeviceKernels,
    stream: &Stream,
    module: &Module,
    name: &str,
    grid: usize,
    block: u32,
    args: &mut KernelArgs,
) -> Result<()> {
    let f = module.function(name)?;
    let grid = grid.clamp(1, i32::MAX as usize) as u32;
    // SAFETY: every caller passes the named kernel's parameter list in radix_codegen's order;
    // the data pointer covers rows·len elements (the caller's contract) and every scratch
    // buffer the sizes computed here, all alive until the kernels ran (stream order).
    unsafe { dev.launch(f, [grid, 1, 1], [block, 1, 1], 0, stream, args) }
}

/// Rows that fit one block (`len <= rows_max`): one launch, one block per row, its digit
/// passes from `skip` on (the digits below are already in order: see
/// [`SortJob`]).
pub fn rows(
    dev: &DeviceKernels,
    stream: &Stream,
    module: &Module,
    data: DevicePtr,
    rows: usize,
    len: usize,
    skip: u32,
) -> Result<()> {
    let mut a = KernelArgs::with_capacity(4);
    a.ptr(data)
        .i64(rows as i64)
        .i64(len as i64)
        .i32(skip as i32);
    launch(
        dev,
        stream,
        module,
        "ga_radix_rows",
        rows,
        ROWS_BLOCK,
        &mut a,
    )
}

/// How the histogram (and fill) kernels split the rows: `bpr` blocks per row, each counting a
/// `chunk` of it.
fn hist_split(dev: &DeviceKernels, rows: usize, len: usize) -> (usize, usize) {
    let target = dev.sm_count() as usize * HIST_BLOCKS_PER_SM;
    let per_block_min = HIST_BLOCK as usize * HIST_RUN;
    let mut bpr = if rows >= target {
        1
    } else {
        target
            .div_ceil(rows)
            .min(len.div_ceil(per_block_min))
            .max(1)
    };
    bpr = bpr.max(len.div_ceil(HIST_CHUNK_MAX));
    let chunk = len.div_ceil(bpr).next_multiple_of(HIST_RUN);
    (len.div_ceil(chunk), chunk)
}

/// The onesweep sort of any row length (see the module docs of [`super::radix_codegen`]),
/// its digit passes from `skip` on (rounded down to even: the passes alternate between the
/// caller's buffer and one scratch buffer, and must end in the caller's). With
/// `job.positions`, the last pass writes the low 32 bits of the sorted keys there as i64
/// instead of the keys to the caller's buffer (whose contents are then unspecified).
pub fn onesweep(
    dev: &DeviceKernels,
    stream: &Stream,
    module: &Module,
    job: &SortJob,
    skip: u32,
) -> Result<()> {
    let SortJob {
        dtype,
        data,
        rows,
        len,
        positions,
        ..
    } = *job;
    let passes = passes(dtype) as usize;
    let skip = if passes > 1 { skip as usize & !1 } else { 0 };
    let tpr = len.div_ceil(tile(dtype));
    let tiles = rows * tpr;
    if tiles > i32::MAX as usize {
        return Err(HipError::InvalidArgument(format!(
            "sort of {rows} rows of {len} elements: {tiles} tiles exceed one launch"
        )));
    }
    let hist_bytes = rows * passes * RADIX * 8;
    let status_bytes = if passes > 1 { tiles * RADIX * 8 } else { 0 };
    let counter_bytes = passes * 8;
    let meta_bytes = hist_bytes + status_bytes + counter_bytes;
    let meta = dev.scratch(meta_bytes, stream)?;
    let hist = meta.ptr();
    let status = hist.offset(hist_bytes);
    let counters = status.offset(status_bytes);
    // SAFETY: `meta` is `meta_bytes` long and alive until the kernels below ran (stream order).
    unsafe {
        dev.platform()
            .memset_async(hist, 0, meta_bytes, stream.handle())?;
    }
    let (bpr, chunk) = hist_split(dev, rows, len);
    let (rows_i, len_i) = (rows as i64, len as i64);
    let mut a = KernelArgs::with_capacity(7);
    a.ptr(data)
        .ptr(hist)
        .i64(rows_i)
        .i64(len_i)
        .i64(bpr as i64)
        .i64(chunk as i64)
        .i32(skip as i32);
    launch(
        dev,
        stream,
        module,
        "ga_radix_hist",
        rows * bpr,
        HIST_BLOCK,
        &mut a,
    )?;
    if passes == 1 {
        let mut a = KernelArgs::with_capacity(6);
        a.ptr(data)
            .ptr(hist)
            .i64(rows_i)
            .i64(len_i)
            .i64(bpr as i64)
            .i64(chunk as i64);
        return launch(
            dev,
            stream,
            module,
            "ga_radix_fill",
            rows * bpr,
            HIST_BLOCK,
            &mut a,
        );
    }
    // Keys alternate between `keys` and the caller's buffer (same byte size: keys of a
    // several-pass type are as wide as its values): pass p reads values (the first) or keys
    // from `data` (p - skip even) or `keys` (odd), and writes keys to `keys` (even) or `data`
    // (odd), values in the last pass (odd: every several-pass type has an even number of
    // passes, and `skip` is even).
    debug_assert!(passes % 2 == 0 && key_bits(dtype) as usize / 8 == dtype.size());
    let keys = dev.scratch(rows * len * dtype.size(), stream)?;
    for p in skip..passes {
        let (first, last) = (p == skip, p + 1 == passes);
        let (src, dst) = if (p - skip) % 2 == 0 {
            (data, keys.ptr())
        } else {
            (keys.ptr(), data)
        };
        let to_positions = positions.filter(|_| last);
        let mut a = KernelArgs::with_capacity(14);
        a.ptr(if first { src } else { DevicePtr(0) })
            .ptr(if first { DevicePtr(0) } else { src })
            .ptr(if last && to_positions.is_none() {
                dst
            } else {
                DevicePtr(0)
            })
            .ptr(if last { DevicePtr(0) } else { dst })
            .ptr(to_positions.unwrap_or(DevicePtr(0)))
            .ptr(hist)
            .ptr(status)
            .ptr(counters)
            .i64(rows_i)
            .i64(len_i)
            .i64(tpr as i64)
            .i32(p as i32)
            .i32(first as i32)
            .i32(last as i32);
        launch(
            dev,
            stream,
            module,
            "ga_radix_pass",
            tiles,
            PASS_BLOCK,
            &mut a,
        )?;
    }
    Ok(())
}
