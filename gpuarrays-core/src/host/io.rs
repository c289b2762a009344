//! Moving typed elements between a backend's buffers and host vectors, through the
//! backend's own `read` and `write`: the only device access the kit's kernels make.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::error::Result;

/// `len` elements of type `T` at element position `offset` of `buffer`.
pub(crate) fn read_vec<T: Pod, B: HostStorage>(
    backend: &B,
    buffer: &B::Buffer,
    offset: usize,
    len: usize,
) -> Result<Vec<T>> {
    let mut v = vec![T::zeroed(); len];
    backend.read_bytes(
        buffer,
        offset * size_of::<T>(),
        bytemuck::cast_slice_mut(&mut v),
    )?;
    Ok(v)
}

/// Writes `values` at element position `offset` of `buffer`.
pub(crate) fn write_slice<T: Pod, B: HostStorage>(
    backend: &B,
    buffer: &B::Buffer,
    offset: usize,
    values: &[T],
) -> Result<()> {
    backend.write_bytes(
        buffer,
        offset * size_of::<T>(),
        bytemuck::cast_slice(values),
    )
}
