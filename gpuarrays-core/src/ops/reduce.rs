//! Reductions over all elements or along one axis: sum, prod, min, max, mean, argmin,
//! argmax, any, all.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{ReduceArgs, ReduceOp};
use crate::scalar::Scalar;
use crate::shape;
use crate::support::{OpKind, ensure_supported};

impl<B: Backend> RawArray<B> {
    /// Reduces along `axis` (removing it), or over every element when `axis` is `None`
    /// (giving a 0-d array).
    pub fn reduce(&self, op: ReduceOp, axis: Option<usize>) -> Result<RawArray<B>> {
        let out_dtype = op.result_dtype(self.dtype)?;
        ensure_supported(&self.backend, self.dtype, OpKind::Reduce)?;
        ensure_supported(&self.backend, out_dtype, OpKind::Reduce)?;
        let (outer, len, inner, out_dims) = match axis {
            None => (1, self.len(), 1, Vec::new()),
            Some(ax) => {
                shape::check_axis(op.name(), ax, self.ndim())?;
                let (o, l, i) = shape::split_at_axis(&self.dims, ax);
                let mut d = self.dims.clone();
                d.remove(ax);
                (o, l, i, d)
            }
        };
        let out = RawArray::alloc(&self.backend, out_dtype, &out_dims)?;
        if outer * inner * len == 0 {
            // No element is read, but a freed buffer is still an error (also when the
            // result is empty or an identity).
            self.ensure_alive()?;
        }
        if outer * inner == 0 {
            return Ok(out);
        }
        if len == 0 {
            let identity = match op {
                ReduceOp::Sum => Scalar::zero(out_dtype),
                ReduceOp::Prod => Scalar::one(out_dtype),
                ReduceOp::Any => Scalar::Bool(false),
                ReduceOp::All => Scalar::Bool(true),
                _ => {
                    return Err(Error::EmptyReduction {
                        op: op.name().to_string(),
                    });
                }
            };
            out.fill(identity)?;
            return Ok(out);
        }
        // Kernels read one contiguous run: a strided view is copied first.
        let this = self.dense()?;
        let (src, dst) = (this.buffer()?, out.buffer()?);
        let _span = crate::profiling::kernel("reduce", self.dtype);
        crate::graph::dispatch::reduce(
            &self.backend,
            &ReduceArgs {
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

    /// Reduces to one value on the host.
    pub fn reduce_all(&self, op: ReduceOp) -> Result<Scalar> {
        let r = self.reduce(op, None)?;
        let bytes = r.to_bytes()?;
        scalar_from_bytes(r.dtype, &bytes)
    }
}

fn scalar_from_bytes(dtype: DType, bytes: &[u8]) -> Result<Scalar> {
    fn one<T: Element>(bytes: &[u8]) -> Result<Scalar> {
        T::from_bytes(bytes)?
            .first()
            .map(|v| v.to_scalar())
            .ok_or_else(|| Error::invalid_arg("reduce", "the backend returned no value"))
    }
    crate::dispatch_dtype!(dtype, T => one::<T>(bytes))
}

fn typed<T: Element>(s: Scalar) -> Result<T> {
    T::from_scalar(s).ok_or_else(|| Error::DTypeMismatch {
        op: "reduce".into(),
        lhs: s.dtype(),
        rhs: T::DTYPE,
    })
}

fn index(s: Scalar) -> Result<usize> {
    match s {
        Scalar::I64(i) if i >= 0 => Ok(i as usize),
        other => Err(Error::invalid_arg(
            "argmin/argmax",
            format!("the backend returned index {other}"),
        )),
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Sum of all elements (integers wrap; 0 for an empty array).
    pub fn sum(&self) -> Result<T> {
        typed(self.raw.reduce_all(ReduceOp::Sum)?)
    }
    /// Product of all elements (integers wrap; 1 for an empty array).
    pub fn prod(&self) -> Result<T> {
        typed(self.raw.reduce_all(ReduceOp::Prod)?)
    }
    /// Smallest element (NaN if any is NaN). Error on an empty array.
    pub fn min(&self) -> Result<T> {
        typed(self.raw.reduce_all(ReduceOp::Min)?)
    }
    /// Largest element (NaN if any is NaN). Error on an empty array.
    pub fn max(&self) -> Result<T> {
        typed(self.raw.reduce_all(ReduceOp::Max)?)
    }
    /// Flat index of the first smallest element (of the first NaN, if any).
    pub fn argmin(&self) -> Result<usize> {
        index(self.raw.reduce_all(ReduceOp::ArgMin)?)
    }
    /// Flat index of the first largest element (of the first NaN, if any).
    pub fn argmax(&self) -> Result<usize> {
        index(self.raw.reduce_all(ReduceOp::ArgMax)?)
    }
    /// Whether any element is non-zero (true).
    pub fn any(&self) -> Result<bool> {
        typed(self.truthy()?.reduce_all(ReduceOp::Any)?)
    }
    /// Whether every element is non-zero (true); true for an empty array.
    pub fn all(&self) -> Result<bool> {
        typed(self.truthy()?.reduce_all(ReduceOp::All)?)
    }
    /// Mean of all elements (floats and complex). Error on an empty array.
    pub fn mean(&self) -> Result<T> {
        mean_check::<T>()?;
        if self.is_empty() {
            self.raw.ensure_alive()?;
            return Err(Error::EmptyReduction { op: "mean".into() });
        }
        if T::DTYPE.is_half() {
            // Computed in f32 and rounded once (the guide's "Half precision").
            return Array::<T, B>::from_raw(self.raw.mean_of(None)?).item();
        }
        let s = self.raw.reduce(ReduceOp::Sum, None)?;
        let m: Array<T, B> = (Array::<T, B>::from_raw(s).ex() / self.len() as f64).eval()?;
        m.item()
    }

    /// Sums along `axis`, removing it.
    pub fn sum_axis(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.reduce(ReduceOp::Sum, Some(axis))?))
    }
    pub fn prod_axis(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(
            self.raw.reduce(ReduceOp::Prod, Some(axis))?,
        ))
    }
    pub fn min_axis(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.reduce(ReduceOp::Min, Some(axis))?))
    }
    pub fn max_axis(&self, axis: usize) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.reduce(ReduceOp::Max, Some(axis))?))
    }
    /// Index along `axis` of the first smallest element, as i64.
    pub fn argmin_axis(&self, axis: usize) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(
            self.raw.reduce(ReduceOp::ArgMin, Some(axis))?,
        ))
    }
    pub fn argmax_axis(&self, axis: usize) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(
            self.raw.reduce(ReduceOp::ArgMax, Some(axis))?,
        ))
    }
    pub fn any_axis(&self, axis: usize) -> Result<Array<bool, B>> {
        Ok(Array::from_raw(
            self.truthy()?.reduce(ReduceOp::Any, Some(axis))?,
        ))
    }
    pub fn all_axis(&self, axis: usize) -> Result<Array<bool, B>> {
        Ok(Array::from_raw(
            self.truthy()?.reduce(ReduceOp::All, Some(axis))?,
        ))
    }
    /// Mean along `axis` (floats and complex).
    pub fn mean_axis(&self, axis: usize) -> Result<Array<T, B>> {
        mean_check::<T>()?;
        shape::check_axis("mean", axis, self.ndim())?;
        let n = self.dims()[axis];
        // Like the other reductions, an empty result is fine; only an empty axis with
        // outputs to fill has no mean.
        if n == 0
            && self
                .dims()
                .iter()
                .enumerate()
                .any(|(d, &k)| d != axis && k == 0)
        {
            return self.sum_axis(axis);
        }
        if n == 0 {
            return Err(Error::EmptyReduction { op: "mean".into() });
        }
        if T::DTYPE.is_half() {
            return Ok(Array::from_raw(self.raw.mean_of(Some(axis))?));
        }
        (self.sum_axis(axis)?.ex() / n as f64).eval()
    }

    /// The array as bool (`x != 0`), without a copy when it already is bool.
    fn truthy(&self) -> Result<RawArray<B>> {
        if T::DTYPE == DType::Bool {
            Ok(self.raw.clone())
        } else {
            self.ex().cast(DType::Bool).eval_raw()
        }
    }
}

fn mean_check<T: Element>() -> Result<()> {
    if T::DTYPE.is_float() || T::DTYPE.is_complex() {
        Ok(())
    } else {
        Err(Error::invalid_dtype(
            "mean",
            T::DTYPE,
            "cast to f32 or f64 first, e.g. `a.cast::<f64>()?.mean()`",
        ))
    }
}
