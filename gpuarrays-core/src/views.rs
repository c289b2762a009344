//! Views that reorder, repeat or pick elements without copying: permute/transpose/swapaxes,
//! reverse (NumPy `flip`), broadcast_to, expand_dims/squeeze and diagonal. Each returns a
//! new array sharing the buffer, with other dims and strides (NumPy's views). A broadcast
//! view repeats elements (stride 0), so it can be read but not written.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape;

impl<B: Backend> RawArray<B> {
    /// Axes reordered: result axis `k` is input axis `axes[k]` (NumPy `transpose(axes)`).
    pub fn permute(&self, axes: &[usize]) -> Result<RawArray<B>> {
        let n = self.ndim();
        let mut seen = vec![false; n];
        let valid = axes.len() == n
            && axes
                .iter()
                .all(|&a| a < n && !std::mem::replace(&mut seen[a], true));
        if !valid {
            return Err(Error::invalid_arg(
                "permute",
                format!(
                    "axes {axes:?} are not a permutation of 0..{n} for shape {:?}",
                    self.dims
                ),
            ));
        }
        let dims = axes.iter().map(|&a| self.dims[a]).collect();
        let strides = axes.iter().map(|&a| self.strides[a]).collect();
        Ok(self.derive_strided(self.dtype, dims, strides, self.offset))
    }

    /// Axes `a` and `b` exchanged.
    pub fn swapaxes(&self, a: usize, b: usize) -> Result<RawArray<B>> {
        shape::check_axis("swapaxes", a, self.ndim())?;
        shape::check_axis("swapaxes", b, self.ndim())?;
        let mut axes: Vec<usize> = (0..self.ndim()).collect();
        axes.swap(a, b);
        self.permute(&axes)
    }

    /// The elements along `axis` in reverse order (NumPy `flip`).
    pub fn reverse(&self, axis: usize) -> Result<RawArray<B>> {
        shape::check_axis("reverse", axis, self.ndim())?;
        let mut strides = self.strides.clone();
        let offset = if self.is_empty() {
            self.offset
        } else {
            self.offset_of((0..self.ndim()).map(|k| if k == axis { self.dims[k] - 1 } else { 0 }))
        };
        strides[axis] = -strides[axis];
        Ok(self.derive_strided(self.dtype, self.dims.clone(), strides, offset))
    }

    /// This array repeated to shape `dims` by NumPy's broadcasting rules (stride 0 along
    /// stretched and new leading axes). Read-only: writing into it is an error.
    pub fn broadcast_to(&self, dims: &[usize]) -> Result<RawArray<B>> {
        let out = shape::broadcast_shapes("broadcast_to", &self.dims, dims)?;
        if out != dims {
            return Err(Error::ShapeMismatch {
                op: "broadcast_to".into(),
                lhs: self.dims.clone(),
                rhs: dims.to_vec(),
            });
        }
        let strides = shape::broadcast_view_strides(&self.dims, &self.strides, dims).to_vec();
        Ok(self.derive_strided(self.dtype, dims.to_vec(), strides, self.offset))
    }

    /// A new axis of length 1 at position `axis` (`0..=ndim`), NumPy `expand_dims`.
    pub fn expand_dims(&self, axis: usize) -> Result<RawArray<B>> {
        shape::check_axis("expand_dims", axis, self.ndim() + 1)?;
        shape::check_rank(self.ndim() + 1)?;
        let (mut dims, mut strides) = (self.dims.clone(), self.strides.clone());
        dims.insert(axis, 1);
        strides.insert(axis, 0);
        Ok(self.derive_strided(self.dtype, dims, strides, self.offset))
    }

