//! Inclusive scans, split so that every shape uses every thread while the results depend on
//! the shape only, never on the number of threads.
//!
//! Earlier, each outer row was one task scanned in order: a 1-D scan (one row) and a scan
//! along axis 0 of a 2-D array (one outer row, `inner` columns) ran on one thread. Now:
//! - `inner > 1`: tasks are (outer row, strip of [`STRIP`] columns); each column is still
//!   scanned in order, so results are what they were.
//! - `inner == 1` and lines longer than [`BLOCK`]: a line is cut into blocks of `BLOCK`;
//!   each block's total is folded in parallel, the totals are scanned in order into the
//!   carry entering each block, and the blocks are then scanned in parallel, each starting
//!   from its carry. The totals are folded in lanes like a reduction (vectorised, so that
//!   pass runs at read bandwidth instead of one dependent add per element). Integer scans (wrapping) give exactly the sequential results; float
//!   scans round the carries differently from one running sum (within the documented
//!   tolerance), the same way for any thread count.

use gpuarrays_core::kernel::{ScanArgs, ScanOp};
use rayon::prelude::*;

use gpuarrays_core::dispatch_dtype;
use gpuarrays_core::host::scan_run;

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use gpuarrays_core::host::semantics::{Arith, Ordered};

/// Columns per task of a scan along a non-last axis.
const STRIP: usize = 1024;
/// Elements per block of a long line (a scan along the last axis).
const BLOCK: usize = 1 << 16;

/// The output of a strided scan, shared by tasks that write disjoint columns of it.
#[derive(Clone, Copy)]
struct Out<T>(*mut T);

// SAFETY: the pointer is only used by `scan_columns`' tasks, each writing (and re-reading)
// its own columns; `T` is plain data.
unsafe impl<T: Send> Send for Out<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Out<T> {}

