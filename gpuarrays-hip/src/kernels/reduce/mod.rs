//! Reductions over the middle axis of an (outer, len, inner) view: the host side picks a
//! kernel of [`codegen`] and its work split from the sizes (see the table there).

pub mod codegen;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ReduceOp;

use self::codegen::{BLOCK, KERNELS, ROWS_BLOCK, vec_width};
use super::KernelSource;
use super::args::KernelArgs;
use super::cpp::combine;
use super::device_kernels::DeviceKernels;
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::Stream;

/// One reduction launch: `output[o·inner + i] = reduce_k input[o·len·inner + k·inner + i]`.
#[derive(Debug, Clone, Copy)]
pub struct ReduceLaunch {
    pub op: ReduceOp,
    pub dtype: DType,
    /// Address of the first input element (offset applied).
    pub input: DevicePtr,
    /// Address of the first output element (offset applied).
    pub output: DevicePtr,
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

/// Rows at most this long get one thread each.
const THREAD_ROW_MAX: usize = 8;
/// Rows shorter than this get one warp each.
const WARP_ROW_MAX: usize = 1024;
/// Blocks per multiprocessor a split reduction aims for. 132×8 was measured best for the
/// f32 sum in the first kernel study; with the kernels of 2026-12-02, 16 beat 8 in three
/// alternated runs on the H200, on the full 1 GiB sums: f32 243.3–244.4 µs against
/// 247.6–249.3 µs, Int64 249.2–250.6 against 253.8–256.3 µs (PyTorch's Int64 sum
/// 250.8–251.5 µs), 4 / 6 / 12 in between (docs/results/hip-elementwise-reduce.md). Only
/// reductions of fewer rows than the target whose rows are long see the difference: a block
/// gets at least `min_per_block` (64 KiB of input), so a single row under 66 MiB
/// (132 × 8 × 64 KiB) launches the same grid as with 8.
const BLOCKS_PER_SM: usize = 16;
/// The same for argmin/argmax, whose 16-byte accumulators leave fewer blocks resident: more,
/// smaller blocks keep the last wave's idle tail short (not yet measured against 8).
const ARG_BLOCKS_PER_SM: usize = 32;
/// Threads per multiprocessor a column reduction aims for (enough loads in flight).
const COL_THREADS_PER_SM: usize = 2048;
/// Blocks per multiprocessor `ga_cols_slices` aims for: about two waves at the 6–8 blocks
/// of 256 threads that fit (`ga_cols` launched 1048 blocks for 8192² f32, 1.3 waves at its
/// 6 resident blocks per multiprocessor). Measured on the H200 (8 / 16 / 32 / 64), speed vs
/// PyTorch of the sum along axis 0 of 8192² f32: 1.05 / 1.00 / 0.96 / 0.86×, and of 1 GiB
/// (16384²): 0.99 / 1.03 / 1.00 / 0.98× (docs/results/hip-scan-sort.md).
const COL_SLICE_BLOCKS_PER_SM: usize = 16;
/// Rows per batch of loads in `ga_cols_slices` (`GA_COL_BATCH` in [`codegen`]).
const COL_BATCH: usize = 4;

// Which kernels run where two compute the same results is the device's kernel policy
// (`crate::runtime::KernelPolicy`): strided axes by `ga_cols_slices` (blocks of 32 column
// groups × warps over interleaved rows, 4 loads in flight per thread, ~2 waves of blocks) or
// `ga_cols` (one thread per column group and split, sequential over its split: Nsight Compute
// measured it latency-bound at 56 % of DRAM bandwidth on 8192² f32, 2026-12-01); argmin and
// argmax of long rows by `ga_rows_block_vec_best` (a per-thread first best with two compares
// per element) or `ga_rows_block_vec` (every element into a (value, index) accumulator, the
// kernel before 2026-12-02); split reductions' partials combined in the same launch or, as
// the kernels before did, in a second one.
pub use crate::runtime::policy::{
    ARG_REDUCE_ENV, ArgReduce, ColReduce, REDUCE_COLS_ENV, REDUCE_ENV, SplitReduce,
};

/// Scratch for the partials of a split reduction and, unless two-pass, one zeroed counter per
/// output group (`counters`), ordered on `stream`.
fn partials(
    dev: &DeviceKernels,
    stream: &Stream,
    partial_bytes: usize,
    counters: usize,
) -> Result<(crate::device::DeviceBuffer, DevicePtr, DevicePtr)> {
    let fused = dev.policy().split_reduce == SplitReduce::OneLaunch;
    let counter_bytes = if fused {
        (counters * 4).next_multiple_of(16)
    } else {
        0
    };
    let buf = dev.scratch(counter_bytes + partial_bytes, stream)?;
    let counter = if fused {
        // SAFETY: the counters are the first `counter_bytes` bytes of `buf`, alive until the
        // kernel ran (stream order).
        unsafe {
            dev.platform()
                .memset_async(buf.ptr(), 0, counter_bytes, stream.handle())?;
        }
        buf.ptr()
    } else {
        DevicePtr(0)
    };
    let partial = buf.ptr().offset(counter_bytes);
    Ok((buf, partial, counter))
}

/// The module source for (op, dtype).
pub fn source(dev: &DeviceKernels, op: ReduceOp, dtype: DType) -> Result<KernelSource> {
    let c = combine::reduction(op, dtype)?;
    Ok(dev.source(
        format!("ga_reduce[{}, {}]", op.name(), dtype.name()),
        &codegen::body(dtype, op, &c),
        KERNELS.to_vec(),
    ))
}

fn grid(items: usize, block: u32) -> u32 {
    items.div_ceil(block as usize).clamp(1, i32::MAX as usize) as u32
}

/// Runs one reduction on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, r: &ReduceLaunch) -> Result<()> {
    run_on(dev, Some(stream), r)
}

