//! Inclusive scans along the middle axis of an (outer, len, inner) view (see [`codegen`]).

pub mod codegen;

use std::sync::Arc;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ScanOp;

use self::codegen::{BLOCK, KERNELS, tile};
use super::KernelSource;
use super::args::KernelArgs;
use super::cache::Module;
use super::cpp::combine;
use super::device_kernels::DeviceKernels;
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::Stream;

/// One scan launch; input and output have one type and layout, and do not overlap.
#[derive(Debug, Clone, Copy)]
pub struct ScanLaunch {
    pub op: ScanOp,
    pub dtype: DType,
    /// Address of the first input element (offset applied).
    pub input: DevicePtr,
    /// Address of the first output element (offset applied).
    pub output: DevicePtr,
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

/// Threads per multiprocessor a column scan aims for.
const COL_THREADS_PER_SM: usize = 2048;
/// Resident blocks per multiprocessor the single-pass scan's persistent grid aims for.
const ONEPASS_BLOCKS_PER_SM: usize = 8;

/// `GPUARRAYS_SCAN=onepass` selects the single-pass look-back scan for rows; the default is
/// the 3-pass reduce-then-scan, which measured faster on the H200 (1 GiB f32 cumsum, one run,
/// 2026-11-29: 1.194 ms against 1.716 ms for the single pass; see
/// docs/results/2026-11-29-hip-kernels.md).
pub const SCAN_ENV: &str = "GPUARRAYS_SCAN";

fn single_pass() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var(SCAN_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("onepass"))
    })
}

/// The module source for (op, dtype).
pub fn source(dev: &DeviceKernels, op: ScanOp, dtype: DType) -> Result<KernelSource> {
    let c = combine::scan(op, dtype)?;
    Ok(dev.source(
        format!("ga_scan[{}, {}]", op.name(), dtype.name()),
        &codegen::body(dtype, &c),
        KERNELS.to_vec(),
    ))
}

struct Ctx<'a> {
    dev: &'a DeviceKernels,
    stream: &'a Stream,
    module: Arc<Module>,
    dtype: DType,
}

