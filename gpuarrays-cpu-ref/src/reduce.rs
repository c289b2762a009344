//! Reductions. Work is split into fixed-size blocks (never by thread count), and block
//! results are combined in a fixed order, so results do not depend on the number of threads.
//! The fold of one run, the NaN-aware argmin/argmax choice and the reading of bool bytes
//! are core's (`gpuarrays_core::host`), shared with the small-backend kit.

use gpuarrays_core::kernel::{ReduceArgs, ReduceOp};
use rayon::prelude::*;

use gpuarrays_core::host::{better, bool_byte, fold_run};
use gpuarrays_core::{DType, dispatch_dtype};

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use gpuarrays_core::host::semantics::{Accumulate, Arith, Bits, Ordered};

/// Elements per block of a contiguous reduction.
const BLOCK: usize = 1 << 14;
/// The strip width the blocks of rows of a strided reduction are sized by (`STRIP_ELEMS /
/// min(STRIP, inner)` rows). It was also the columns per task until tasks widened to
/// 4,096 and then [`STRIP_BYTES`] of accumulators; the row blocks, and so the results,
/// stayed as they were.
const STRIP: usize = 1024;
/// Bytes of accumulators of a strided task: its columns are `STRIP_BYTES / size_of::<A>()`
/// (8,192 f32). Measured on the sum along axis 0 of an 8192² f32 array
/// (docs/results/cpu-reference.md): tasks of
/// 1,024 columns took 1.6–1.9× ndarray's time (64 rows read in 4 KiB pieces 32 KiB apart),
/// of 4,096 columns 1.33× (16 KiB pieces: two tasks read the halves of the same rows at
/// different times), of whole 32 KiB rows (ndarray's own access pattern) 0.99×.
const STRIP_BYTES: usize = 32 << 10;
/// Columns per piece of the final combination of a strided reduction's blocks, in parallel.
const COMBINE_COLS: usize = 1024;
/// Elements per block of rows of a strided reduction (`STRIP_ELEMS / min(STRIP, inner)`
/// rows, at least [`MIN_ROWS`]), so that even one output row gives many tasks.
const STRIP_ELEMS: usize = 1 << 16;
/// The fewest rows a strided task reduces (bounds the partial results to 1/64 of the input).
const MIN_ROWS: usize = 64;
/// Reductions of at most this many elements run on the calling thread: handing them to the
/// pool costs a wake-up of another thread and a wait for it (about 10 µs on a loaded
/// two-core machine, more than reducing 16 Ki elements takes). The work and the order of
/// combination are the same either way, so results are too.
const SMALL: usize = 1 << 14;

/// Whether `run` does all its work on the calling thread.
pub(crate) fn runs_inline(a: &ReduceArgs<'_, CpuBuffer>) -> bool {
    a.outer * a.len * a.inner <= SMALL
}

/// The least number of items a parallel iterator hands to one task: all of them (no split,
/// so no hand-over to the pool) for small reductions and on threads that must not split
/// ([`crate::parallel`]), else any number.
fn min_len(a: &ReduceArgs<'_, CpuBuffer>) -> usize {
    if runs_inline(a) {
        usize::MAX
    } else {
        crate::parallel::min_len()
    }
}

/// Folds rows `k_lo..k_hi` of one strip: `acc[i] = fold_k map(x[k·inner + i], k)`, each
/// column in order of `k` (`x` starts at the strip's first column of row 0).
#[inline(always)]
fn fold_strip<T: Copy, A: Copy>(
    x: &[T],
    inner: usize,
    width: usize,
    (k_lo, k_hi): (usize, usize),
    map: &impl Fn(T, usize) -> A,
    combine: &impl Fn(A, A) -> A,
) -> Vec<A> {
    let mut acc: Vec<A> = x[k_lo * inner..][..width]
        .iter()
        .map(|&v| map(v, k_lo))
        .collect();
    for k in k_lo + 1..k_hi {
        for (a, &v) in acc.iter_mut().zip(&x[k * inner..][..width]) {
            *a = combine(*a, map(v, k));
        }
    }
    acc
}

