//! Arrays made from a rule rather than data: evenly spaced values (`linspace`, and
//! `logspace` as a power of it), identity and band matrices (`eye`, `identity`, `tri`) and
//! coordinate grids (`meshgrid`).
//!
//! Each is one fused elementwise kernel over the element index (`Expr::index`), so they run
//! on every backend at the speed of a fill and need nothing from a backend beyond
//! elementwise programs. Diagonals compare `column − row` with `k`: from the linear index
//! `p = i·m + j` of a `[n, m]` matrix, `j − i = p − (p / m)·(m + 1)`, which cannot
//! overflow for any shape that fits in memory (`i + k` could, for `k` near `i64::MAX`).

use crate::array::Array;
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::expr::Expr;
use crate::scalar::Scalar;

/// How `meshgrid` orders its output axes (NumPy's `indexing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexing {
    /// Cartesian: with two or more inputs the first two output axes are swapped, so that
    /// `meshgrid(x, y)` has shape `[len(y), len(x)]` (NumPy's default).
    Xy,
    /// Matrix: output axis `i` runs along input `i`.
    Ij,
}

/// `column − row` of each element of a `[rows, cols]` matrix (`cols > 0`), as i64.
fn column_minus_row<B: Backend>(backend: &B, rows: usize, cols: usize) -> Result<Expr<B>> {
    let m = i64::try_from(cols)
        .ok()
        .filter(|&m| m < i64::MAX)
        .ok_or_else(|| Error::invalid_arg("eye/tri", format!("{cols} columns")))?;
    let p = || Expr::index(backend, &[rows, cols]);
    Ok(p() - (p() / m) * (m + 1))
}

/// Ones where `keep(column − row, k)` holds, zeros elsewhere, in a `[n, m]` matrix.
fn band<T: Element, B: Backend>(
    backend: &B,
    n: usize,
    m: usize,
    k: isize,
    lower: bool,
) -> Result<Array<T, B>> {
    if n == 0 || m == 0 {
        return Array::zeros(backend, &[n, m]);
    }
    let d = column_minus_row(backend, n, m)?;
    let k = Scalar::I64(k as i64);
    let on = if lower { d.le(k) } else { d.eq(k) };
    on.select(T::one().to_scalar(), T::zero().to_scalar())
        .eval()
}

fn real_float_only(op: &str, dtype: DType) -> Result<()> {
    if dtype.is_float() {
        Ok(())
    } else {
        Err(Error::invalid_dtype(
            op,
            dtype,
            "use f32 or f64 (cast the result for other types)",
        ))
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// `num` evenly spaced values from `start` to `stop` (NumPy's `linspace`), f32 or f64.
    ///
    /// With `endpoint`, the last value is exactly `stop` and the step is
    /// `(stop − start)/(num − 1)`; without it, `stop` is left out and the step is
    /// `(stop − start)/num`. The step is computed in f64 and rounded once to `T`; element
    /// `i` (but an exact endpoint) is `start + i·step` computed in `T`, so an f32 result may
    /// differ from NumPy's (computed in f64, then rounded) by an ulp or so.
    pub fn linspace(backend: &B, start: T, stop: T, num: usize, endpoint: bool) -> Result<Self> {
        real_float_only("linspace", T::DTYPE)?;
        let as_f64 = |v: T| match v.to_scalar().cast(DType::F64) {
            Scalar::F64(x) => x,
            _ => f64::NAN,
        };
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let span = as_f64(stop) - as_f64(start);
        // One value (or none): only `start` is used, as in NumPy.
        let step = if div == 0 { 0.0 } else { span / div as f64 };
        let step = Scalar::F64(step).cast(T::DTYPE);
        let values = Expr::index(backend, &[num]).cast(T::DTYPE) * step + start.to_scalar();
        if endpoint && num > 1 {
            let last = Scalar::I64(i64::try_from(num - 1).unwrap_or(i64::MAX));
            Expr::index(backend, &[num])
                .eq(last)
                .select(stop.to_scalar(), values)
                .eval()
        } else {
            values.eval()
        }
    }

    /// `num` values spaced evenly on a log scale (NumPy's `logspace`), f32 or f64: element
    /// `i` is `base^y[i]`, where `y = linspace(start, stop, num, endpoint)` (this crate's
    /// [`linspace`](Self::linspace), computed in `T`) and the power is the elementwise
    /// `pow` of `T`. So with `endpoint` the last value is `base^stop`, the first is always
    /// `base^start`, and `num == 0` gives an empty array. A negative base gives NaN where
    /// the exponent is not an integer (as NumPy's `power` does). NumPy computes in f64 and
    /// rounds once; an f32 result here may differ from NumPy's by a few ulps (the exponent's
    /// own rounding, times `|y·ln(base)|`).
    pub fn logspace(
        backend: &B,
        start: T,
        stop: T,
        num: usize,
        endpoint: bool,
        base: T,
    ) -> Result<Self> {
        real_float_only("logspace", T::DTYPE)?;
        let y = Self::linspace(backend, start, stop, num, endpoint)?;
        Expr::scalar(base.to_scalar()).pow(&y).eval()
    }

    /// A `[n, m]` matrix with ones on diagonal `k` and zeros elsewhere (NumPy's `eye`):
    /// element `(i, j)` is one where `j − i == k` (`k > 0` above the main diagonal, `k < 0`
    /// below). Any element type (`true`/`false` for bool).
    pub fn eye(backend: &B, n: usize, m: usize, k: isize) -> Result<Self> {
        band(backend, n, m, k, false)
    }

    /// The `[n, n]` identity matrix: `eye(n, n, 0)`.
    pub fn identity(backend: &B, n: usize) -> Result<Self> {
        Self::eye(backend, n, n, 0)
    }

    /// A `[n, m]` matrix with ones at and below diagonal `k` and zeros above it (NumPy's
    /// `tri`): element `(i, j)` is one where `j − i ≤ k`. Any element type.
    pub fn tri(backend: &B, n: usize, m: usize, k: isize) -> Result<Self> {
        band(backend, n, m, k, true)
    }

    /// Coordinate arrays from coordinate vectors (NumPy's `meshgrid` with copies): for
    /// inputs of lengths `n₀, n₁, …` (each flattened), output `i` repeats input `i` along
    /// every other axis. The shape is `[n₀, n₁, …]` with [`Indexing::Ij`]; with
    /// [`Indexing::Xy`] and two or more inputs the first two lengths swap. Every output is
    /// a new array. All inputs must be on one device.
    pub fn meshgrid(inputs: &[&Array<T, B>], indexing: Indexing) -> Result<Vec<Self>> {
        let mut dims: Vec<usize> = inputs.iter().map(|a| a.len()).collect();
        let xy = indexing == Indexing::Xy && dims.len() >= 2;
        if xy {
            dims.swap(0, 1);
        }
        if let Some((first, rest)) = inputs.split_first() {
            for a in rest {
                first.raw.same_device("meshgrid", &a.raw)?;
            }
        }
        let mut out = Vec::with_capacity(inputs.len());
        for (i, a) in inputs.iter().enumerate() {
            let axis = match (xy, i) {
                (true, 0) => 1,
                (true, 1) => 0,
                _ => i,
            };
            let mut along = vec![1isize; dims.len()];
            along[axis] = isize::try_from(a.len()).map_err(|_| {
                Error::invalid_arg("meshgrid", format!("an input of {} elements", a.len()))
            })?;
            let line = a.reshape(&along)?;
            out.push(line.broadcast_to(&dims)?);
        }
        Ok(out)
    }
}
