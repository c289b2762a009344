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
/// Blocks per multiprocessor a split reduction aims for (132×8 measured best for the sum).
const BLOCKS_PER_SM: usize = 8;
/// The same for argmin/argmax, whose 16-byte accumulators leave fewer blocks resident: more,
/// smaller blocks keep the last wave's idle tail short (not yet measured against 8).
const ARG_BLOCKS_PER_SM: usize = 32;
/// Threads per multiprocessor a column reduction aims for (enough loads in flight).
const COL_THREADS_PER_SM: usize = 2048;

/// `GPUARRAYS_REDUCE=twopass` combines split reductions' partials in a second launch (the
/// kernels before the partials were combined in the same launch); kept as a fallback.
pub const REDUCE_ENV: &str = "GPUARRAYS_REDUCE";

fn two_pass() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var(REDUCE_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("twopass"))
    })
}

/// Scratch for the partials of a split reduction and, unless two-pass, one zeroed counter per
/// output group (`counters`), ordered on `stream`.
fn partials(
    dev: &DeviceKernels,
    stream: &Stream,
    partial_bytes: usize,
    counters: usize,
) -> Result<(crate::device::DeviceBuffer, DevicePtr, DevicePtr)> {
    let fused = !two_pass();
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
        let name = if vec {
            "ga_rows_block_vec"
        } else {
            "ga_rows_block"
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
    let columns = outer * groups;
    let target = sms * COL_THREADS_PER_SM;
    let splits = if columns >= target {
        1
    } else {
        target.div_ceil(columns).min(len.div_ceil(16)).max(1)
    };
    let ksplit = len.div_ceil(splits);
    let splits = len.div_ceil(ksplit);
    let scratch = if splits > 1 {
        Some(partials(
            dev,
            stream,
            outer * splits * inner * combine::acc_bytes(r.op, r.dtype),
            outer * groups,
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
    let name = if vec { "ga_cols_vec" } else { "ga_cols" };
    launch(name, grid(outer * splits * groups, BLOCK), BLOCK, &mut a)?;
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
