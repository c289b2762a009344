//! Inclusive scans along the middle axis of an (outer, len, inner) view (see [`codegen`]).

pub mod codegen;
mod register_kernels;

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

/// The row scan: forced by the kernel policy's
/// [`row_scan`](crate::runtime::KernelPolicy::row_scan) (`GPUARRAYS_SCAN=lookback`,
/// `=reducescan`, `=rowpass` or `=multipass` when the runtime reads the environment), else
/// chosen per scan: one pass per row where there are rows enough to fill the device
/// ([`rows_in_one_pass`]), else the reduce-then-scan over register tiles.
///
/// Measured on the H200 (2026-12-01, `gpuarrays bench --filter accumulate` once per mode in
/// one call; docs/results/hip-scan-sort.md): the reduce-then-scan was as fast or
/// faster than the single-pass look-back on every row, so the look-back is no longer chosen
/// for short rows. Rows of 4 tiles (16384 × 8192 i64): 0.824 ms vs 1.073 ms (Nsight Compute:
/// the look-back kernel at 38 % of DRAM bandwidth, 60 registers, 50 % occupancy, its tiles
/// waiting on each other's aggregates); 16384 × 16384 f32: 0.820 vs 0.998 ms; the suite's
/// 1000 × 512 rows (one tile each): 6.0 vs 8.6 µs (f32), 6.4 vs 9.2 µs (i64), the look-back
/// also needing a memset of its flags. A 1-D row of 2^19 elements, whose tile totals were
/// scanned by the look-back: 12.2 vs 14.9 µs (f32), 11.8 vs 21.2 µs (i64). Earlier (same
/// day): 2^26 f32 in one row took 0.619 ms single-pass vs 0.326 ms with the shared-memory
/// 3-pass scan (`multipass`); Nsight Compute put that scan's passes at 44 % (totals, scalar
/// loads) and 55 % (scan, 64 registers, 50 % occupancy) of DRAM bandwidth; `reducescan` is
/// the same three passes with 16-byte loads, the tile held in registers and a register
/// budget (see [`codegen`]).
pub use crate::runtime::policy::RowScan;
pub use crate::runtime::policy::SCAN_ENV;

/// Rows per resident block the automatic choice asks for before it scans each row in one
/// pass: with every block walking a whole row, the last wave of rows leaves part of the
/// device idle, at most 1 / ROW_PASS_WAVES of the time.
const ROW_PASS_WAVES: usize = 4;

/// Whether the automatic choice scans `outer` rows of `tpr` tiles in one pass per row: rows
/// of more than one tile (one tile is one pass already), and at least `ROW_PASS_WAVES` (4)
/// rows per block the device holds at once (`sm_count` · [`codegen::REG_MIN_BLOCKS`]).
///
/// Why: the reduce-then-scan reads the input twice, so it moves 3 bytes per byte written;
/// one pass per row moves 2. Measured on the H200 (2026-12-02, `gpuarrays bench --filter
/// accumulate`, automatic choice and `GPUARRAYS_SCAN=reducescan` alternating twice in one
/// call; docs/results/hip-scan-sort.md): 16384 × 8192 i64 along rows 0.54 ms
/// against 0.83 ms (1.52×; PyTorch 0.79 ms), 16384 × 16384 f32 0.54 against 0.82 ms; Nsight
/// Compute: the row pass at 82 % of DRAM throughput, where the reduce-then-scan spent
/// 233 µs on tile totals, 91 µs scanning 16384 rows of 4 totals and 517 µs on the tiles.
/// Fewer, longer rows would leave multiprocessors idle while the last rows finish (a row is
/// one block's serial walk), and a single row would run on one multiprocessor, so those
/// keep the reduce-then-scan, whose tiles spread over the device.
pub fn rows_in_one_pass(outer: usize, tpr: usize, sm_count: usize) -> bool {
    let resident = sm_count.max(1) * codegen::REG_MIN_BLOCKS as usize;
    tpr > 1 && outer >= ROW_PASS_WAVES * resident
}

/// Aggregate slots of a row of `tpr` tiles: `tpr / 2^k` at every level k.
fn slots(tpr: usize) -> usize {
    (0..usize::BITS).map(|k| tpr >> k).sum()
}

