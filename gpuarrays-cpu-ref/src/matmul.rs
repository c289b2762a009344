//! Batched matrix products: each output row is accumulated over k in order (i-k-j loop,
//! which streams rows of the right-hand side; core's `host::matmul_row`, shared with the
//! small-backend kit), rows in parallel.

use gpuarrays_core::kernel::MatmulArgs;
use rayon::prelude::*;

use gpuarrays_core::dispatch_dtype;
use gpuarrays_core::host::matmul_row;

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use gpuarrays_core::host::semantics::Arith;

fn matmul<T: Arith>(a: &MatmulArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    distinct(a.a, a.output)?;
    distinct(a.b, a.output)?;
    let (m, n, k) = (a.m, a.n, a.k);
    let span = |stride: usize, per: usize| (a.batch - 1) * stride + per;
    // SAFETY: inputs are only read; the output is a distinct buffer only this call writes.
    let lhs: &[T] = unsafe { a.a.slice(a.a_offset, span(a.a_batch_stride, m * k))? };
    // SAFETY: as above.
    let rhs: &[T] = unsafe { a.b.slice(a.b_offset, span(a.b_batch_stride, k * n))? };
    // SAFETY: as above.
    let out: &mut [T] = unsafe { a.output.slice_mut(a.output_offset, a.batch * m * n)? };
    out.par_chunks_mut(n)
        .enumerate()
        .with_min_len(crate::parallel::min_len())
        .for_each(|(r, row)| {
            let (b, i) = (r / m, r % m);
            let ar = &lhs[b * a.a_batch_stride + i * k..][..k];
            matmul_row(row, ar, &rhs[b * a.b_batch_stride..]);
        });
    Ok(())
}

pub(crate) fn run(a: &MatmulArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    dispatch_dtype!(a.dtype, [U8, I32, U32, I64, U64, F32, F64, C32, C64],
        T => matmul::<Stored<T>>(a), else other => invalid_dtype("matmul", other))
}