/// The generic driver: output `[o·inner + i] = finish(fold_k map(x[o, k, i], k))`.
fn fold<T, A, O>(
    args: &ReduceArgs<'_, CpuBuffer>,
    map: impl Fn(T, usize) -> A + Sync,
    combine: impl Fn(A, A) -> A + Sync,
    finish: impl Fn(A) -> O + Sync,
) -> Result<(), CpuError>
where
    T: Copy + Send + Sync,
    A: Copy + Send + Sync,
    O: Copy + Send + Sync,
{
    distinct(args.input, args.output)?;
    let (outer, len, inner) = (args.outer, args.len, args.inner);
    // SAFETY: input and output are distinct buffers; core holds them for this call only.
    let x: &[T] = unsafe { args.input.slice(args.input_offset, outer * len * inner)? };
    // SAFETY: as above; only this call writes the output range.
    let out: &mut [O] = unsafe { args.output.slice_mut(args.output_offset, outer * inner)? };
    let min = min_len(args);
    if inner == 1 && len <= BLOCK {
        // One block per row: each output straight from its row, in one parallel pass (the
        // partials and a second pass cost a second hand-over to the pool: the row sums of a
        // 1024² f32 array took 1.33× ndarray's time with them). Same fold, same bits.
        out.par_iter_mut()
            .enumerate()
            .with_min_len(min.max((SMALL / len.max(1)).max(1)))
            .for_each(|(o, r)| *r = finish(fold_run(&x[o * len..][..len], 0, &map, &combine)));
    } else if inner == 1 {
        let blocks = len.div_ceil(BLOCK);
        let partial: Vec<A> = (0..outer * blocks)
            .into_par_iter()
            .with_min_len(min)
            .map(|t| {
                let (o, b) = (t / blocks, t % blocks);
                let start = b * BLOCK;
                let run = &x[o * len + start..o * len + (start + BLOCK).min(len)];
                fold_run(run, start, &map, &combine)
            })
            .collect();
        out.par_iter_mut()
            .zip(partial.par_chunks(blocks))
            .with_min_len(min)
            .for_each(|(o, p)| {
                *o = finish(p[1..].iter().fold(p[0], |a, &b| combine(a, b)));
            });
    } else {
        fold_strided(x, out, (outer, len, inner), min, (&map, &combine, &finish));
    }
    Ok(())
}

/// The outputs of each (outer row `o`, strip `s`), in parallel: `(o, s, outputs)`.
fn segments<O: Send>(
    out: &mut [O],
    (inner, width): (usize, usize),
    min: usize,
) -> impl ParallelIterator<Item = (usize, usize, &mut [O])> {
    out.par_chunks_mut(inner)
        .enumerate()
        .with_min_len(min)
        .flat_map(move |(o, row)| {
            row.par_chunks_mut(width)
                .enumerate()
                .with_min_len(min)
                .map(move |(s, seg)| (o, s, seg))
        })
}

/// The strided case (`inner > 1`): tasks are (outer row, block of `rows` rows along the
/// reduced axis, strip of columns); each folds its rows in order into one accumulator per
/// column; the blocks' results are then folded in order of the block.
///
/// Earlier, each column was folded over all `len` rows by one task, and tasks were split
/// over outer rows and 512-column strips only: an axis-0 sum of a 1024² array had two
/// tasks, each reading 2 KiB of every 4 KiB row, and ran at 0.55× ndarray's speed.
/// Blocks of rows give every shape enough tasks, and wider strips longer runs. The block
/// size depends on the shape only, so results do not depend on the number of threads; they
/// equal a fold over all rows in order whenever `len` fits one block.
fn fold_strided<T, A, O>(
    x: &[T],
    out: &mut [O],
    (outer, len, inner): (usize, usize, usize),
    min: usize,
    (map, combine, finish): (
        &(impl Fn(T, usize) -> A + Sync),
        &(impl Fn(A, A) -> A + Sync),
        &(impl Fn(A) -> O + Sync),
    ),
) where
    T: Copy + Send + Sync,
    A: Copy + Send + Sync,
    O: Copy + Send + Sync,
{
    // The blocks of rows follow from the 1,024-column strip (as since 2e03202, so results
    // are unchanged); a task then reads `STRIP_BYTES` of accumulators' worth of columns.
    let rows = (STRIP_ELEMS / STRIP.min(inner)).max(MIN_ROWS);
    let width = (STRIP_BYTES / std::mem::size_of::<A>().max(1))
        .max(1)
        .min(inner);
    let strips = inner.div_ceil(width);
    let blocks = len.div_ceil(rows);
    let strip = |o: usize, b: usize, s: usize| {
        let base = o * len * inner + s * width;
        let w = width.min(inner - s * width);
        let k = (b * rows, ((b + 1) * rows).min(len));
        fold_strip(&x[base..], inner, w, k, map, combine)
    };
    let write = |seg: &mut [O], acc: Vec<A>| {
        for (r, a) in seg.iter_mut().zip(acc) {
            *r = finish(a);
        }
    };
    if blocks == 1 {
        segments(out, (inner, width), min).for_each(|(o, s, seg)| write(seg, strip(o, 0, s)));
        return;
    }
    // Task t = (o·blocks + b)·strips + s; rayon's collect keeps that order.
    let partial: Vec<Vec<A>> = (0..outer * blocks * strips)
        .into_par_iter()
        .with_min_len(min)
        .map(|t| strip(t / (blocks * strips), (t / strips) % blocks, t % strips))
        .collect();
    // The blocks' results, per column in order of the block, in pieces of columns in
    // parallel (per strip, so a piece lies in one partial vector).
    segments(out, (inner, width), min)
        .flat_map(|(o, s, seg)| {
            seg.par_chunks_mut(COMBINE_COLS)
                .enumerate()
                .with_min_len(min)
                .map(move |(c, piece)| (o, s, c * COMBINE_COLS, piece))
        })
        .for_each(|(o, s, col, piece)| {
            let part = |b: usize| &partial[(o * blocks + b) * strips + s][col..][..piece.len()];
            let mut acc = part(0).to_vec();
            for b in 1..blocks {
                for (a, &p) in acc.iter_mut().zip(part(b)) {
                    *a = combine(*a, p);
                }
            }
            write(piece, acc);
        });
}

