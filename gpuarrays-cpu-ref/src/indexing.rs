//! Gathers and scatters (semantics in `gpuarrays_core::kernel::indexing`).
//!
//! A gather splits its output into fixed blocks over the pool. A scatter must give the
//! same result whatever the split, so it splits by what two updates of one element always
//! share: updates of one target element have the same outer and inner coordinates
//! `(o, k)` (distinct `(o, p, k)` reach distinct elements, core guarantees), so each task
//! owns some `(o, k)` pairs and walks their updates `j = 0, 1, ..` in order. A repeated
//! store therefore keeps the last update in row-major order and a sum adds in that order,
//! exactly as the host kit's serial loop does.

use std::sync::atomic::{AtomicBool, Ordering};

use bytemuck::Pod;
use gpuarrays_core::dispatch_dtype;
use gpuarrays_core::host::semantics::Arith;
use gpuarrays_core::kernel::{GatherArgs, IndexSpace, ScatterArgs, ScatterOp, Strided3};
use rayon::prelude::*;

use crate::buffer::{CpuBuffer, Stored};
use crate::error::{CpuError, invalid_dtype};

/// Output elements per gather task.
const BLOCK: usize = 1 << 14;

/// A shared view of an operand's whole span, and the span's first position.
///
/// # Safety
/// No one may write the span while the slice lives.
unsafe fn span_of<'a, T>(
    s: &Strided3<'a, CpuBuffer>,
    dims: [usize; 3],
) -> Result<(usize, &'a [T]), CpuError> {
    let span = s.span(dims);
    // SAFETY: the caller excludes writers of the span.
    let v = unsafe { s.buffer.slice::<T>(span.start, span.len())? };
    Ok((span.start, v))
}

/// The index array of `space`, read where it lies.
///
/// # Safety
/// No one may write the index while the reader lives.
unsafe fn index_reader<'a>(
    space: &'a IndexSpace<'a, CpuBuffer>,
) -> Result<impl Fn(usize, usize, usize) -> usize + Sync + 'a, CpuError> {
    // SAFETY: the caller excludes writers of the index.
    let (base, raw) = unsafe { span_of::<i64>(&space.index, space.dims)? };
    Ok(move |o, j, k| {
        space
            .mode
            .position(raw[space.index.at(o, j, k) - base], space.extent)
    })
}

fn gather<T: Pod + Send + Sync>(a: &GatherArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    let [outer, count, inner] = a.space.dims;
    // SAFETY: core gives the gather a new output, so nothing writes the index or the
    // source (which may share a buffer with each other, both read) during the call.
    let (index_base, raw) = unsafe { span_of::<i64>(&a.space.index, a.space.dims)? };
    // SAFETY: as above.
    let (base, src) = unsafe { span_of::<T>(&a.source, [outer, a.space.extent, inner])? };
    // SAFETY: the output is a new array no other call touches.
    let out: &mut [T] = unsafe { a.output.slice_mut(a.output_offset, outer * count * inner)? };
    let n = i64::try_from(a.space.extent).unwrap_or(i64::MAX);
    let report = a.out_of_range.is_some();
    let out_of_range = AtomicBool::new(false);
    out.par_chunks_mut(BLOCK)
        .with_min_len(crate::parallel::min_len())
        .enumerate()
        .for_each(|(b, chunk)| {
            let mut bad = false;
            for (i, y) in (b * BLOCK..).zip(chunk.iter_mut()) {
                let (o, jk) = (i / (count * inner), i % (count * inner));
                let (j, k) = (jk / inner, jk % inner);
                let r = raw[a.space.index.at(o, j, k) - index_base];
                bad |= report && !(-n..n).contains(&r);
                let p = a.space.mode.position(r, a.space.extent);
                *y = src[a.source.at(o, p, k) - base];
            }
            if bad {
                out_of_range.store(true, Ordering::Relaxed);
            }
        });
    match a.out_of_range {
        Some(flag) if out_of_range.into_inner() => flag.write_bytes(0, &1u32.to_ne_bytes()),
        _ => Ok(()),
    }
}

/// Runs a gather.
pub(crate) fn run_gather(a: &GatherArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    dispatch_dtype!(a.dtype, T => gather::<Stored<T>>(a))
}

/// The target's span as a raw pointer that tasks owning distinct `(o, k)` pairs write
/// through concurrently.
#[derive(Clone, Copy)]
struct Target<T>(*mut T);
// SAFETY: tasks write disjoint elements through it (module docs), and the target is
// excluded from every other access for the call (`CpuBackend::scatter`'s access set).
unsafe impl<T: Send> Send for Target<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Target<T> {}

fn scatter<T: Pod + Send + Sync>(
    a: &ScatterArgs<'_, CpuBuffer>,
    apply: impl Fn(&mut T, T) + Send + Sync,
) -> Result<(), CpuError> {
    let [outer, count, inner] = a.space.dims;
    // SAFETY: core copies an index or values lying in the target's buffer, so nothing
    // writes them during the call.
    let position = unsafe { index_reader(&a.space)? };
    // SAFETY: as above.
    let (vbase, values) = unsafe { span_of::<T>(&a.values, a.space.dims)? };
    let span = a.target.span([outer, a.space.extent, inner]);
    let target = Target(a.target.buffer.ptr::<T>(span.start, span.len())?);
    (0..outer * inner)
        .into_par_iter()
        .with_min_len(crate::parallel::min_len().max(64))
        .for_each(move |ok| {
            let target = target;
            let (o, k) = (ok / inner, ok % inner);
            for j in 0..count {
                let t = a.target.at(o, position(o, j, k), k) - span.start;
                let v = values[a.values.at(o, j, k) - vbase];
                // SAFETY: `t` lies in the span `ptr` checked; only this task writes the
                // elements of its `(o, k)` pair (module docs).
                apply(unsafe { &mut *target.0.add(t) }, v);
            }
        });
    Ok(())
}

/// Runs a scatter.
pub(crate) fn run_scatter(a: &ScatterArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    match a.op {
        ScatterOp::Assign => dispatch_dtype!(a.dtype, T => scatter::<Stored<T>>(a, |t, v| *t = v)),
        ScatterOp::Add => {
            dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => scatter::<Stored<T>>(a, |t, v| *t = t.add(v)),
            else other => invalid_dtype("scatter_add", other))
        }
    }
}
