//! Derived arrays: `view`, `reshape` and `reinterpret` return new arrays of the same type
//! that share the original's [`crate::DataRef`], with their own dims, strides and element
//! offset — no wrapper types and no copies, so every function that takes an array takes a
//! derived one too, with no family of wrapper types to accept (the storage design of
//! CUDA.jl, which Julia's GPU array packages adopted for the same reason). Reshape follows
//! NumPy: a view whenever the strides allow one, else an error that says to copy.

use std::ops::Range;

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape;

impl<B: Backend> RawArray<B> {
    /// The sub-array selecting `ranges[d]` along each dimension `d`, sharing the buffer
    /// (a strided view unless the selection is one contiguous run).
    pub fn view(&self, ranges: &[Range<usize>]) -> Result<Self> {
        let dims = &self.dims;
        if ranges.len() != dims.len() {
            return Err(Error::RankMismatch {
                op: "view".into(),
                expected: format!("one range per dimension ({} given)", ranges.len()),
                got: dims.len(),
            });
        }
        if ranges
            .iter()
            .zip(dims)
            .any(|(r, &d)| r.start > r.end || r.end > d)
        {
            return Err(Error::ViewOutOfBounds {
                dims: dims.clone(),
                ranges: ranges.to_vec(),
            });
        }
        let new_dims: Vec<usize> = ranges.iter().map(|r| r.end - r.start).collect();
        let offset = if new_dims.contains(&0) {
            self.offset
        } else {
            self.offset_of(ranges.iter().map(|r| r.start))
        };
        Ok(self.derive_strided(self.dtype, new_dims, self.strides.clone(), offset))
    }

    /// The buffer position of the element at multi-index `index` (in bounds, non-empty).
    pub(crate) fn offset_of(&self, index: impl Iterator<Item = usize>) -> usize {
        let moved: isize = index.zip(&self.strides).map(|(i, &s)| i as isize * s).sum();
        (self.offset as isize + moved) as usize
    }

    /// The same elements with new dimensions; at most one dimension may be `-1` (inferred).
    pub fn reshape(&self, dims: &[isize]) -> Result<Self> {
        let count = self.len();
        let err = |reason: &str| Error::Reshape {
            from: self.dims.clone(),
            count,
            to: dims.to_vec(),
            reason: reason.to_string(),
        };
        shape::check_rank(dims.len())?;
        let inferred: Vec<usize> = (0..dims.len()).filter(|&i| dims[i] == -1).collect();
        if inferred.len() > 1 {
            return Err(err("at most one dimension may be -1"));
        }
        if dims.iter().any(|&d| d < -1) {
            return Err(err("dimensions must be non-negative (or -1 to infer one)"));
        }
        let given: Vec<usize> = dims
            .iter()
            .filter(|&&d| d >= 0)
            .map(|&d| d as usize)
            .collect();
        let known = shape::checked_numel(&given)
            .map_err(|_| err("the product of the dimensions overflows usize"))?;
        let mut new_dims: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(&i) = inferred.first() {
            if known == 0 {
                return Err(err("cannot infer -1 when another dimension is 0"));
            }
            if count % known != 0 {
                return Err(err(
                    "the element count is not divisible by the given dimensions",
                ));
            }
            new_dims[i] = count / known;
        } else if known != count {
            return Err(err("the element count differs"));
        }
        let strides = shape::reshaped_strides(&self.dims, &self.strides, &new_dims).ok_or_else(
            || Error::NonContiguousView {
                op: "reshape".into(),
                dims: self.dims.clone(),
                strides: self.strides.clone(),
                reason: format!(
                    "its elements are not laid out so that shape {new_dims:?} can step through them"
                ),
            },
        )?;
        Ok(self.derive_strided(self.dtype, new_dims, strides, self.offset))
    }

    /// The same bytes as elements of `to`. The last dimension scales by the size ratio; the
    /// byte offset must be a multiple of the new element size. Any bytes are valid bools: a
    /// bool is false for byte 0 and true for any other byte, on every backend. A strided
    /// view keeps its strides (scaled to the new size) when the sizes agree or its last axis
    /// is unit-stride and every other stride is a whole number of new elements (NumPy's
    /// rule); otherwise it is [`Error::NonContiguousView`].
    pub fn reinterpret(&self, to: DType) -> Result<Self> {
        let from = self.dtype;
        if !self.is_contiguous() {
            return self.reinterpret_strided(to);
        }
        let err = |reason: String| Error::Reinterpret { from, to, reason };
        let byte_offset = self.byte_offset();
        if byte_offset % to.size() != 0 || byte_offset % to.align() != 0 {
            return Err(err(format!(
                "the array starts at byte {byte_offset} of its buffer, not a multiple of {} ({to}'s size)",
                to.size()
            )));
        }
        let mut dims = self.dims.clone();
        match dims.last_mut() {
            None if from.size() != to.size() => {
                return Err(err(format!(
                    "a 0-d array of {} bytes cannot hold a {}-byte {to}",
                    from.size(),
                    to.size()
                )));
            }
            None => {}
            Some(last) => {
                // In u128: the last dimension of an empty array can be huge.
                let bytes = *last as u128 * from.size() as u128;
                if bytes % to.size() as u128 != 0 {
                    return Err(err(format!(
                        "the last dimension holds {bytes} bytes, not a multiple of {} ({to}'s size)",
                        to.size()
                    )));
                }
                *last = usize::try_from(bytes / to.size() as u128).map_err(|_| {
                    err(format!(
                        "the last dimension would hold more than usize::MAX elements of {to}"
                    ))
                })?;
            }
        }
        shape::checked_numel(&dims).map_err(|_| {
            err(format!(
                "the new shape {dims:?} has more elements than usize can count"
            ))
        })?;
        Ok(self.derive(to, dims, byte_offset / to.size()))
    }

