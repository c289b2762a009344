//! Gathers: `take` (NumPy `take`, PyTorch `index_select` for 1-D indices) and
//! `take_along_axis` (NumPy; PyTorch `gather`). One kernel each, reading the source where
//! it lies (strided, reversed and broadcast views included) and writing a new contiguous
//! array.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::IndexMode;
use crate::ops::index_space::{Folded, as_i64, check_gather_space, gather};
use crate::shape;

impl<B: Backend> RawArray<B> {
    /// The elements at `indices` along `axis` (NumPy `take`): the result has the shape
    /// `dims[..axis] + indices.dims + dims[axis + 1..]`; with `axis` `None` the array is read
    /// flattened (row-major) and the result has the indices' shape. Indices are integers of
    /// any type (converted to i64); `mode` says what an index outside the axis means
    /// ([`IndexMode`]: an error, wrapped, or clamped).
    pub fn take(
        &self,
        indices: &RawArray<B>,
        axis: Option<usize>,
        mode: IndexMode,
    ) -> Result<RawArray<B>> {
        let op = "take";
        self.same_device(op, indices)?;
        let index = as_i64(op, indices)?;
        let flat;
        let (source, axis) = match axis {
            Some(axis) => {
                shape::check_axis(op, axis, self.ndim())?;
                (self, axis)
            }
            None => {
                flat = self.flattened()?;
                (&flat, 0)
            }
        };
        let (outer, extent, inner) = shape::split_at_axis(&source.dims, axis);
        let count = index.len();
        let mut out_dims = source.dims[..axis].to_vec();
        out_dims.extend_from_slice(&index.dims);
        out_dims.extend_from_slice(&source.dims[axis + 1..]);
        let dims = [outer, count, inner];
        if !check_gather_space(op, self.dtype, &index, outer * count * inner, extent, mode)? {
            source.ensure_alive()?;
            return RawArray::alloc(&self.backend, self.dtype, &out_dims);
        }
        let src = Folded::new(source, axis..axis + 1)?;
        let idx = Folded::middle(&index)?;
        gather(op, &src, &idx, dims, extent, mode, &out_dims)
    }

    /// The elements at `indices` along `axis`, index by index (NumPy `take_along_axis`,
    /// PyTorch `gather`): `indices` has the array's rank; its dimensions other than `axis`
    /// broadcast against the array's, and the result has the broadcast shape with
    /// `indices.dims[axis]` along `axis`. Out-of-range indices are an error (NumPy's rule;
    /// negative indices count from the end).
    pub fn take_along_axis(&self, indices: &RawArray<B>, axis: usize) -> Result<RawArray<B>> {
        let op = "take_along_axis";
        self.same_device(op, indices)?;
        let index = as_i64(op, indices)?;
        shape::check_axis(op, axis, self.ndim())?;
        if index.ndim() != self.ndim() {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: format!("indices with the array's {} dimensions", self.ndim()),
                got: index.ndim(),
            });
        }
        let (src_dims, out_dims) = along_axis_dims(op, &self.dims, &index.dims, axis)?;
        let source = self.broadcast_view(&src_dims)?;
        let index = index.broadcast_view(&out_dims)?;
        let (outer, count, inner) = shape::split_at_axis(&out_dims, axis);
        let extent = self.dims[axis];
        if !check_gather_space(
            op,
            self.dtype,
            &index,
            outer * count * inner,
            extent,
            IndexMode::Raise,
        )? {
            self.ensure_alive()?;
            return RawArray::alloc(&self.backend, self.dtype, &out_dims);
        }
        let src = Folded::new(&source, axis..axis + 1)?;
        let idx = Folded::new(&index, axis..axis + 1)?;
        gather(
            op,
            &src,
            &idx,
            [outer, count, inner],
            extent,
            IndexMode::Raise,
            &out_dims,
        )
    }

    /// The array as one row-major dimension: a view when the layout allows, else a copy.
    pub(crate) fn flattened(&self) -> Result<RawArray<B>> {
        match self.reshape(&[-1]) {
            Ok(v) => Ok(v),
            Err(_) => self.copy()?.reshape(&[-1]),
        }
    }

    /// A read-only view of this array with every dimension of length 1 stretched to `dims`
    /// (same rank; lengths equal or 1).
    pub(crate) fn broadcast_view(&self, dims: &[usize]) -> Result<RawArray<B>> {
        let strides = self
            .dims
            .iter()
            .zip(&self.strides)
            .zip(dims)
            .map(|((&d, &s), &n)| if d == 1 && n != 1 { 0 } else { s })
            .collect();
        Ok(self.derive_strided(self.dtype, dims.to_vec(), strides, self.offset))
    }
}

/// For an operation along `axis` between an array of `dims` and indices of `idx` (same
/// rank): the array's dimensions with the others broadcast, and the index space's.
pub(crate) fn along_axis_dims(
    op: &str,
    dims: &[usize],
    idx: &[usize],
    axis: usize,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let mut src = dims.to_vec();
    let mut space = idx.to_vec();
    for k in (0..dims.len()).filter(|&k| k != axis) {
        let n = match (dims[k], idx[k]) {
            (a, b) if a == b => a,
            (1, b) => b,
            (a, 1) => a,
            _ => {
                return Err(Error::ShapeMismatch {
                    op: format!("{op} (dimensions other than axis {axis} must broadcast)"),
                    lhs: dims.to_vec(),
                    rhs: idx.to_vec(),
                });
            }
        };
        src[k] = n;
        space[k] = n;
    }
    Ok((src, space))
}

impl<T: Element, B: Backend> Array<T, B> {
    /// [`RawArray::take`]: the elements at `indices` (any integer type) along `axis`, or of
    /// the flattened array when `axis` is `None`.
    ///
    /// ```
    /// # use gpuarrays_core::{Array, kernel::IndexMode};
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let a = Array::<f32, _>::from_slice(&cpu, &[2, 3], &[0., 1., 2., 3., 4., 5.])?;
    /// let i = Array::<i64, _>::from_slice(&cpu, &[2], &[2, -3])?;
    /// assert_eq!(a.take(&i, Some(1), IndexMode::Raise)?.to_vec()?, [2., 0., 5., 3.]);
    /// assert_eq!(a.take(&i, None, IndexMode::Wrap)?.to_vec()?, [2., 3.]);
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn take<I: Element>(
        &self,
        indices: &Array<I, B>,
        axis: Option<usize>,
        mode: IndexMode,
    ) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.take(&indices.raw, axis, mode)?))
    }

    /// [`RawArray::take_along_axis`] (PyTorch `gather`).
    pub fn take_along_axis<I: Element>(
        &self,
        indices: &Array<I, B>,
        axis: usize,
    ) -> Result<Array<T, B>> {
        Ok(Array::from_raw(
            self.raw.take_along_axis(&indices.raw, axis)?,
        ))
    }
}
