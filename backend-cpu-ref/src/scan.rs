//! Inclusive scans: each (outer, inner) line is scanned sequentially in order, lines in
//! parallel, so results do not depend on the thread count.

use gpuarrays_core::kernel::{ScanArgs, ScanOp};
use rayon::prelude::*;

use gpuarrays_core::dispatch_dtype;

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use crate::semantics::Arith;

fn scan<T: Arith>(a: &ScanArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    distinct(a.input, a.output)?;
    let (outer, len, inner) = (a.outer, a.len, a.inner);
    let n = outer * len * inner;
    // SAFETY: distinct buffers; core holds them for this call only.
    let x: &[T] = unsafe { a.input.slice(a.input_offset, n)? };
    // SAFETY: as above; only this call writes the output range.
    let y: &mut [T] = unsafe { a.output.slice_mut(a.output_offset, n)? };
    let combine = |p: T, q: T| match a.op {
        ScanOp::Sum => p.add(q),
        ScanOp::Prod => p.mul(q),
    };
    y.par_chunks_mut(len * inner)
        .zip(x.par_chunks(len * inner))
        .for_each(|(ys, xs)| {
            ys[..inner].copy_from_slice(&xs[..inner]);
            for k in 1..len {
                let (done, rest) = ys.split_at_mut(k * inner);
                let prev = &done[(k - 1) * inner..];
                for ((out, &p), &v) in rest[..inner]
                    .iter_mut()
                    .zip(prev)
                    .zip(&xs[k * inner..(k + 1) * inner])
                {
                    *out = combine(p, v);
                }
            }
        });
    Ok(())
}

pub(crate) fn run(a: &ScanArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    dispatch_dtype!(a.dtype, [U8, I32, U32, I64, U64, F32, F64, C32, C64],
        T => scan::<Stored<T>>(a), else other => invalid_dtype(a.op.name(), other))
}