    /// [`reinterpret`](Self::reinterpret) of a non-contiguous (so non-empty, rank >= 1) view.
    fn reinterpret_strided(&self, to: DType) -> Result<Self> {
        let (from, size) = (self.dtype, self.dtype.size());
        let refuse = |reason: String| Error::NonContiguousView {
            op: "reinterpret".into(),
            dims: self.dims.clone(),
            strides: self.strides.clone(),
            reason,
        };
        let last = self.ndim() - 1;
        if from.size() != to.size() && self.dims[last] != 1 && self.strides[last] != 1 {
            return Err(refuse(format!(
                "its last axis is not unit-stride, so its elements cannot be split or joined into {to}"
            )));
        }
        let bytes = |x: isize| x as i128 * size as i128;
        let whole = |b: i128| b % to.size() as i128 == 0 && b % to.align() as i128 == 0;
        let byte_offset = self.byte_offset() as i128;
        // Strides of axes of length 1 never move; they become 0.
        let moving = |k: usize| {
            if self.dims[k] == 1 {
                0
            } else {
                self.strides[k]
            }
        };
        let strides_ok = (0..last).all(|k| whole(bytes(moving(k))));
        if !whole(byte_offset) || !strides_ok {
            return Err(refuse(format!(
                "its first element or a stride is not a whole number of {to} elements"
            )));
        }
        let mut dims = self.dims.clone();
        let mut strides: Vec<isize> = (0..=last)
            .map(|k| (bytes(moving(k)) / to.size() as i128) as isize)
            .collect();
        if from.size() != to.size() {
            let row = dims[last] as u128 * size as u128;
            if row % to.size() as u128 != 0 {
                return Err(Error::Reinterpret {
                    from,
                    to,
                    reason: format!(
                        "the last dimension holds {row} bytes, not a multiple of {} ({to}'s size)",
                        to.size()
                    ),
                });
            }
            dims[last] = (row / to.size() as u128) as usize;
            strides[last] = 1;
        }
        let offset = (byte_offset / to.size() as i128) as usize;
        Ok(self.derive_strided(to, dims, strides, offset))
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// A sub-array sharing this array's buffer; see [`RawArray::view`].
    ///
    /// ```
    /// # use gpuarrays_core::{Array, ErrorKind};
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// # let a = Array::<i32, _>::from_slice(&cpu, &[6, 2], &(0..12).collect::<Vec<_>>())?;
    /// let rows = a.view(&[2..5, 0..a.dims()[1]])?;   // rows 2, 3, 4: contiguous
    /// let col = a.view(&[0..4, 1..2])?;               // a column: strides [2, 1]
    /// assert!(rows.is_contiguous() && !col.is_contiguous());
    /// assert_eq!(col.reshape(&[-1])?.strides(), [2]);   // still a view
    /// let flat = a.transpose()?.reshape(&[-1]);        // no one stride steps through it
    /// # assert_eq!(rows.to_vec()?, [4, 5, 6, 7, 8, 9]);
    /// # assert_eq!(col.to_vec()?, [1, 3, 5, 7]);
    /// # assert_eq!(flat.map(|_| ()).map_err(|e| e.kind()), Err(ErrorKind::NonContiguousView));
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn view(&self, ranges: &[Range<usize>]) -> Result<Self> {
        Ok(Array::from_raw(self.raw.view(ranges)?))
    }

    /// Elements `range` of a flattened array, sharing the buffer (a strided view that no
    /// single stride flattens is [`Error::NonContiguousView`]: flatten a copy).
    pub fn slice(&self, range: Range<usize>) -> Result<Self> {
        let flat = self.raw.reshape(&[-1])?;
        Ok(Array::from_raw(flat.view(&[range])?))
    }

    /// The same elements with new dimensions (one may be `-1`), sharing the buffer.
    pub fn reshape(&self, dims: &[isize]) -> Result<Self> {
        Ok(Array::from_raw(self.raw.reshape(dims)?))
    }

    /// The same bytes viewed as `U`, sharing the buffer.
    pub fn reinterpret<U: Element>(&self) -> Result<Array<U, B>> {
        Ok(Array::from_raw(self.raw.reinterpret(U::DTYPE)?))
    }

    /// Another array sharing this one's buffer, shape and offset.
    pub fn share(&self) -> Self {
        Array::from_raw(self.raw.clone())
    }
}
