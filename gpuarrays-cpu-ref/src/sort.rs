//! Sorting rows in place, finding true positions and searching sorted tables.

use gpuarrays_core::DType;
use gpuarrays_core::host::insertion_point;
use gpuarrays_core::kernel::{FindArgs, SearchArgs, SortArgs};
use rayon::prelude::*;

use gpuarrays_core::dispatch_dtype;

use crate::buffer::{CpuBuffer, Stored};
use crate::error::{CpuError, invalid_dtype};
use gpuarrays_core::host::semantics::Ordered;

fn sort<T: Ordered>(a: &SortArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    // SAFETY: core passes a fresh copy that only this call touches.
    let v: &mut [T] = unsafe { a.buffer.slice_mut(a.offset, a.rows * a.len)? };
    // `sort_cmp` is a total order of the stored values (ties only between equal bits), so
    // the parallel and the serial sort give the same result.
    if a.rows == 1 && !crate::parallel::is_serial() {
        v.par_sort_unstable_by(T::sort_cmp);
    } else {
        v.par_chunks_mut(a.len)
            .with_min_len(crate::parallel::min_len())
            .for_each(|row| row.sort_unstable_by(T::sort_cmp));
    }
    Ok(())
}

/// Sorts rows ascending, NaNs last (bool is sorted as its byte: false < true).
pub(crate) fn run(a: &SortArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    dispatch_dtype!(a.dtype, [Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
        T => sort::<Stored<T>>(a), else other => invalid_dtype("sort", other))
}

/// Positions per block of `find`: counts per block in parallel, then a prefix sum, then
/// each block writes its positions at its offset.
const FIND_BLOCK: usize = 1 << 16;

/// Returns a buffer of the ascending i64 positions of true bytes, and their count.
pub(crate) fn find(a: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize), CpuError> {
    // SAFETY: core holds the mask for this call only; nothing writes it.
    let mask: &[u8] = unsafe { a.input.slice(a.offset, a.len)? };
    let counts: Vec<usize> = mask
        .par_chunks(FIND_BLOCK)
        .with_min_len(crate::parallel::min_len())
        .map(|c| c.iter().filter(|&&b| b != 0).count())
        .collect();
    let mut total = 0usize;
    for c in &counts {
        total += c;
    }
    let out = CpuBuffer::new(total * 8)?;
    {
        // SAFETY: `out` is new and private to this function.
        let pos: &mut [i64] = unsafe { out.slice_mut(0, total)? };
        let mut slices: Vec<&mut [i64]> = Vec::with_capacity(counts.len());
        let mut rest = pos;
        for &c in &counts {
            let (head, tail) = rest.split_at_mut(c);
            slices.push(head);
            rest = tail;
        }
        slices
            .into_par_iter()
            .zip(mask.par_chunks(FIND_BLOCK))
            .enumerate()
            .with_min_len(crate::parallel::min_len())
            .for_each(|(b, (dst, chunk))| {
                let base = b * FIND_BLOCK;
                let hits = chunk
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0)
                    .map(|(i, _)| (base + i) as i64);
                for (d, p) in dst.iter_mut().zip(hits) {
                    *d = p;
                }
            });
    }
    Ok((out, total))
}

fn search<T: Ord + Copy + Send + Sync + bytemuck::Pod>(
    a: &SearchArgs<'_, CpuBuffer>,
) -> Result<(), CpuError> {
    // SAFETY: core gives the search a new output; the table and the values are only read
    // during the call (they may share a buffer with each other, not with the output).
    let (table, values): (&[T], &[T]) = unsafe {
        (
            a.table.slice(a.table_offset, a.table_len)?,
            a.values.slice(a.values_offset, a.len)?,
        )
    };
    // SAFETY: as above: the output is new and only this call writes it.
    let out: &mut [i64] = unsafe { a.output.slice_mut(a.output_offset, a.len)? };
    out.par_iter_mut()
        .zip(values.par_iter())
        .with_min_len(crate::parallel::min_len())
        .for_each(|(o, &v)| *o = insertion_point(table, v, a.side) as i64);
    Ok(())
}

/// Insertion points of u32 or u64 keys in an ascending table, by binary search.
pub(crate) fn search_sorted(a: &SearchArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    match a.dtype {
        DType::U32 => search::<u32>(a),
        DType::U64 => search::<u64>(a),
        other => invalid_dtype("searchsorted", other),
    }
}