/// The whole module body for scanning `dtype` with `c`: the shared stages and the
/// shared-memory and look-back kernels (`codegen.rs`), then the register-tile kernels.
pub fn body(dtype: DType, c: &combine::Combiner) -> String {
    let mut body = codegen::body(dtype, c);
    body.push_str(&register_kernels::register_kernels(dtype));
    body
}

/// The module source for (op, dtype).
pub fn source(dev: &DeviceKernels, op: ScanOp, dtype: DType) -> Result<KernelSource> {
    let c = combine::scan(op, dtype)?;
    Ok(dev.source(
        format!("ga_scan[{}, {}]", op.name(), dtype.name()),
        &body(dtype, &c),
        KERNELS.to_vec(),
    ))
}

struct Ctx<'a> {
    dev: &'a DeviceKernels,
    stream: &'a Stream,
    module: Arc<Module>,
    op: ScanOp,
    dtype: DType,
    /// Bytes of one accumulator `GaA` (`combine::acc_bytes`).
    acc_bytes: usize,
}

/// The type tile and split totals of a scan of `t` are stored and scanned in (`GaT` of
/// [`codegen`]): `t`, except f32 for the halves, whose running value is f32.
fn totals_dtype(t: DType) -> DType {
    if t.is_half() { DType::F32 } else { t }
}

/// The scan module of (op, dtype).
fn module(dev: &DeviceKernels, op: ScanOp, dtype: DType) -> Result<Arc<Module>> {
    dev.scan
        .get(&(op, dtype), dev.modules(), || source(dev, op, dtype))
}

