//! Gathers and scatters on the host (semantics in [`crate::kernel::indexing`]).
//!
//! Gathers and stores move bytes, so one untyped loop serves every element type; adding
//! needs the type's arithmetic. Each operand's reachable span is read once, the loop runs
//! in row-major order of the index space (so a scatter's repeated updates land in that
//! order: the last store wins, sums add in order), and the written span goes back whole.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::error::{Error, Result};
use crate::host::io::read_vec;
use crate::host::semantics::{Arith, Stored};
use crate::kernel::indexing::{GatherArgs, IndexSpace, ScatterArgs, ScatterOp, Strided3};

/// The span of `s` over `dims` as element positions, and its bytes read from the device.
fn read_span<B: HostStorage>(
    backend: &B,
    s: &Strided3<'_, B::Buffer>,
    dims: [usize; 3],
    size: usize,
) -> Result<(usize, Vec<u8>)> {
    let span = s.span(dims);
    let mut bytes = vec![0u8; span.len() * size];
    backend.read_bytes(s.buffer, span.start * size, &mut bytes)?;
    Ok((span.start, bytes))
}

/// The positions along the indexed axis, one per point of the index space, row-major.
pub fn positions<B: HostStorage>(
    backend: &B,
    space: &IndexSpace<'_, B::Buffer>,
) -> Result<Vec<usize>> {
    positions_and_range(backend, space).map(|(p, _)| p)
}

/// [`positions`], and whether every index lies in `-extent..extent` (the `Raise` rule).
fn positions_and_range<B: HostStorage>(
    backend: &B,
    space: &IndexSpace<'_, B::Buffer>,
) -> Result<(Vec<usize>, bool)> {
    let span = space.index.span(space.dims);
    let raw: Vec<i64> = read_vec(backend, space.index.buffer, span.start, span.len())?;
    let mut out = Vec::with_capacity(space.len());
    let n = i64::try_from(space.extent).unwrap_or(i64::MAX);
    let mut in_range = true;
    let [outer, count, inner] = space.dims;
    for o in 0..outer {
        for j in 0..count {
            for k in 0..inner {
                let r = raw[space.index.at(o, j, k) - span.start];
                in_range &= (-n..n).contains(&r);
                out.push(space.mode.position(r, space.extent));
            }
        }
    }
    Ok((out, in_range))
}

/// Gathers on the host: reads the index and the source's span, writes the output (and sets
/// the report of [`GatherArgs::out_of_range`] when asked and an index is out of range).
pub fn gather<B: HostStorage>(backend: &B, a: &GatherArgs<'_, B::Buffer>) -> Result<()> {
    let size = a.dtype.size();
    let [outer, count, inner] = a.space.dims;
    let table = [outer, a.space.extent, inner];
    let (base, src) = read_span(backend, &a.source, table, size)?;
    let (pos, in_range) = positions_and_range(backend, &a.space)?;
    if let Some(report) = a.out_of_range.filter(|_| !in_range) {
        backend.write_bytes(report, 0, &1u32.to_ne_bytes())?;
    }
    let mut out = vec![0u8; pos.len() * size];
    let mut i = 0;
    for o in 0..outer {
        for _ in 0..count {
            for k in 0..inner {
                let from = (a.source.at(o, pos[i], k) - base) * size;
                out[i * size..(i + 1) * size].copy_from_slice(&src[from..from + size]);
                i += 1;
            }
        }
    }
    backend.write_bytes(a.output, a.output_offset * size, &out)
}

/// Scatters on the host: reads the target's span, applies every update in row-major order
/// of the index space, writes the span back.
pub fn scatter<B: HostStorage>(backend: &B, a: &ScatterArgs<'_, B::Buffer>) -> Result<()> {
    match a.op {
        ScatterOp::Assign => scatter_with(backend, a, |dst, src| dst.copy_from_slice(src)),
        ScatterOp::Add => {
            crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => scatter_with(backend, a, add_bytes::<Stored<T>>),
            else other => Err(Error::invalid_dtype(
                "scatter_add",
                other,
                "bool is not added; core's type rules exclude it",
            )))
        }
    }
}

/// `dst += src` for one element of `T` held as bytes (unaligned).
fn add_bytes<T: Pod + Arith>(dst: &mut [u8], src: &[u8]) {
    let sum = bytemuck::pod_read_unaligned::<T>(dst).add(bytemuck::pod_read_unaligned::<T>(src));
    dst.copy_from_slice(bytemuck::bytes_of(&sum));
}

fn scatter_with<B: HostStorage>(
    backend: &B,
    a: &ScatterArgs<'_, B::Buffer>,
    apply: impl Fn(&mut [u8], &[u8]),
) -> Result<()> {
    let size = a.dtype.size();
    let [outer, count, inner] = a.space.dims;
    let (tbase, mut target) = read_span(backend, &a.target, [outer, a.space.extent, inner], size)?;
    let (vbase, values) = read_span(backend, &a.values, a.space.dims, size)?;
    let pos = positions(backend, &a.space)?;
    let mut i = 0;
    for o in 0..outer {
        for j in 0..count {
            for k in 0..inner {
                let t = (a.target.at(o, pos[i], k) - tbase) * size;
                let v = (a.values.at(o, j, k) - vbase) * size;
                apply(&mut target[t..t + size], &values[v..v + size]);
                i += 1;
            }
        }
    }
    backend.write_bytes(a.target.buffer, tbase * size, &target)
}