/// Sums and products accumulate in [`Accumulate::Acc`] (f32 for the half types).
fn sum<T: Accumulate>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T::Acc, T>(a, |x, _| x.to_acc(), |p, q| p.add(q), T::from_acc)
}
fn prod<T: Accumulate>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T::Acc, T>(a, |x, _| x.to_acc(), |p, q| p.mul(q), T::from_acc)
}
fn min<T: Ordered>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| load(x), |p, q| p.min_(q), |p| p)
}
fn max<T: Ordered>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| load(x), |p, q| p.max_(q), |p| p)
}
fn any<T: Bits>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| load(x), |p, q| p.or(q), |p| p)
}
fn all<T: Bits>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| load(x), |p, q| p.and(q), |p| p)
}

/// A value as read: itself.
fn same<T>(x: T) -> T {
    x
}

fn argmin<T: Ordered>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, (T, i64), i64>(
        a,
        |x, k| (load(x), k as i64),
        |p, q| better(p, q, true),
        |p| p.1,
    )
}
fn argmax<T: Ordered>(
    a: &ReduceArgs<'_, CpuBuffer>,
    load: impl Fn(T) -> T + Sync,
) -> Result<(), CpuError> {
    fold::<T, (T, i64), i64>(
        a,
        |x, k| (load(x), k as i64),
        |p, q| better(p, q, false),
        |p| p.1,
    )
}

/// Runs a reduction.
pub(crate) fn run(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    let name = a.op.name();
    match a.op {
        ReduceOp::Sum => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => sum::<Stored<T>>(a), else other => invalid_dtype(name, other))
        }
        ReduceOp::Prod => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => prod::<Stored<T>>(a), else other => invalid_dtype(name, other))
        }
        ReduceOp::Min if a.dtype == DType::Bool => min::<u8>(a, bool_byte),
        ReduceOp::Max if a.dtype == DType::Bool => max::<u8>(a, bool_byte),
        ReduceOp::ArgMin if a.dtype == DType::Bool => argmin::<u8>(a, bool_byte),
        ReduceOp::ArgMax if a.dtype == DType::Bool => argmax::<u8>(a, bool_byte),
        ReduceOp::Min => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T => min::<T>(a, same), else other => invalid_dtype(name, other))
        }
        ReduceOp::Max => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T => max::<T>(a, same), else other => invalid_dtype(name, other))
        }
        ReduceOp::ArgMin => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T => argmin::<T>(a, same), else other => invalid_dtype(name, other))
        }
        ReduceOp::ArgMax => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
            T => argmax::<T>(a, same), else other => invalid_dtype(name, other))
        }
        ReduceOp::Any if a.dtype == DType::Bool => any::<u8>(a, bool_byte),
        ReduceOp::All if a.dtype == DType::Bool => all::<u8>(a, bool_byte),
        ReduceOp::Any | ReduceOp::All => invalid_dtype(name, a.dtype),
    }
}
