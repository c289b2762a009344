//! Sorting (1-D, or each row along the last axis) and finding true elements.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{FindArgs, SortArgs};
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

impl<B: Backend> RawArray<B> {
    /// A sorted copy: ascending along the last axis (NaNs last).
    pub fn sort(&self) -> Result<RawArray<B>> {
        if self.ndim() == 0 {
            return Err(Error::RankMismatch {
                op: "sort".into(),
                expected: "at least 1 dimension".into(),
                got: 0,
            });
        }
        ensure_type_rule("sort", self.dtype, OpKind::Sort)?;
        ensure_supported(&self.backend, self.dtype, OpKind::Sort)?;
        let out = self.copy()?;
        if out.is_empty() {
            return Ok(out);
        }
        let len = *self.dims.last().unwrap_or(&1);
        let buf = out.buffer()?;
        let _span = crate::profiling::kernel("sort", self.dtype);
        crate::graph::dispatch::sort(
            &self.backend,
            &SortArgs {
                dtype: self.dtype,
                buffer: &buf,
                offset: out.offset,
                rows: self.len() / len,
                len,
                ordered_low_bits: 0,
            },
        )?;
        drop(buf);
        Ok(out)
    }

    /// Flat (row-major) indices of the non-zero (true) elements, ascending, as a 1-D i64
    /// array.
    pub fn find(&self) -> Result<RawArray<B>> {
        if self.ndim() == 0 {
            return Err(Error::RankMismatch {
                op: "find".into(),
                expected: "at least 1 dimension".into(),
                got: 0,
            });
        }
        let mask = if self.dtype == DType::Bool {
            self.dense()?.into_owned()
        } else {
            crate::ops::expr::Expr::array(self)
                .cast(DType::Bool)
                .eval_raw()?
        };
        ensure_supported(&self.backend, DType::Bool, OpKind::Find)?;
        ensure_supported(&self.backend, DType::I64, OpKind::Find)?;
        if mask.is_empty() {
            mask.ensure_alive()?;
            return RawArray::alloc(&self.backend, DType::I64, &[0]);
        }
        let src = mask.buffer()?;
        let _span = crate::profiling::kernel("find", DType::Bool);
        let (buffer, count) = crate::graph::dispatch::find(
            &self.backend,
            &FindArgs {
                input: &src,
                offset: mask.offset,
                len: mask.len(),
            },
        )?;
        let owner = self.backend.clone();
        Ok(RawArray {
            backend: self.backend.clone(),
            data: crate::DataRef::new(buffer, move |b| owner.release(b)),
            dims: vec![count],
            strides: vec![1],
            offset: 0,
            dtype: DType::I64,
        })
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// A sorted copy (ascending along the last axis; NaNs last; `false < true`).
    pub fn sort(&self) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.sort()?))
    }

    /// Flat indices where the array is non-zero (true), ascending.
    pub fn find(&self) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.find()?))
    }

    /// Flat index of the first non-zero (true) element, if any.
    pub fn find_first(&self) -> Result<Option<usize>> {
        if self.ndim() == 0 {
            return Err(Error::RankMismatch {
                op: "find_first".into(),
                expected: "at least 1 dimension".into(),
                got: 0,
            });
        }
        if self.is_empty() {
            self.raw.ensure_alive()?;
            return Ok(None);
        }
        let mask: Array<bool, B> = if T::DTYPE == DType::Bool {
            Array::from_raw(self.raw.clone())
        } else {
            self.ex().cast(DType::Bool).eval()?
        };
        // One reduction and (usually) one read-back: argmax of a bool array is the first
        // true, or 0 when there is none. So an index above 0 is the answer, and only 0 needs
        // the first element itself (a one-byte read of the same buffer, no second pass).
        let i = mask.argmax()?;
        if i > 0 {
            return Ok(Some(i));
        }
        let first: Array<bool, B> =
            Array::from_raw(mask.raw.derive(DType::Bool, Vec::new(), mask.raw.offset));
        Ok(first.item()?.then_some(0))
    }
}
