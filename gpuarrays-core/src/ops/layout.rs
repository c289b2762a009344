//! Reordering elements: reverse along an axis, permute axes, transpose. Each is one
//! strided-copy kernel into a new contiguous array.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::copy::strided_copy;
use crate::shape;

impl<B: Backend> RawArray<B> {
    /// A copy with the order of elements along `axis` reversed.
    pub fn reverse(&self, axis: usize) -> Result<RawArray<B>> {
        shape::check_axis("reverse", axis, self.ndim())?;
        let out = RawArray::alloc(&self.backend, self.dtype, &self.dims)?;
        if self.is_empty() {
            self.ensure_alive()?;
            return Ok(out);
        }
        let mut strides = shape::contiguous_strides(&self.dims);
        let offset = self.offset + (self.dims[axis] - 1) * strides[axis] as usize;
        strides[axis] = -strides[axis];
        strided_copy(self, offset, strides, &out)?;
        Ok(out)
    }

    /// A copy with axes reordered: result axis `k` is input axis `axes[k]`.
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
        let own = shape::contiguous_strides(&self.dims);
        let dims: Vec<usize> = axes.iter().map(|&a| self.dims[a]).collect();
        let strides: Vec<isize> = axes.iter().map(|&a| own[a]).collect();
        let out = RawArray::alloc(&self.backend, self.dtype, &dims)?;
        strided_copy(self, self.offset, strides, &out)?;
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// A copy with the elements along `axis` in reverse order.
    pub fn reverse(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.reverse(axis)?))
    }

    /// A copy with axes reordered (NumPy `transpose(axes)`).
    pub fn permute(&self, axes: &[usize]) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.permute(axes)?))
    }

    /// The transpose of a 2-D array (a copy).
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
}
