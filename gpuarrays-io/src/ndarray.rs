//! Conversion to and from [`ndarray`] arrays.
//!
//! Users bring data in `ndarray` more often than in files. Any `ndarray` layout converts:
//! a standard-layout (row-major, contiguous) array is uploaded straight from its slice with
//! no host copy; any other (transposed, sliced with steps, negative strides) is gathered in
//! logical order first, so the gpuarrays array always holds the same elements at the same
//! indices. The way back downloads row-major and builds an `ArrayD` of the same shape.
//!
//! Orphan rules forbid `From`/`TryFrom` between two foreign types, so the conversions are
//! free functions ([`to_ndarray`], [`from_ndarray`]) plus the extension traits
//! [`ToNdarray`] and [`FromNdarray`] for method syntax.

use gpuarrays_core::{Array, Backend, Element};
use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};

use crate::error::{Error, Format, Result};

/// Downloads `array` (any strides) as an `ndarray::ArrayD` of the same shape.
pub fn to_ndarray<T: Element, B: Backend>(array: &Array<T, B>) -> Result<ArrayD<T>> {
    let values = array.to_vec()?;
    ArrayD::from_shape_vec(IxDyn(array.dims()), values)
        .map_err(|e| Error::malformed(Format::Ndarray, format!("shape {:?}: {e}", array.dims())))
}

/// Uploads an `ndarray` array of any layout to `backend`, keeping its shape and element
/// order.
pub fn from_ndarray<T, S, D, B>(backend: &B, array: &ArrayBase<S, D>) -> Result<Array<T, B>>
where
    T: Element,
    S: Data<Elem = T>,
    D: Dimension,
    B: Backend,
{
    let dims = array.shape();
    match array.as_slice() {
        Some(values) => Ok(Array::from_slice(backend, dims, values)?),
        None => {
            let values: Vec<T> = array.iter().copied().collect();
            Ok(Array::from_slice(backend, dims, &values)?)
        }
    }
}

/// `array.to_ndarray()` for a gpuarrays array.
pub trait ToNdarray<T: Element> {
    /// See [`to_ndarray`].
    fn to_ndarray(&self) -> Result<ArrayD<T>>;
}

impl<T: Element, B: Backend> ToNdarray<T> for Array<T, B> {
    fn to_ndarray(&self) -> Result<ArrayD<T>> {
        to_ndarray(self)
    }
}

/// `nd.to_gpuarrays(&backend)` for an `ndarray` array.
pub trait FromNdarray<T: Element> {
    /// See [`from_ndarray`].
    fn to_gpuarrays<B: Backend>(&self, backend: &B) -> Result<Array<T, B>>;
}

impl<T: Element, S: Data<Elem = T>, D: Dimension> FromNdarray<T> for ArrayBase<S, D> {
    fn to_gpuarrays<B: Backend>(&self, backend: &B) -> Result<Array<T, B>> {
        from_ndarray(backend, self)
    }
}
