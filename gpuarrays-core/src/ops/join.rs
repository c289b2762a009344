//! Joining and splitting along an axis: `concatenate`, `stack` (copies into one new array:
//! one elementwise copy per input into a view of the result, at copy bandwidth) and
//! `split`, `array_split`, `split_at` (views of the input, as in NumPy).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::copy::copy_raw;
use crate::shape;

impl<B: Backend> RawArray<B> {
    /// The arrays joined along `axis` (NumPy `concatenate`): one type, one rank (at least
    /// 1), the same dimensions except along `axis`.
    pub fn concatenate(arrays: &[&RawArray<B>], axis: usize) -> Result<RawArray<B>> {
        let op = "concatenate";
        let first = *arrays
            .first()
            .ok_or_else(|| Error::invalid_arg(op, "needs at least one array"))?;
        if first.ndim() == 0 {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: "at least 1 dimension (0-d arrays cannot be joined; stack them)".into(),
                got: 0,
            });
        }
        shape::check_axis(op, axis, first.ndim())?;
        let mut dims = first.dims.clone();
        dims[axis] = 0;
        for a in arrays {
            first.same_device(op, a)?;
            if a.dtype != first.dtype {
                return Err(Error::DTypeMismatch {
                    op: op.into(),
                    lhs: first.dtype,
                    rhs: a.dtype,
                });
            }
            let fits = a.ndim() == first.ndim()
                && (0..a.ndim()).all(|k| k == axis || a.dims[k] == first.dims[k]);
            if !fits {
                return Err(Error::ShapeMismatch {
                    op: op.into(),
                    lhs: first.dims.clone(),
                    rhs: a.dims.clone(),
                });
            }
            dims[axis] = dims[axis].checked_add(a.dims[axis]).ok_or_else(|| {
                Error::invalid_arg(op, "the joined axis would be longer than usize::MAX")
            })?;
        }
        let out = RawArray::alloc(&first.backend, first.dtype, &dims)?;
        let mut at = 0;
        for a in arrays {
            let mut ranges: Vec<_> = dims.iter().map(|&d| 0..d).collect();
            ranges[axis] = at..at + a.dims[axis];
            copy_raw(a, &out.view(&ranges)?)?;
            at += a.dims[axis];
        }
        Ok(out)
    }

    /// The arrays (all of one shape) joined along a new axis `axis` (`0..=ndim`), NumPy
    /// `stack`.
    pub fn stack(arrays: &[&RawArray<B>], axis: usize) -> Result<RawArray<B>> {
        let first = *arrays
            .first()
            .ok_or_else(|| Error::invalid_arg("stack", "needs at least one array"))?;
        for a in arrays {
            if a.dims != first.dims {
                return Err(Error::ShapeMismatch {
                    op: "stack".into(),
                    lhs: first.dims.clone(),
                    rhs: a.dims.clone(),
                });
            }
        }
        let expanded = arrays
            .iter()
            .map(|a| a.expand_dims(axis))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&RawArray<B>> = expanded.iter().collect();
        RawArray::concatenate(&refs, axis)
    }

    /// Views of the pieces between `indices` along `axis` (NumPy `split` with indices):
    /// `[..i0], [i0..i1], .., [ik..]`, each clamped to the axis (so pieces may be empty).
    pub fn split_at(&self, indices: &[usize], axis: usize) -> Result<Vec<RawArray<B>>> {
        shape::check_axis("split", axis, self.ndim())?;
        let n = self.dims[axis];
        let mut bounds = vec![0];
        bounds.extend(indices.iter().map(|&i| i.min(n)));
        bounds.push(n);
        bounds
            .windows(2)
            .map(|w| {
                let mut ranges: Vec<_> = self.dims.iter().map(|&d| 0..d).collect();
                ranges[axis] = w[0]..w[1].max(w[0]);
                self.view(&ranges)
            })
            .collect()
    }

    /// `sections` equal views along `axis` (NumPy `split`); the axis length must divide.
    pub fn split(&self, sections: usize, axis: usize) -> Result<Vec<RawArray<B>>> {
        shape::check_axis("split", axis, self.ndim())?;
        let n = self.dims[axis];
        if sections == 0 || n % sections != 0 {
            return Err(Error::invalid_arg(
                "split",
                format!(
                    "axis {axis} of length {n} does not split into {sections} equal sections; \
                     use array_split for unequal ones"
                ),
            ));
        }
        self.array_split(sections, axis)
    }

    /// `sections` views along `axis`, the first `len % sections` one element longer
    /// (NumPy `array_split`).
    pub fn array_split(&self, sections: usize, axis: usize) -> Result<Vec<RawArray<B>>> {
        shape::check_axis("array_split", axis, self.ndim())?;
        if sections == 0 {
            return Err(Error::invalid_arg(
                "array_split",
                "needs at least one section",
            ));
        }
        let n = self.dims[axis];
        let (each, extra) = (n / sections, n % sections);
        let mut at = 0;
        let indices: Vec<usize> = (0..sections - 1)
            .map(|k| {
                at += each + usize::from(k < extra);
                at
            })
            .collect();
        self.split_at(&indices, axis)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The arrays joined along `axis` (NumPy `concatenate`), a new array.
    pub fn concatenate(arrays: &[&Array<T, B>], axis: usize) -> Result<Self> {
        let raws: Vec<&RawArray<B>> = arrays.iter().map(|a| a.raw()).collect();
        Ok(Array::from_raw(RawArray::concatenate(&raws, axis)?))
    }

    /// The arrays joined along a new axis `axis` (NumPy `stack`), a new array.
    pub fn stack(arrays: &[&Array<T, B>], axis: usize) -> Result<Self> {
        let raws: Vec<&RawArray<B>> = arrays.iter().map(|a| a.raw()).collect();
        Ok(Array::from_raw(RawArray::stack(&raws, axis)?))
    }

    /// Views of the pieces between `indices` along `axis` (NumPy `split` with indices).
    pub fn split_at(&self, indices: &[usize], axis: usize) -> Result<Vec<Self>> {
        let parts = self.raw.split_at(indices, axis)?;
        Ok(parts.into_iter().map(Array::from_raw).collect())
    }

    /// `sections` equal views along `axis` (NumPy `split`).
    pub fn split(&self, sections: usize, axis: usize) -> Result<Vec<Self>> {
        let parts = self.raw.split(sections, axis)?;
        Ok(parts.into_iter().map(Array::from_raw).collect())
    }

    /// `sections` nearly equal views along `axis` (NumPy `array_split`).
    pub fn array_split(&self, sections: usize, axis: usize) -> Result<Vec<Self>> {
        let parts = self.raw.array_split(sections, axis)?;
        Ok(parts.into_iter().map(Array::from_raw).collect())
    }
}
