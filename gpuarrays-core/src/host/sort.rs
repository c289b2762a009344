//! Sorting rows in place, finding true positions and searching sorted tables, on the host.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::host::io::{read_vec, write_slice};
use crate::host::semantics::{Ordered, Stored};
use crate::kernel::{FindArgs, SearchArgs, Side, SortArgs};

/// Sorts each row of `len` elements of `v` ascending, NaNs last. `sort_cmp` is a total
/// order of the stored values (ties only between equal bits), so any sorting algorithm, the
/// CPU reference's parallel one included, puts the same bits in the same place.
pub fn sort_rows<T: Ordered>(v: &mut [T], len: usize) {
    for row in v.chunks_mut(len) {
        row.sort_unstable_by(T::sort_cmp);
    }
}

fn sort_typed<T: Pod + Ordered, B: HostStorage>(
    backend: &B,
    a: &SortArgs<'_, B::Buffer>,
) -> Result<()> {
    let mut v: Vec<T> = read_vec(backend, a.buffer, a.offset, a.rows * a.len)?;
    sort_rows(&mut v, a.len);
    write_slice(backend, a.buffer, a.offset, &v)
}

/// Sorts rows in place on the host (bool as its byte: false < true).
pub fn sort<B: HostStorage>(backend: &B, a: &SortArgs<'_, B::Buffer>) -> Result<()> {
    crate::dispatch_dtype!(a.dtype, [Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
    T => sort_typed::<Stored<T>, B>(backend, a),
    else other => Err(Error::invalid_dtype(
        "sort",
        other,
        "the host sort has no kernel for this type; core's type rules exclude it",
    )))
}

/// The positions of the non-zero bytes of `mask`, ascending, as i64.
pub fn true_positions(mask: &[u8]) -> Vec<i64> {
    mask.iter()
        .enumerate()
        .filter(|(_, b)| **b != 0)
        .map(|(i, _)| i as i64)
        .collect()
}

/// Finds the true positions on the host: a new buffer of ascending i64 and their count.
pub fn find<B: HostStorage>(
    backend: &B,
    a: &FindArgs<'_, B::Buffer>,
) -> Result<(B::Buffer, usize)> {
    let mask: Vec<u8> = read_vec(backend, a.input, a.offset, a.len)?;
    let positions = true_positions(&mask);
    let out = backend.alloc_bytes(positions.len() * size_of::<i64>())?;
    if !positions.is_empty()
        && let Err(e) = write_slice(backend, &out, 0, &positions)
    {
        backend.release_buffer(out);
        return Err(e);
    }
    Ok((out, positions.len()))
}

/// The insertion point of `value` in the ascending `table` by binary search: the number of
/// keys smaller than it ([`Side::Left`]) or not larger ([`Side::Right`]). A table that is
/// not ascending gives some position in `0..=table.len()`.
pub fn insertion_point<T: Ord + Copy>(table: &[T], value: T, side: Side) -> usize {
    match side {
        Side::Left => table.partition_point(|&x| x < value),
        Side::Right => table.partition_point(|&x| x <= value),
    }
}

fn search_typed<T: Pod + Ord, B: HostStorage>(
    backend: &B,
    a: &SearchArgs<'_, B::Buffer>,
) -> Result<()> {
    let table: Vec<T> = read_vec(backend, a.table, a.table_offset, a.table_len)?;
    let values: Vec<T> = read_vec(backend, a.values, a.values_offset, a.len)?;
    let out: Vec<i64> = values
        .iter()
        .map(|&v| insertion_point(&table, v, a.side) as i64)
        .collect();
    write_slice(backend, a.output, a.output_offset, &out)
}

/// Searches a sorted table of u32 or u64 keys on the host.
pub fn search_sorted<B: HostStorage>(backend: &B, a: &SearchArgs<'_, B::Buffer>) -> Result<()> {
    match a.dtype {
        DType::U32 => search_typed::<u32, B>(backend, a),
        DType::U64 => search_typed::<u64, B>(backend, a),
        other => Err(Error::invalid_dtype(
            "searchsorted",
            other,
            "the search kernel takes u32 or u64 order keys; core converts other types",
        )),
    }
}
