//! `repeat` with one count per element (NumPy `np.repeat(a, counts, axis)`), composed on
//! the device of a scan, a histogram and a gather, so every backend runs it without a
//! kernel of its own.
//!
//! With `c` the inclusive cumulative sum of the counts and `total = c[n − 1]`, output
//! position `q` (along the axis) comes from element `#{k : c[k] ≤ q}`: the histogram of `c`
//! (`bincount`, `total + 1` bins) summed cumulatively gives exactly that count for every
//! `q < total`, and `take` gathers the elements. Elements with count 0 contribute nothing
//! (their `c[k]` equals the previous one, so the histogram counts them with it).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{IndexMode, ReduceOp, ScanOp};
use crate::ops::index_space::as_i64;
use crate::shape;

fn negative(c: i64) -> Error {
    Error::invalid_arg(
        "repeat_counts",
        format!("count {c} is negative; counts must be 0 or more"),
    )
}

/// The i64 values of a small i64 array, read back in one transfer.
fn read_i64<B: Backend>(a: &RawArray<B>) -> Result<Vec<i64>> {
    i64::from_bytes(&a.to_bytes()?)
}

impl<B: Backend> RawArray<B> {
    /// Element `k` along `axis` repeated `counts[k]` times (NumPy `repeat` with an array of
    /// counts); `None` repeats the elements of the flattened array. `counts` is 0-d or 1-D,
    /// of any integer type; its length must equal the axis length (`ShapeMismatch`
    /// otherwise), or be 1, when its one count applies to every element (as
    /// [`repeat`](Self::repeat)). A negative count is an `InvalidArgument` error (NumPy's
    /// `ValueError`); bool and float counts are `InvalidDType` errors. The result has
    /// `Σ counts` elements along the axis (the axis length times the count, for one count)
    /// and is a new array.
    ///
    /// It costs one read-back of the counts' minimum, maximum and sum (one transfer of
    /// three values), then a scan, a histogram and a gather on the device.
    pub fn repeat_counts(&self, counts: &RawArray<B>, axis: Option<usize>) -> Result<RawArray<B>> {
        let _span = crate::profiling::operation("repeat_counts");
        let op = "repeat_counts";
        self.same_device(op, counts)?;
        if !counts.dtype.is_integer() {
            return Err(Error::invalid_dtype(
                op,
                counts.dtype,
                "counts are integers (i32, i64, u32, u64, u8, ...)",
            ));
        }
        if counts.ndim() > 1 {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: "0-d or 1-D counts".into(),
                got: counts.ndim(),
            });
        }
        let (a, axis) = match axis {
            Some(ax) => (self.clone(), ax),
            None => (self.flattened()?, 0),
        };
        shape::check_axis(op, axis, a.ndim())?;
        let counts = as_i64(op, counts)?;
        let n = a.dims[axis];
        if counts.len() == 1 {
            let c = read_i64(&counts)?.first().copied().unwrap_or(0);
            let c = usize::try_from(c).map_err(|_| negative(c))?;
            return a.repeat(c, Some(axis));
        }
        if counts.len() != n {
            return Err(Error::ShapeMismatch {
                op: format!("{op} (one count per element along axis {axis}, or one count)"),
                lhs: a.dims.clone(),
                rhs: counts.dims.clone(),
            });
        }
        let mut out_dims = a.dims.clone();
        let total = if n == 0 {
            0
        } else {
            let counts = counts.reshape(&[n as isize])?;
            let one = |r: ReduceOp| counts.reduce(r, None)?.reshape(&[1]);
            let stats = [
                one(ReduceOp::Min)?,
                one(ReduceOp::Max)?,
                one(ReduceOp::Sum)?,
            ];
            let refs: Vec<&RawArray<B>> = stats.iter().collect();
            let v = read_i64(&RawArray::concatenate(&refs, 0)?)?;
            let (lo, hi, sum) = match v[..] {
                [lo, hi, sum] => (lo, hi, sum),
                _ => return Err(Error::invalid_arg(op, "the backend returned no sums")),
            };
            if lo < 0 {
                return Err(negative(lo));
            }
            // The i64 sum wraps only if n·max does not fit; such a result fits no memory.
            if (hi as u128) * (n as u128) > i64::MAX as u128 {
                return Err(Error::invalid_arg(
                    op,
                    "the result would have more than i64::MAX elements",
                ));
            }
            usize::try_from(sum).map_err(|_| negative(sum))?
        };
        out_dims[axis] = total;
        shape::checked_numel(&out_dims)?;
        if total == 0 || shape::numel(&out_dims) == 0 {
            a.ensure_alive()?;
            counts.ensure_alive()?;
            return RawArray::alloc(&a.backend, a.dtype, &out_dims);
        }
        let ends = counts.reshape(&[n as isize])?.scan(ScanOp::Sum, 0)?;
        let hist = ends.bincount(None, total + 1)?;
        let first = 0..total;
        let source = hist
            .view(std::slice::from_ref(&first))?
            .scan(ScanOp::Sum, 0)?;
        a.take(&source, Some(axis), IndexMode::Raise)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// [`RawArray::repeat_counts`]: element `k` along `axis` (or of the flattened array)
    /// repeated `counts[k]` times (NumPy `repeat` with an array of counts).
    ///
    /// ```
    /// # use gpuarrays_core::Array;
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let a = Array::<f32, _>::from_slice(&cpu, &[3], &[1.0, 2.0, 3.0])?;
    /// let c = Array::<i32, _>::from_slice(&cpu, &[3], &[2, 0, 1])?;
    /// assert_eq!(a.repeat_counts(&c, None)?.to_vec()?, [1.0, 1.0, 3.0]);
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn repeat_counts<I: Element>(
        &self,
        counts: &Array<I, B>,
        axis: Option<usize>,
    ) -> Result<Self> {
        Ok(Array::from_raw(self.raw.repeat_counts(&counts.raw, axis)?))
    }
}