/// Compiles (or finds) the kernels [`run`] launches, without launching: the ordering protocol calls it before it locks the operands (a compilation must not
/// hold them). With no stream, nothing can be enqueued.
pub fn prepare(dev: &DeviceKernels, r: &ReduceLaunch) -> Result<()> {
    run_on(dev, None, r)
}

/// [`run`] on `stream`, or [`prepare`] when there is none: everything up to the launch.
fn run_on(dev: &DeviceKernels, stream: Option<&Stream>, r: &ReduceLaunch) -> Result<()> {
    if r.outer * r.inner == 0 || r.len == 0 {
        return Ok(());
    }
    let module = dev.reduce.get(&(r.op, r.dtype), dev.modules(), || {
        source(dev, r.op, r.dtype)
    })?;
    let Some(stream) = stream else {
        return Ok(());
    };
    let launch = |name: &str, blocks: u32, threads: u32, args: &mut KernelArgs| -> Result<()> {
        let f = module.function(name)?;
        // SAFETY: every call below passes the parameter list of the named kernel in
        // codegen (pointers, then i64 sizes); input and output cover outer·len·inner and
        // outer·inner elements (the caller's contract), and scratch buffers are sized for
        // the partials the kernel writes and live until the kernels ran (stream order).
        unsafe { dev.launch(f, [blocks, 1, 1], [threads, 1, 1], 0, stream, args) }
    };
    let (outer, len, inner) = (r.outer, r.len, r.inner);
    let size = r.dtype.size();
    let sms = dev.sm_count() as usize;
    if inner == 1 {
        if len <= THREAD_ROW_MAX {
            let mut a = KernelArgs::with_capacity(4);
            a.ptr(r.input)
                .ptr(r.output)
                .i64(outer as i64)
                .i64(len as i64);
            return launch("ga_rows_thread", grid(outer, BLOCK), BLOCK, &mut a);
        }
        if len < WARP_ROW_MAX {
            let warps_per_block = (BLOCK / dev.warp_size()).max(1) as usize;
            let mut a = KernelArgs::with_capacity(4);
            a.ptr(r.input)
                .ptr(r.output)
                .i64(outer as i64)
                .i64(len as i64);
            let blocks = outer.div_ceil(warps_per_block).clamp(1, i32::MAX as usize) as u32;
            return launch("ga_rows_warp", blocks, BLOCK, &mut a);
        }
        let v = vec_width(r.dtype) as usize;
        let vec = v > 1 && r.input.0 % 16 == 0 && (len * size) % 16 == 0;
        let step = if vec { v } else { 1 };
        let target = sms
            * match r.op {
                ReduceOp::ArgMin | ReduceOp::ArgMax => ARG_BLOCKS_PER_SM,
                _ => BLOCKS_PER_SM,
            };
        let min_per_block = ROWS_BLOCK as usize * step * 8;
        let mut bpr = if outer >= target {
            1
        } else {
            target.div_ceil(outer).min((len / min_per_block).max(1))
        };
        let chunk = len.div_ceil(bpr).next_multiple_of(step);
        bpr = len.div_ceil(chunk);
        let scratch = if bpr > 1 {
            Some(partials(
                dev,
                stream,
                outer * bpr * combine::acc_bytes(r.op, r.dtype),
                outer,
            )?)
        } else {
            None
        };
        let (pptr, cptr) = scratch
            .as_ref()
            .map_or((DevicePtr(0), DevicePtr(0)), |s| (s.1, s.2));
        let mut a = KernelArgs::with_capacity(8);
        a.ptr(r.input).ptr(r.output).ptr(pptr).ptr(cptr);
        a.i64(outer as i64)
            .i64(len as i64)
            .i64(bpr as i64)
            .i64(chunk as i64);
        let blocks = (outer * bpr).clamp(1, i32::MAX as usize) as u32;
        let arg = matches!(r.op, ReduceOp::ArgMin | ReduceOp::ArgMax);
        // The per-thread best keeps 32-bit offsets within a block's chunk.
        let best =
            arg && chunk < u32::MAX as usize && dev.policy().arg_reduce == ArgReduce::PerThreadBest;
        let name = match (vec, best) {
            (true, true) => "ga_rows_block_vec_best",
            (true, false) => "ga_rows_block_vec",
            _ => "ga_rows_block",
        };
        launch(name, blocks, ROWS_BLOCK, &mut a)?;
        if bpr > 1 && cptr.0 == 0 {
            let mut a = KernelArgs::with_capacity(4);
            a.ptr(pptr).ptr(r.output).i64(outer as i64).i64(bpr as i64);
            launch("ga_rows_partials", grid(outer, 1), BLOCK, &mut a)?;
        }
        return Ok(());
    }
    let v = vec_width(r.dtype) as usize;
    let vec = v > 1 && r.input.0 % 16 == 0 && (inner * size) % 16 == 0;
    let groups = if vec { inner / v } else { inner };
    let slices = dev.policy().col_reduce == ColReduce::Slices;
    let (splits, ksplit, counters, items, block_items) = if slices {
        // A block per (outer, 32 column groups, split); splits of whole batches of rows.
        let warp = dev.warp_size().max(1) as usize;
        let cblocks = groups.div_ceil(warp);
        let row_step = (BLOCK as usize / warp).max(1) * COL_BATCH;
        let target = sms * COL_SLICE_BLOCKS_PER_SM;
        let splits = if outer * cblocks >= target {
            1
        } else {
            target
                .div_ceil(outer * cblocks)
                .min(len.div_ceil(row_step))
                .max(1)
        };
        let ksplit = len.div_ceil(splits).next_multiple_of(row_step);
        let splits = len.div_ceil(ksplit);
        let blocks = outer * splits * cblocks;
        (splits, ksplit, outer * cblocks, blocks, 1)
    } else {
        let columns = outer * groups;
        let target = sms * COL_THREADS_PER_SM;
        let splits = if columns >= target {
            1
        } else {
            target.div_ceil(columns).min(len.div_ceil(16)).max(1)
        };
        let ksplit = len.div_ceil(splits);
        let splits = len.div_ceil(ksplit);
        (
            splits,
            ksplit,
            outer * groups,
            outer * splits * groups,
            BLOCK,
        )
    };
    let scratch = if splits > 1 {
        Some(partials(
            dev,
            stream,
            outer * splits * inner * combine::acc_bytes(r.op, r.dtype),
            counters,
        )?)
    } else {
        None
    };
    let (pptr, cptr) = scratch
        .as_ref()
        .map_or((DevicePtr(0), DevicePtr(0)), |s| (s.1, s.2));
    let mut a = KernelArgs::with_capacity(9);
    a.ptr(r.input).ptr(r.output).ptr(pptr).ptr(cptr);
    a.i64(outer as i64).i64(len as i64).i64(inner as i64);
    a.i64(splits as i64).i64(ksplit as i64);
    let name = match (slices, vec) {
        (true, true) => "ga_cols_slices_vec",
        (true, false) => "ga_cols_slices",
        (false, true) => "ga_cols_vec",
        (false, false) => "ga_cols",
    };
    launch(name, grid(items, block_items), BLOCK, &mut a)?;
    if splits > 1 && cptr.0 == 0 {
        let mut a = KernelArgs::with_capacity(5);
        a.ptr(pptr).ptr(r.output);
        a.i64(outer as i64).i64(inner as i64).i64(splits as i64);
        launch(
            "ga_cols_partials",
            grid(outer * inner, BLOCK),
            BLOCK,
            &mut a,
        )?;
    }
    Ok(())
}
