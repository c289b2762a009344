//! Cumulative sums, products, maxima and minima along an axis.
//!
//! Halves (f16, bf16) are scanned as f32: the input widened (exactly), the f32 scan, each
//! output rounded once to the half type. That is the rule of half sums (the last element of
//! a cumulative sum is the sum, rounded once), and what PyTorch does; NumPy's float16 cumsum
//! rounds the running value at every step instead, so a long float16 running sum stalls
//! there (4096 ones sum to 2048) and not here. A backend that keeps that rule in its own scan
//! says so (`Backend::scans_halves`: HIP, one pass); for every other backend the widening and
//! the rounding are elementwise kernels around the f32 scan, so every backend that scans f32
//! and casts halves scans halves, by one rule.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernel::{ScanArgs, ScanOp};
use crate::ops::expr::Expr;
use crate::shape;
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

impl<B: Backend> RawArray<B> {
    /// Inclusive scan along `axis`; the result has the input's shape and type.
    pub fn scan(&self, op: ScanOp, axis: usize) -> Result<RawArray<B>> {
        ensure_type_rule(op.name(), self.dtype, OpKind::Scan)?;
        op.check_dtype(self.dtype)?;
        shape::check_axis(op.name(), axis, self.ndim())?;
        if self.dtype.is_half() && !self.backend.scans_halves() {
            // See the module docs.
            let wide = Expr::array(self).cast(DType::F32).eval_raw()?;
            let scanned = wide.scan(op, axis)?;
            return Expr::array(&scanned).cast(self.dtype).eval_raw();
        }
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
        crate::graph::dispatch::scan(
            &self.backend,
            &ScanArgs {
                op,
                dtype: self.dtype,
                input: &src,
                input_offset: this.offset,
                outer,
                len,
                inner,
                output: &dst,
                output_offset: out.offset,
            },
        )?;
        drop((src, dst));
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Cumulative sum along `axis` (integers wrap; halves keep an f32 running sum and round
    /// each output once, see the module docs).
    pub fn cumsum(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.scan(ScanOp::Sum, axis)?))
    }

    /// Cumulative product along `axis` (integers wrap; halves keep an f32 running product and
    /// round each output once).
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