impl<T> Out<T> {
    /// Element `i` (a method, so closures capture the whole `Out`, which is `Sync`).
    fn at(self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

/// `inner > 1`: tasks are (outer row, strip of columns), each scanning its columns in
/// order.
fn scan_columns<T: Arith>(
    a: &ScanArgs<'_, CpuBuffer>,
    x: &[T],
    combine: impl Fn(T, T) -> T + Sync,
) -> Result<(), CpuError> {
    let (outer, len, inner) = (a.outer, a.len, a.inner);
    let out = Out(a.output.ptr::<T>(a.output_offset, outer * len * inner)?);
    let width = STRIP.min(inner);
    let strips = inner.div_ceil(width);
    (0..outer * strips)
        .into_par_iter()
        .with_min_len(crate::parallel::min_len())
        .for_each(|t| {
            let c0 = (t % strips) * width;
            let w = width.min(inner - c0);
            let base = (t / strips) * len * inner + c0;
            for k in 0..len {
                let row = base + k * inner;
                let src = &x[row..row + w];
                // SAFETY: `ptr` bounds-checked the whole output; elements `row..row + w` are
                // columns of this task's strip, which no other task reads or writes.
                let dst = unsafe { std::slice::from_raw_parts_mut(out.at(row), w) };
                if k == 0 {
                    dst.copy_from_slice(src);
                } else {
                    // SAFETY: the same columns one row up, written by this task in the previous
                    // step; they do not overlap `dst`.
                    let prev = unsafe { std::slice::from_raw_parts(out.at(row - inner), w) };
                    for ((o, &p), &v) in dst.iter_mut().zip(prev).zip(src) {
                        *o = combine(p, v);
                    }
                }
            }
        });
    Ok(())
}

fn scan<T: Arith>(a: &ScanArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    distinct(a.input, a.output)?;
    let (outer, len, inner) = (a.outer, a.len, a.inner);
    let n = outer * len * inner;
    if n == 0 {
        // Nothing to scan (core never asks, but a direct caller may); chunking by zero
        // below would panic.
        return Ok(());
    }
    // SAFETY: distinct buffers; core holds them for this call only.
    let x: &[T] = unsafe { a.input.slice(a.input_offset, n)? };
    // One monomorphised copy per operation, so the loops carry no per-element match on it.
    match a.op {
        ScanOp::Sum => scan_with(a, x, |p: T, q: T| p.add(q)),
        ScanOp::Prod => scan_with(a, x, |p: T, q: T| p.mul(q)),
        // `run` sends these to `scan_ordered` (ordered types only).
        ScanOp::Max | ScanOp::Min => invalid_dtype(a.op.name(), a.dtype),
    }
}

/// Running maxima and minima: NaN-propagating (`Ordered::max_`, as the reductions), and
/// associative, so the blocked split of long lines gives exactly the sequential result.
fn scan_ordered<T: Arith + Ordered>(a: &ScanArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    distinct(a.input, a.output)?;
    let n = a.outer * a.len * a.inner;
    if n == 0 {
        return Ok(());
    }
    // SAFETY: distinct buffers; core holds them for this call only.
    let x: &[T] = unsafe { a.input.slice(a.input_offset, n)? };
    match a.op {
        ScanOp::Max => scan_with(a, x, |p: T, q: T| p.max_(q)),
        ScanOp::Min => scan_with(a, x, |p: T, q: T| p.min_(q)),
        ScanOp::Sum | ScanOp::Prod => scan::<T>(a),
    }
}

/// `scan` for one combining function.
fn scan_with<T: Arith>(
    a: &ScanArgs<'_, CpuBuffer>,
    x: &[T],
    combine: impl Fn(T, T) -> T + Copy + Send + Sync,
) -> Result<(), CpuError> {
    let (outer, len, inner) = (a.outer, a.len, a.inner);
    let n = outer * len * inner;
    if inner > 1 {
        return scan_columns(a, x, combine);
    }
    // SAFETY: as above; only this call writes the output range.
    let y: &mut [T] = unsafe { a.output.slice_mut(a.output_offset, n)? };
    if len <= BLOCK {
        y.par_chunks_mut(len)
            .zip(x.par_chunks(len))
            .with_min_len(crate::parallel::min_len())
            .for_each(|(ys, xs)| scan_run(xs, ys, None, combine));
        return Ok(());
    }
    // Long lines: block totals, carries in order, then blocks from their carries. Blocks
    // are cut per line (a block never spans two lines).
    let blocks = len.div_ceil(BLOCK);
    let xs: Vec<&[T]> = x.chunks(len).flat_map(|l| l.chunks(BLOCK)).collect();
    let ys: Vec<&mut [T]> = y
        .chunks_mut(len)
        .flat_map(|l| l.chunks_mut(BLOCK))
        .collect();
    let totals: Vec<T> = xs
        .par_iter()
        .with_min_len(crate::parallel::min_len())
        .map(|b| gpuarrays_core::host::fold_run(b, 0, &|v, _| v, &combine))
        .collect();
    let mut carries: Vec<Option<T>> = Vec::with_capacity(totals.len());
    for line in totals.chunks(blocks) {
        let mut acc: Option<T> = None;
        for &t in line {
            carries.push(acc);
            acc = Some(match acc {
                Some(p) => combine(p, t),
                None => t,
            });
        }
    }
    ys.into_par_iter()
        .zip(xs)
        .zip(carries)
        .with_min_len(crate::parallel::min_len())
        .for_each(|((ys, xs), carry)| scan_run(xs, ys, carry, combine));
    Ok(())
}

/// Core never passes halves: it scans them as f32 and rounds each output once (its
/// `ops::scan`), so a half here is refused rather than scanned by another rule.
pub(crate) fn run(a: &ScanArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    if matches!(a.op, ScanOp::Max | ScanOp::Min) {
        return dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F32, F64],
            T => scan_ordered::<Stored<T>>(a), else other => invalid_dtype(a.op.name(), other));
    }
    dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, C32, C64],
        T => scan::<Stored<T>>(a), else other => invalid_dtype(a.op.name(), other))
}
