//! Means, variances, standard deviations and `logsumexp`, over every element or along one
//! axis, with NumPy's (and SciPy's) semantics. Composed of existing kernels (sum and max
//! reductions, elementwise expressions), so every backend has them without kernels of its
//! own.
//!
//! The variance is the two-pass formula `Σ|x − mean|² / (n − ddof)`: the mean first, then
//! the squared deviations from it. A one-pass `Σx²/n − mean²` cancels catastrophically when
//! the mean is large against the spread (values near 1e8 with unit spread lose every digit
//! in f64); the deviations of the second pass are small numbers, summed without that loss.
//!
//! Result types follow NumPy: f32 for f32 and c32 input, f64 for f64, c64 and every integer
//! type (integers are converted to f64 first); bool is refused, as by `sum`.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::ReduceOp;
use crate::ops::expr::Expr;
use crate::scalar::Scalar;
use crate::shape;

/// The type of a mean, variance or standard deviation of `t`, or why there is none.
pub fn moment_dtype(op: &str, t: DType) -> Result<DType> {
    match t {
        // The half types stay themselves (as in NumPy); their sums accumulate in f32.
        DType::F16 | DType::BF16 => Ok(t),
        DType::F32 | DType::C32 => Ok(DType::F32),
        DType::F64 | DType::C64 => Ok(DType::F64),
        DType::Bool => Err(Error::invalid_dtype(
            op,
            t,
            "it applies to numbers; cast bool to an integer or float type first",
        )),
        _ => Ok(DType::F64),
    }
}

impl<B: Backend> RawArray<B> {
    /// The array in a type it can be averaged in: integers as f64, others as they are.
    fn for_moments(&self, op: &str) -> Result<RawArray<B>> {
        moment_dtype(op, self.dtype)?;
        if self.dtype.is_integer() {
            Expr::array(self).cast(DType::F64).eval_raw()
        } else {
            Ok(self.clone())
        }
    }

    /// `f` of the array, computed in f32 and rounded once to the type for f16 and bf16 (the
    /// documented rule of their statistics: no intermediate sum or square overflows at
    /// 65504 or loses half-precision digits), `f` of the array itself for other types.
    pub(crate) fn via_f32_if_half(
        &self,
        f: impl FnOnce(&RawArray<B>) -> Result<RawArray<B>>,
    ) -> Result<RawArray<B>> {
        if !self.dtype.is_half() {
            return f(self);
        }
        let wide = Expr::array(self).cast(DType::F32).eval_raw()?;
        Expr::array(&f(&wide)?).cast(self.dtype).eval_raw()
    }

    /// The dimensions of a reduction over `axis` with that axis kept as 1 (for
    /// broadcasting against the input), and the number of elements per lane.
    pub(crate) fn kept_dims(&self, op: &str, axis: Option<usize>) -> Result<(Vec<isize>, usize)> {
        match axis {
            None => Ok((Vec::new(), self.len())),
            Some(ax) => {
                shape::check_axis(op, ax, self.ndim())?;
                let mut d: Vec<isize> = self.dims.iter().map(|&x| x as isize).collect();
                d[ax] = 1;
                Ok((d, self.dims[ax]))
            }
        }
    }

    /// The mean over every element (`None`, a 0-d result) or along `axis` (removed), as
    /// NumPy's `mean`: integers give f64; an empty lane gives NaN (0 / 0).
    pub fn mean_of(&self, axis: Option<usize>) -> Result<RawArray<B>> {
        if self.dtype.is_half() {
            return self.via_f32_if_half(|x| x.mean_of(axis));
        }
        let x = self.for_moments("mean")?;
        let (_, n) = self.kept_dims("mean", axis)?;
        let s = x.reduce(ReduceOp::Sum, axis)?;
        (Expr::array(&s) / n as f64).eval_raw()
    }

    /// The variance with `ddof` delta degrees of freedom: `Σ|x − mean|² / max(n − ddof, 0)`
    /// over every element (`None`) or along `axis`, exactly NumPy's `var(ddof=…)`: with
    /// `n ≤ ddof` the divisor is 0, giving NaN when the deviations sum to zero (always the
    /// case for `n ≤ 1`) and +inf otherwise. Complex input gives a real variance.
    pub fn var(&self, axis: Option<usize>, ddof: usize) -> Result<RawArray<B>> {
        if self.dtype.is_half() {
            return self.via_f32_if_half(|x| x.var(axis, ddof));
        }
        let x = self.for_moments("var")?;
        let (kept, n) = self.kept_dims("var", axis)?;
        let mean = x.mean_of(axis)?.reshape(&kept)?;
        let dev = || Expr::array(&x) - Expr::array(&mean);
        // |d|² as |d|·|d|: for complex, `abs` is the modulus (a real result).
        let sq = if x.dtype.is_complex() {
            dev().abs() * dev().abs()
        } else {
            dev() * dev()
        };
        let ss = sq.eval_raw()?.reduce(ReduceOp::Sum, axis)?;
        (Expr::array(&ss) / n.saturating_sub(ddof) as f64).eval_raw()
    }

