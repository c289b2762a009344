//! Reductions. Work is split into fixed-size blocks (never by thread count), and block
//! results are combined in a fixed order, so results do not depend on the number of threads.

use gpuarrays_core::kernel::{ReduceArgs, ReduceOp};
use rayon::prelude::*;

use gpuarrays_core::dispatch_dtype;

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use crate::semantics::{Arith, Bits, Ordered};

/// Elements per block of a contiguous reduction.
const BLOCK: usize = 1 << 14;
/// Independent accumulators within a block, so the compiler can vectorise.
const LANES: usize = 8;
/// Inner positions handled by one task of a strided reduction.
const INNER_CHUNK: usize = 512;

/// Reduces `x` (non-empty) with `map`/`combine`, lane-parallel, in a fixed order.
fn fold_run<T: Copy, A: Copy>(
    x: &[T],
    k0: usize,
    map: &impl Fn(T, usize) -> A,
    combine: &impl Fn(A, A) -> A,
) -> A {
    let lanes = LANES.min(x.len());
    let mut acc: [Option<A>; LANES] = [None; LANES];
    for (j, a) in acc.iter_mut().enumerate().take(lanes) {
        *a = Some(map(x[j], k0 + j));
    }
    let mut k = lanes;
    while k + LANES <= x.len() {
        for (j, a) in acc.iter_mut().enumerate() {
            if let Some(v) = a {
                *v = combine(*v, map(x[k + j], k0 + k + j));
            }
        }
        k += LANES;
    }
    for j in k..x.len() {
        let lane = &mut acc[j % LANES];
        if let Some(v) = lane {
            *v = combine(*v, map(x[j], k0 + j));
        }
    }
    let mut it = acc.into_iter().flatten();
    let first = it.next().unwrap_or_else(|| map(x[0], k0));
    it.fold(first, combine)
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
    if inner == 1 {
        let blocks = len.div_ceil(BLOCK);
        let partial: Vec<A> = (0..outer * blocks)
            .into_par_iter()
            .map(|t| {
                let (o, b) = (t / blocks, t % blocks);
                let start = b * BLOCK;
                let run = &x[o * len + start..o * len + (start + BLOCK).min(len)];
                fold_run(run, start, &map, &combine)
            })
            .collect();
        out.par_iter_mut()
            .zip(partial.par_chunks(blocks))
            .for_each(|(o, p)| {
                *o = finish(p[1..].iter().fold(p[0], |a, &b| combine(a, b)));
            });
    } else {
        // Rows in parallel, and within a row its column chunks in parallel (an axis-0
        // reduction has one row: measured single-threaded before this split).
        out.par_chunks_mut(inner).enumerate().for_each(|(o, row)| {
            row.par_chunks_mut(INNER_CHUNK)
                .enumerate()
                .for_each(|(c, seg)| {
                    let base = o * len * inner + c * INNER_CHUNK;
                    let mut acc: Vec<A> = x[base..base + seg.len()]
                        .iter()
                        .map(|&v| map(v, 0))
                        .collect();
                    for k in 1..len {
                        let xs = &x[base + k * inner..base + k * inner + seg.len()];
                        for (a, &v) in acc.iter_mut().zip(xs) {
                            *a = combine(*a, map(v, k));
                        }
                    }
                    for (r, a) in seg.iter_mut().zip(acc) {
                        *r = finish(a);
                    }
                });
        });
    }
    Ok(())
}

fn sum<T: Arith>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.add(q), |p| p)
}
fn prod<T: Arith>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.mul(q), |p| p)
}
fn min<T: Ordered>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.min_(q), |p| p)
}
fn max<T: Ordered>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.max_(q), |p| p)
}
fn any<T: Bits>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.or(q), |p| p)
}
fn all<T: Bits>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, T, T>(a, |x, _| x, |p, q| p.and(q), |p| p)
}

/// The better of two (value, index) candidates: NaN beats numbers, then the smaller (or
/// larger) value, then the lower index. Symmetric, so any combination order agrees.
fn better<T: Ordered>(a: (T, i64), b: (T, i64), want_min: bool) -> (T, i64) {
    let lower = if a.1 <= b.1 { a } else { b };
    match (a.0.is_nan(), b.0.is_nan()) {
        (true, true) => lower,
        (true, false) => a,
        (false, true) => b,
        _ if a.0 == b.0 => lower,
        _ if (b.0 < a.0) == want_min => b,
        _ => a,
    }
}

fn argmin<T: Ordered>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, (T, i64), i64>(a, |x, k| (x, k as i64), |p, q| better(p, q, true), |p| p.1)
}
fn argmax<T: Ordered>(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    fold::<T, (T, i64), i64>(a, |x, k| (x, k as i64), |p, q| better(p, q, false), |p| p.1)
}

/// Runs a reduction.
pub(crate) fn run(a: &ReduceArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    let name = a.op.name();
    match a.op {
        ReduceOp::Sum => dispatch_dtype!(a.dtype, [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            T => sum::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::Prod => dispatch_dtype!(a.dtype, [U8, I32, U32, I64, U64, F32, F64, C32, C64],
            T => prod::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::Min => dispatch_dtype!(a.dtype, [Bool, U8, I32, U32, I64, U64, F32, F64],
            T => min::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::Max => dispatch_dtype!(a.dtype, [Bool, U8, I32, U32, I64, U64, F32, F64],
            T => max::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::ArgMin => dispatch_dtype!(a.dtype, [Bool, U8, I32, U32, I64, U64, F32, F64],
            T => argmin::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::ArgMax => dispatch_dtype!(a.dtype, [Bool, U8, I32, U32, I64, U64, F32, F64],
            T => argmax::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::Any => dispatch_dtype!(a.dtype, [Bool],
            T => any::<Stored<T>>(a), else other => invalid_dtype(name, other)),
        ReduceOp::All => dispatch_dtype!(a.dtype, [Bool],
            T => all::<Stored<T>>(a), else other => invalid_dtype(name, other)),
    }
}