impl<'a> Ctx<'a> {
    /// The context scanning this scan's totals.
    fn totals(&self) -> Result<Ctx<'a>> {
        let dtype = totals_dtype(self.dtype);
        Ok(Ctx {
            dev: self.dev,
            stream: self.stream,
            module: match dtype == self.dtype {
                true => self.module.clone(),
                false => module(self.dev, self.op, dtype)?,
            },
            op: self.op,
            dtype,
            acc_bytes: combine::acc_bytes(self.op.reduction(), dtype),
        })
    }

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

    /// Rows in one pass: tiles in atomic-counter order, each tile's carry combined from the
    /// published aggregates of earlier tiles.
    fn rows_lookback(
        &self,
        x: DevicePtr,
        y: DevicePtr,
        outer: usize,
        len: usize,
        tpr: usize,
    ) -> Result<()> {
        let tiles = outer * tpr;
        if tiles > i32::MAX as usize {
            return Err(crate::error::HipError::InvalidArgument(format!(
                "scan of {outer} rows of {len} elements: {tiles} tiles exceed one launch"
            )));
        }
        let slots = slots(tpr);
        // u64 words per published accumulator, as the kernel's GA_AW (a complex product's
        // accumulator carries a flag beside the value: `combine::acc_bytes`).
        let words = self.acc_bytes.div_ceil(8);
        let flags_bytes = (outer * slots * 4).next_multiple_of(8);
        let values_bytes = outer * slots * words * 8;
        let status = self
            .dev
            .scratch(8 + flags_bytes + values_bytes, self.stream)?;
        let counter = status.ptr();
        let flags = counter.offset(8);
        let values = flags.offset(flags_bytes);
        // SAFETY: the counter and the flags are the first 8 + flags_bytes bytes of `status`,
        // which is at least that long and alive until the kernel ran (stream order).
        unsafe {
            self.dev
                .platform()
                .memset_async(counter, 0, 8 + flags_bytes, self.stream.handle())?;
        }
        let size = self.dtype.size();
        let vec = x.0 % 16 == 0 && y.0 % 16 == 0 && (len * size) % 16 == 0;
        let mut a = KernelArgs::with_capacity(9);
        a.ptr(x).ptr(y).ptr(flags).ptr(values).ptr(counter);
        a.i64(outer as i64)
            .i64(len as i64)
            .i64(tpr as i64)
            .i64(slots as i64);
        let name = if vec {
            "ga_scan_lookback_vec"
        } else {
            "ga_scan_lookback"
        };
        self.launch(name, tiles, &mut a)
    }

    fn rows(&self, x: DevicePtr, y: DevicePtr, outer: usize, len: usize) -> Result<()> {
        let tpr = len.div_ceil(tile(self.dtype));
        let mode = self.dev.policy().row_scan.unwrap_or_else(|| {
            if rows_in_one_pass(outer, tpr, self.dev.sm_count() as usize) {
                RowScan::RowPass
            } else {
                RowScan::ReduceScan
            }
        });
        if mode == RowScan::Lookback {
            return self.rows_lookback(x, y, outer, len, tpr);
        }
        // 16-byte vectors need x, y and (with several rows) every row start aligned; a tile
        // that is not full, or a misaligned view, takes the element-wise path of the kernel.
        let size = self.dtype.size();
        let vec = x.0 % 16 == 0 && y.0 % 16 == 0 && (outer == 1 || (len * size) % 16 == 0);
        if mode == RowScan::RowPass {
            let name = if vec {
                "ga_scan_rows_regs_vec"
            } else {
                "ga_scan_rows_regs"
            };
            let mut a = KernelArgs::with_capacity(5);
            a.ptr(x).ptr(y);
            a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
            return self.launch(name, outer, &mut a);
        }
        let (totals, scan) = match (mode, vec) {
            (RowScan::ReduceScan, true) => ("ga_scan_tile_totals_vec", "ga_scan_tiles_regs_vec"),
            (RowScan::ReduceScan, false) => ("ga_scan_tile_totals", "ga_scan_tiles_regs"),
            _ => ("ga_scan_tile_reduce", "ga_scan_tiles"),
        };
        let carry = if tpr > 1 {
            let bytes = outer * tpr * totals_dtype(self.dtype).size();
            let agg = self.dev.scratch(bytes, self.stream)?;
            let scanned = self.dev.scratch(bytes, self.stream)?;
            let mut a = KernelArgs::with_capacity(5);
            a.ptr(x).ptr(agg.ptr());
            a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
            self.launch(totals, outer * tpr, &mut a)?;
            self.totals()?.rows(agg.ptr(), scanned.ptr(), outer, tpr)?;
            Some((agg, scanned))
        } else {
            None
        };
        let cptr = carry.as_ref().map_or(DevicePtr(0), |c| c.1.ptr());
        let mut a = KernelArgs::with_capacity(7);
        a.ptr(x).ptr(y).ptr(cptr);
        a.i64(outer as i64).i64(len as i64).i64(tpr as i64);
        if mode == RowScan::Multipass {
            a.i32(carry.is_some() as i32);
        }
        self.launch(scan, outer * tpr, &mut a)
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
            let bytes = threads * totals_dtype(self.dtype).size();
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
            self.totals()?
                .cols(agg.ptr(), scanned.ptr(), outer, splits, inner)?;
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
    let module = module(dev, s.op, s.dtype)?;
    if totals_dtype(s.dtype) != s.dtype {
        // Compiled now too: `prepare` must leave nothing to compile for the launch.
        self::module(dev, s.op, totals_dtype(s.dtype))?;
    }
    let Some(stream) = stream else {
        return Ok(());
    };
    let ctx = Ctx {
        dev,
        stream,
        module,
        op: s.op,
        dtype: s.dtype,
        acc_bytes: combine::acc_bytes(s.op.reduction(), s.dtype),
    };
    if s.inner == 1 {
        ctx.rows(s.input, s.output, s.outer, s.len)
    } else {
        ctx.cols(s.input, s.output, s.outer, s.len, s.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_per_row_only_with_rows_enough_to_fill_the_device() {
        // The H200: 132 multiprocessors, 4 resident scan blocks each, so 2,112 rows.
        let resident = 132 * codegen::REG_MIN_BLOCKS as usize;
        assert!(
            rows_in_one_pass(16384, 4, 132),
            "the suite's 16384 × 8192 i64 rows"
        );
        assert!(rows_in_one_pass(ROW_PASS_WAVES * resident, 2, 132));
        assert!(!rows_in_one_pass(ROW_PASS_WAVES * resident - 1, 2, 132));
        assert!(
            !rows_in_one_pass(1, 1 << 14, 132),
            "one long row spreads its tiles"
        );
        assert!(
            !rows_in_one_pass(1 << 20, 1, 132),
            "a one-tile row is one pass already"
        );
        assert!(
            rows_in_one_pass(16, 2, 0),
            "a device reporting no multiprocessors"
        );
    }
}
