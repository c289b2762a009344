//! Moving bytes between the host and an array on any backend.
//!
//! Every reader in this crate ends with little-endian, row-major bytes of one [`DType`] and a
//! shape; every writer starts from them. These two functions are that boundary, written once
//! over the public transfer API of core ([`Array::from_slice`], [`RawArray::to_bytes`]), so
//! that the formats know nothing of backends and every backend gets every format.

use gpuarrays_core::{Array, Backend, DType, Element, RawArray, dispatch_dtype};

use crate::error::Result;

/// Uploads little-endian row-major `bytes` of `dtype` as a contiguous array of shape `dims`.
/// `bytes.len()` must be `dims`' element count times the element size (the callers checked);
/// core fails otherwise. A bool is true for any nonzero byte (NumPy's rule).
pub(crate) fn upload<B: Backend>(
    backend: &B,
    dtype: DType,
    dims: &[usize],
    bytes: &[u8],
) -> Result<RawArray<B>> {
    dispatch_dtype!(dtype, T => {
        let values = T::from_bytes(bytes)?;
        Ok(Array::<T, B>::from_slice(backend, dims, &values)?.into_raw())
    })
}

/// Downloads an array (any strides) as little-endian row-major bytes. Bools come back as
/// exactly 0 or 1, the bytes NumPy and safetensors write.
pub(crate) fn download<B: Backend>(array: &RawArray<B>) -> Result<Vec<u8>> {
    let mut bytes = array.to_bytes()?;
    if array.dtype() == DType::Bool {
        for b in &mut bytes {
            *b = u8::from(*b != 0);
        }
    }
    Ok(bytes)
}

/// The element count of a shape read from a file, or `None` if it overflows `usize`. Any
/// zero-length axis makes the count 0 whatever the others are.
pub(crate) fn checked_numel(dims: &[usize]) -> Option<usize> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// Reverses the byte order of each scalar of `bytes` (each component of a complex).
pub(crate) fn swap_bytes(bytes: &mut [u8], dtype: DType) {
    let component = if dtype.is_complex() {
        dtype.size() / 2
    } else {
        dtype.size()
    };
    if component > 1 {
        for scalar in bytes.chunks_exact_mut(component) {
            scalar.reverse();
        }
    }
}
