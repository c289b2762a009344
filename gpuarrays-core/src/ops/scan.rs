//! Cumulative sums, products, maxima and minima along an axis.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::Result;
use crate::kernel::{ScanArgs, ScanOp};
use crate::shape;
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

impl<B: Backend> RawArray<B> {
    /// Inclusive scan along `axis`; the result has the input's shape and type.
    pub fn scan(&self, op: ScanOp, axis: usize) -> Result<RawArray<B>> {
        ensure_type_rule(op.name(), self.dtype, OpKind::Scan)?;
        op.check_dtype(self.dtype)?;
        shape::check_axis(op.name(), axis, self.ndim())?;
        ensure_supported(&self.backend, self.dtype, OpKind::Scan)?;
        let out = RawArray::alloc(&self.backend, self.dtype, &self.dims)?;
        if self.is_empty() {
            self.ensure_alive()?;
            return Ok(out);
        }
        let (outer, len, inner) = shape::split_at_axis(&self.dims, axis);
        // Kernels read one contiguous run: a strided view is copied first.
        let this = self.dense()?;
        let (src, dst) = (this.buffer()?, out.buffer()?);
        let _span = crate::profiling::kernel("scan", self.dtype);
        self.backend.scan(&ScanArgs {
            op,
            dtype: self.dtype,
            input: &src,
            input_offset: this.offset,
            outer,
            len,
            inner,
            output: &dst,
            output_offset: out.offset,
        })?;
        drop((src, dst));
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Cumulative sum along `axis` (integers wrap).
    pub fn cumsum(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.scan(ScanOp::Sum, axis)?))
    }

    /// Cumulative product along `axis` (integers wrap).
    pub fn cumprod(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.scan(ScanOp::Prod, axis)?))
    }

    /// Running maximum along `axis` (NumPy `np.maximum.accumulate(x, axis)`): element `k`
    /// is the largest of elements `0..=k`; a NaN makes it and every later element NaN.
    /// Ordered types only (complex is an `InvalidDType` error, as is bool for every scan).
    pub fn cummax(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.scan(ScanOp::Max, axis)?))
    }

    /// Running minimum along `axis` (NumPy `np.minimum.accumulate(x, axis)`), like
    /// [`cummax`](Self::cummax).
    pub fn cummin(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.scan(ScanOp::Min, axis)?))
    }
}