    /// `sqrt(var(axis, ddof))`: NumPy's `std(ddof=…)`.
    pub fn std(&self, axis: Option<usize>, ddof: usize) -> Result<RawArray<B>> {
        if self.dtype.is_half() {
            return self.via_f32_if_half(|x| x.std(axis, ddof));
        }
        let v = self.var(axis, ddof)?;
        Expr::array(&v).sqrt().eval_raw()
    }

    /// `log Σ exp(x)` over every element (`None`) or along `axis`, computed as SciPy's
    /// `logsumexp`: shifted by the lane's maximum `m` (so no `exp` overflows), i.e.
    /// `m + log Σ exp(x − m)`, where a non-finite maximum shifts by 0 instead. So a lane of
    /// −inf only gives −inf, a lane holding +inf gives +inf, a NaN gives NaN, and an empty
    /// lane gives −inf (the log of an empty sum). Floats only (f16 and bf16 in f32, rounded
    /// once).
    pub fn logsumexp(&self, axis: Option<usize>) -> Result<RawArray<B>> {
        if !self.dtype.is_float() {
            return Err(Error::invalid_dtype(
                "logsumexp",
                self.dtype,
                "it applies to floats; cast to a float type first",
            ));
        }
        if self.dtype.is_half() {
            return self.via_f32_if_half(|x| x.logsumexp(axis));
        }
        let (kept, n) = self.kept_dims("logsumexp", axis)?;
        if n == 0 {
            let mut dims = self.dims.clone();
            if let Some(ax) = axis {
                dims.remove(ax);
            } else {
                dims.clear();
            }
            self.ensure_alive()?;
            let neg_inf = Scalar::F64(f64::NEG_INFINITY).cast(self.dtype);
            return RawArray::full(&self.backend, &dims, neg_inf);
        }
        let m = self.reduce(ReduceOp::Max, axis)?;
        // The shift: the maximum where it is finite (|m| < inf is false for NaN too), else 0.
        let shift = Expr::array(&m)
            .abs()
            .lt(f64::INFINITY)
            .select(Expr::array(&m), 0.0)
            .eval_raw()?;
        let kept_shift = shift.reshape(&kept)?;
        let e = (Expr::array(self) - Expr::array(&kept_shift))
            .exp()
            .eval_raw()?;
        let s = e.reduce(ReduceOp::Sum, axis)?;
        (Expr::array(&s).log() + Expr::array(&shift)).eval_raw()
    }
}

/// The value of a 0-d real (f16, bf16, f32 or f64) array, as f64.
pub(crate) fn real_item<B: Backend>(r: RawArray<B>) -> Result<f64> {
    match r.dtype {
        DType::F16 => Ok(r.into_typed::<half::f16>()?.item()?.to_f64()),
        DType::BF16 => Ok(r.into_typed::<half::bf16>()?.item()?.to_f64()),
        DType::F32 => Ok(r.into_typed::<f32>()?.item()? as f64),
        _ => r.into_typed::<f64>()?.item(),
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Variance of every element with `ddof` delta degrees of freedom (see
    /// [`RawArray::var`]), as f64 (an f32 or c32 array's variance is computed in f32).
    pub fn var(&self, ddof: usize) -> Result<f64> {
        real_item(self.raw.var(None, ddof)?)
    }

    /// Standard deviation of every element (see [`RawArray::std`]), as f64.
    pub fn std(&self, ddof: usize) -> Result<f64> {
        real_item(self.raw.std(None, ddof)?)
    }

    /// Variance along `axis` (removed). `R` is the result type: f32 for f32 and c32 arrays,
    /// f64 for every other numeric type (a `DTypeMismatch` error otherwise).
    pub fn var_axis<R: Element>(&self, axis: usize, ddof: usize) -> Result<Array<R, B>> {
        self.raw.var(Some(axis), ddof)?.into_typed()
    }

    /// Standard deviation along `axis` (removed); `R` as for [`var_axis`](Self::var_axis).
    pub fn std_axis<R: Element>(&self, axis: usize, ddof: usize) -> Result<Array<R, B>> {
        self.raw.std(Some(axis), ddof)?.into_typed()
    }

    /// `log Σ exp(x)` of every element, stable (see [`RawArray::logsumexp`]).
    pub fn logsumexp(&self) -> Result<T> {
        self.raw.logsumexp(None)?.into_typed::<T>()?.item()
    }

    /// `log Σ exp(x)` along `axis` (removed), stable (see [`RawArray::logsumexp`]).
    pub fn logsumexp_axis(&self, axis: usize) -> Result<Array<T, B>> {
        self.raw.logsumexp(Some(axis))?.into_typed()
    }
}