impl Ctx<'_> {
    fn launch(&self, name: &str, items: usize, args: &mut KernelArgs) -> Result<()> {
        let f = self.module.function(name)?;
        let blocks = items.clamp(1, i32::MAX as usize) as u32;
        // SAFETY: every call passes the named kernel's parameters in codegen's order; data
        // pointers cover outer·len·inner elements and scratch buffers the sizes computed
        // below, all alive until the kernels ran (stream order).
        unsafe {
            self.dev
                .launch(f, [blocks, 1, 1], [BLOCK, 1, 1], 0, self.stream, args)
        }
    }

    /// Rows in one pass: tiles in atomic-counter order, carries by decoupled look-back.
    fn rows_onepass(
        &self,
        x: DevicePtr,
        y: DevicePtr,
        outer: usize,
        len: usize,
        tpr: usize,
    ) -> Result<()> {
        let tiles = outer * tpr;
        // One u64 word per published value (two for 16-byte types), as the kernel's GA_AW.
        let words = self.dtype.size().div_ceil(8);
        let flags_bytes = (tiles * 4).next_multiple_of(8);
        let values_bytes = tiles * words * 8;
        let status = self
            .dev
            .scratch(8 + flags_bytes + 2 * values_bytes, self.stream)?;
        let counter = status.ptr();
        let flags = counter.offset(8);
        let totals = flags.offset(flags_bytes);
        let incl = totals.offset(values_bytes);
        // SAFETY: the counter and the flags are the first 8 + flags_bytes bytes of `status`,
        // which is at least that long and alive until the kernel ran (stream order).
        unsafe {
            self.dev
                .platform()
                .memset_async(counter, 0, 8 + flags_bytes, self.stream.handle())?;
        }
        let mut a = KernelArgs::with_capacity(9);
        a.ptr(x)
            .ptr(y)
            .ptr(flags)
            .ptr(totals)
            .ptr(incl)
            .ptr(counter);
        a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
        let resident = self.dev.sm_count() as usize * ONEPASS_BLOCKS_PER_SM;
        self.launch("ga_scan_onepass", tiles.min(resident), &mut a)
    }

    fn rows(&self, x: DevicePtr, y: DevicePtr, outer: usize, len: usize) -> Result<()> {
        let tpr = len.div_ceil(tile(self.dtype));
        if tpr > 1 && single_pass() {
            return self.rows_onepass(x, y, outer, len, tpr);
        }
        let carry = if tpr > 1 {
            let bytes = outer * tpr * self.dtype.size();
            let agg = self.dev.scratch(bytes, self.stream)?;
            let scanned = self.dev.scratch(bytes, self.stream)?;
            let mut a = KernelArgs::with_capacity(5);
            a.ptr(x).ptr(agg.ptr());
            a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
            self.launch("ga_scan_tile_reduce", outer * tpr, &mut a)?;
            self.rows(agg.ptr(), scanned.ptr(), outer, tpr)?;
            Some((agg, scanned))
        } else {
            None
        };
        let cptr = carry.as_ref().map_or(DevicePtr(0), |c| c.1.ptr());
        let mut a = KernelArgs::with_capacity(7);
        a.ptr(x).ptr(y).ptr(cptr);
        a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
        a.i32(carry.is_some() as i32);
        self.launch("ga_scan_tiles", outer * tpr, &mut a)
    }

    fn cols(
        &self,
        x: DevicePtr,
        y: DevicePtr,
        outer: usize,
        len: usize,
        inner: usize,
    ) -> Result<()> {
        let columns = outer * inner;
        let target = self.dev.sm_count() as usize * COL_THREADS_PER_SM;
        let splits = if columns >= target {
            1
        } else {
            target.div_ceil(columns).min(len.div_ceil(64)).max(1)
        };
        let ksplit = len.div_ceil(splits);
        let splits = len.div_ceil(ksplit);
        let threads = outer * splits * inner;
        let carry = if splits > 1 {
            let bytes = threads * self.dtype.size();
            let agg = self.dev.scratch(bytes, self.stream)?;
            let scanned = self.dev.scratch(bytes, self.stream)?;
            let mut a = KernelArgs::with_capacity(7);
            a.ptr(x).ptr(agg.ptr());
            a.i64(outer as i64).i64(len as i64).i64(inner as i64);
            a.i64(splits as i64).i64(ksplit as i64);
            self.launch(
                "ga_scan_cols_reduce",
                threads.div_ceil(BLOCK as usize),
                &mut a,
            )?;
            self.cols(agg.ptr(), scanned.ptr(), outer, splits, inner)?;
            Some((agg, scanned))
        } else {
            None
        };
        let cptr = carry.as_ref().map_or(DevicePtr(0), |c| c.1.ptr());
        let mut a = KernelArgs::with_capacity(9);
        a.ptr(x).ptr(y).ptr(cptr);
        a.i64(outer as i64).i64(len as i64).i64(inner as i64);
        a.i64(splits as i64).i64(ksplit as i64);
        a.i32(carry.is_some() as i32);
        self.launch("ga_scan_cols", threads.div_ceil(BLOCK as usize), &mut a)
    }
}

/// Runs one scan on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, s: &ScanLaunch) -> Result<()> {
    run_on(dev, Some(stream), s)
}

/// Compiles (or finds) the kernels [`run`] launches, without launching: the ordering protocol calls it before it locks the operands (a compilation must not
/// hold them). With no stream, nothing can be enqueued.
pub fn prepare(dev: &DeviceKernels, s: &ScanLaunch) -> Result<()> {
    run_on(dev, None, s)
}

/// [`run`] on `stream`, or [`prepare`] when there is none: everything up to the launch.
fn run_on(dev: &DeviceKernels, stream: Option<&Stream>, s: &ScanLaunch) -> Result<()> {
    if s.outer * s.len * s.inner == 0 {
        return Ok(());
    }
    let module = dev.scan.get(&(s.op, s.dtype), dev.modules(), || {
        source(dev, s.op, s.dtype)
    })?;
    let Some(stream) = stream else {
        return Ok(());
    };
    let ctx = Ctx {
        dev,
        stream,
        module,
        dtype: s.dtype,
    };
    if s.inner == 1 {
        ctx.rows(s.input, s.output, s.outer, s.len)
    } else {
        ctx.cols(s.input, s.output, s.outer, s.len, s.inner)
    }
}
