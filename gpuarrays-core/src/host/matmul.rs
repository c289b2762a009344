//! Batched matrix products on the host, and the row kernel the CPU reference backend runs
//! on each output row in parallel.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::error::{Error, Result};
use crate::host::io::{read_vec, write_slice};
use crate::host::semantics::{Accumulate, Arith, Stored};
use crate::kernel::MatmulArgs;

/// One output row: `row[j] = Σ_k a_row[k] · b[k·n + j]`, accumulated over `k` in order in
/// the element type (the i-k-j loop, which streams rows of `b`). `b` holds `a_row.len()`
/// rows of `row.len()` elements.
#[inline]
pub fn matmul_row<T: Arith>(row: &mut [T], a_row: &[T], b: &[T]) {
    let n = row.len();
    row.fill(T::ZERO);
    for (kk, &x) in a_row.iter().enumerate() {
        for (o, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
            *o = o.add(x.mul(y));
        }
    }
}

/// The product in [`Accumulate::Acc`] (f32 for the half types, which round once at the end;
/// every other type computes in itself).
fn matmul_typed<T: Pod + Accumulate, B: HostStorage>(
    backend: &B,
    a: &MatmulArgs<'_, B::Buffer>,
) -> Result<()> {
    let (m, n, k) = (a.m, a.n, a.k);
    let span = |stride: usize, per: usize| (a.batch - 1) * stride + per;
    let wide = |v: Vec<T>| -> Vec<T::Acc> { v.into_iter().map(Accumulate::to_acc).collect() };
    let lhs = wide(read_vec(
        backend,
        a.a,
        a.a_offset,
        span(a.a_batch_stride, m * k),
    )?);
    let rhs = wide(read_vec(
        backend,
        a.b,
        a.b_offset,
        span(a.b_batch_stride, k * n),
    )?);
    let mut out = vec![<T::Acc as Arith>::ZERO; a.batch * m * n];
    for (r, row) in out.chunks_mut(n).enumerate() {
        let (b, i) = (r / m, r % m);
        let a_row = &lhs[b * a.a_batch_stride + i * k..][..k];
        matmul_row(row, a_row, &rhs[b * a.b_batch_stride..]);
    }
    let out: Vec<T> = out.into_iter().map(T::from_acc).collect();
    write_slice(backend, a.output, a.output_offset, &out)
}

/// Runs a (batched) matrix product on the host.
pub fn matmul<B: HostStorage>(backend: &B, a: &MatmulArgs<'_, B::Buffer>) -> Result<()> {
    crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
    T => matmul_typed::<Stored<T>, B>(backend, a),
    else other => Err(Error::invalid_dtype(
        "matmul",
        other,
        "the host matmul has no kernel for this type; core's type rules exclude it",
    )))
}