    /// Without axis `axis` (which must have length 1), or without every axis of length 1
    /// when `axis` is `None` (NumPy `squeeze`).
    pub fn squeeze(&self, axis: Option<usize>) -> Result<RawArray<B>> {
        let keep: Vec<usize> = match axis {
            Some(a) => {
                shape::check_axis("squeeze", a, self.ndim())?;
                if self.dims[a] != 1 {
                    return Err(Error::invalid_arg(
                        "squeeze",
                        format!(
                            "axis {a} of shape {:?} has length {}, not 1",
                            self.dims, self.dims[a]
                        ),
                    ));
                }
                (0..self.ndim()).filter(|&k| k != a).collect()
            }
            None => (0..self.ndim()).filter(|&k| self.dims[k] != 1).collect(),
        };
        let dims = keep.iter().map(|&k| self.dims[k]).collect();
        let strides = keep.iter().map(|&k| self.strides[k]).collect();
        Ok(self.derive_strided(self.dtype, dims, strides, self.offset))
    }

    /// The diagonal of axes `axis1` and `axis2` with offset `k` (above the main diagonal
    /// for `k > 0`), as the last axis of a view; the other axes keep their order (NumPy
    /// `diagonal`). An offset past the edge gives an empty diagonal.
    pub fn diagonal(&self, k: isize, axis1: usize, axis2: usize) -> Result<RawArray<B>> {
        shape::check_axis("diagonal", axis1, self.ndim())?;
        shape::check_axis("diagonal", axis2, self.ndim())?;
        if axis1 == axis2 {
            return Err(Error::invalid_arg(
                "diagonal",
                format!("axis1 and axis2 are both {axis1}; they must differ"),
            ));
        }
        let (d1, d2) = (self.dims[axis1], self.dims[axis2]);
        let (skip1, skip2) = if k >= 0 {
            (0, k.unsigned_abs())
        } else {
            (k.unsigned_abs(), 0)
        };
        let len = d1.saturating_sub(skip1).min(d2.saturating_sub(skip2));
        let rest: Vec<usize> = (0..self.ndim())
            .filter(|&a| a != axis1 && a != axis2)
            .collect();
        let mut dims: Vec<usize> = rest.iter().map(|&a| self.dims[a]).collect();
        let mut strides: Vec<isize> = rest.iter().map(|&a| self.strides[a]).collect();
        dims.push(len);
        strides.push(self.strides[axis1] + self.strides[axis2]);
        let offset = if shape::numel(&dims) == 0 {
            self.offset
        } else {
            let start = |a: usize| match a {
                _ if a == axis1 => skip1,
                _ if a == axis2 => skip2,
                _ => 0,
            };
            self.offset_of((0..self.ndim()).map(start))
        };
        Ok(self.derive_strided(self.dtype, dims, strides, offset))
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Axes reordered (NumPy `transpose(axes)`), a view.
    pub fn permute(&self, axes: &[usize]) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.permute(axes)?))
    }

    /// The transpose of a 2-D array, a view (strides swapped).
    pub fn transpose(&self) -> Result<Array<T, B>> {
        if self.ndim() != 2 {
            return Err(Error::RankMismatch {
                op: "transpose".into(),
                expected: "2 dimensions".into(),
                got: self.ndim(),
            });
        }
        self.permute(&[1, 0])
    }

    /// Axes `a` and `b` exchanged, a view.
    pub fn swapaxes(&self, a: usize, b: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.swapaxes(a, b)?))
    }

    /// The elements along `axis` in reverse order (NumPy `flip`), a view.
    pub fn reverse(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.reverse(axis)?))
    }

    /// This array broadcast to `dims` (NumPy rules), a read-only view.
    pub fn broadcast_to(&self, dims: &[usize]) -> Result<Self> {
        Ok(Array::from_raw(self.raw.broadcast_to(dims)?))
    }

    /// A new axis of length 1 at `axis`, a view.
    pub fn expand_dims(&self, axis: usize) -> Result<Self> {
        Ok(Array::from_raw(self.raw.expand_dims(axis)?))
    }

    /// Without axes of length 1 (one given axis, or all), a view.
    pub fn squeeze(&self, axis: Option<usize>) -> Result<Self> {
        Ok(Array::from_raw(self.raw.squeeze(axis)?))
    }

    /// The `k`-th diagonal of axes `axis1`, `axis2` as the last axis, a view.
    pub fn diagonal(&self, k: isize, axis1: usize, axis2: usize) -> Result<Self> {
        Ok(Array::from_raw(self.raw.diagonal(k, axis1, axis2)?))
    }
}
