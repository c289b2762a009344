//! Boolean masks and positions: `masked_select` and `masked_assign` (NumPy `a[mask]` and
//! `a[mask] = values`), `masked_fill`, `nonzero` and `argwhere`, `bincount`.
//!
//! A mask covers the array's leading dimensions (all of them, or fewer, as in NumPy): its
//! true positions are found once (`find`, ascending), then one gather or scatter moves the
//! selected elements or trailing slices. `masked_fill` with one value needs no positions: it
//! is one elementwise select.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{IndexMode, ReduceOp, ScatterOp};
use crate::ops::expr::Expr;
use crate::ops::index_space::{Folded, check_space, gather, scatter};
use crate::scalar::Scalar;
use crate::support::OpKind;

impl<B: Backend> RawArray<B> {
    /// Checks that `mask` is a bool array covering this array's leading dimensions, and
    /// returns the flat positions of its true elements (ascending) and the trailing
    /// dimensions each selects.
    fn mask_positions(&self, op: &str, mask: &RawArray<B>) -> Result<(RawArray<B>, Vec<usize>)> {
        self.mask_positions_shape(op, mask)?;
        let k = mask.ndim();
        let positions = if k == 0 {
            // A 0-d mask selects the whole array once, or nothing.
            let hit = mask.to_bytes()?.first().is_some_and(|&b| b != 0);
            Expr::index(&self.backend, &[usize::from(hit)]).eval_raw()?
        } else {
            mask.find()?
        };
        Ok((positions, self.dims[k..].to_vec()))
    }

    /// This array with its first `k` dimensions merged (a view when possible).
    fn merge_leading(&self, k: usize) -> Result<RawArray<B>> {
        let mut dims: Vec<isize> = vec![self.dims[..k].iter().product::<usize>() as isize];
        dims.extend(self.dims[k..].iter().map(|&d| d as isize));
        match self.reshape(&dims) {
            Ok(v) => Ok(v),
            Err(_) => self.copy()?.reshape(&dims),
        }
    }

    /// The elements (or trailing slices) where `mask` is true, in row-major order (NumPy
    /// `a[mask]`): shape `[count] + dims[mask.ndim()..]`.
    pub fn masked_select(&self, mask: &RawArray<B>) -> Result<RawArray<B>> {
        let op = "masked_select";
        let (positions, rest) = self.mask_positions(op, mask)?;
        let source = self.merge_leading(mask.ndim())?;
        let count = positions.len();
        let inner: usize = rest.iter().product();
        let mut out_dims = vec![count];
        out_dims.extend_from_slice(&rest);
        let extent = source.dims[0];
        // Positions come from `find`: in range by construction, so no check.
        if !check_space(
            op,
            (self.dtype, OpKind::Gather),
            &positions,
            count * inner,
            extent,
            IndexMode::Clip,
        )? {
            return RawArray::alloc(&self.backend, self.dtype, &out_dims);
        }
        let src = Folded::new(&source, 0..1)?;
        let idx = Folded::new(&positions, 0..1)?;
        gather(
            op,
            &src,
            &idx,
            [1, count, inner],
            extent,
            IndexMode::Clip,
            &out_dims,
        )
    }

    /// Stores `values` where `mask` is true (NumPy `a[mask] = values`): `values`
    /// broadcasts to `[count] + dims[mask.ndim()..]` (one value for all, one per selected
    /// element, or one slice per selected position).
    pub fn masked_assign(&self, mask: &RawArray<B>, values: &RawArray<B>) -> Result<()> {
        let op = "masked_assign";
        self.same_device(op, values)?;
        crate::ops::eval::check_writable(op, self)?;
        if values.dtype != self.dtype {
            return Err(Error::DTypeMismatch {
                op: op.into(),
                lhs: self.dtype,
                rhs: values.dtype,
            });
        }
        let (positions, rest) = self.mask_positions(op, mask)?;
        let count = positions.len();
        let mut space = vec![count];
        space.extend_from_slice(&rest);
        let values = values.broadcast_to(&space)?;
        let values = if crate::DataRef::same_buffer(&values.data, &self.data) {
            values.copy()?
        } else {
            values
        };
        let target = self.merge_leading(mask.ndim())?;
        let inner: usize = rest.iter().product();
        let extent = target.dims[0];
        if !check_space(
            op,
            (self.dtype, OpKind::Scatter),
            &positions,
            count * inner,
            extent,
            IndexMode::Clip,
        )? {
            return values.ensure_alive();
        }
        let t = Folded::new(&target, 0..1)?;
        let idx = Folded::new(&positions, 0..1)?;
        let v = Folded::new(&values, 0..1)?;
        scatter(
            ScatterOp::Assign,
            &t,
            &idx,
            &v,
            [1, count, inner],
            extent,
            IndexMode::Clip,
        )?;
        if !crate::DataRef::same_buffer(&target.data, &self.data) {
            crate::ops::copy::copy_raw(&target.reshape(&dims_isize(&self.dims))?, self)?;
        }
        Ok(())
    }

    /// Sets the elements where `mask` is true to `value` (PyTorch `masked_fill_`, NumPy
    /// `a[mask] = value`): one elementwise select, no positions.
    pub fn masked_fill(&self, mask: &RawArray<B>, value: Scalar) -> Result<()> {
        let op = "masked_fill";
        self.mask_positions_shape(op, mask)?;
        if value.dtype() != self.dtype {
            return Err(Error::DTypeMismatch {
                op: op.into(),
                lhs: self.dtype,
                rhs: value.dtype(),
            });
        }
        let mut dims = dims_isize(&mask.dims);
        dims.resize(self.ndim(), 1);
        let m = mask
            .reshape(&dims)
            .or_else(|_| mask.copy()?.reshape(&dims))?;
        Expr::array(&m)
            .select(value, Expr::array(self))
            .eval_into_raw(self)
    }

    /// The shape checks of [`mask_positions`](Self::mask_positions) without finding.
    fn mask_positions_shape(&self, op: &str, mask: &RawArray<B>) -> Result<()> {
        self.same_device(op, mask)?;
        if mask.dtype != DType::Bool {
            return Err(Error::invalid_dtype(
                op,
                mask.dtype,
                "the mask must be bool; compare first",
            ));
        }
        let k = mask.ndim();
        if k > self.ndim() || mask.dims[..] != self.dims[..k] {
            return Err(Error::ShapeMismatch {
                op: format!("{op} (the mask must have the array's leading dimensions)"),
                lhs: self.dims.clone(),
                rhs: mask.dims.clone(),
            });
        }
        Ok(())
    }

    /// The indices of the non-zero (true) elements, one i64 array per dimension (NumPy
    /// `nonzero`), in row-major order. A 0-d array is refused, as by NumPy.
    pub fn nonzero(&self) -> Result<Vec<RawArray<B>>> {
        if self.ndim() == 0 {
            return Err(Error::RankMismatch {
                op: "nonzero".into(),
                expected: "at least 1 dimension (use `atleast_1d`-style reshape first)".into(),
                got: 0,
            });
        }
        let flat = self.find()?;
        let mut stride = 1i64;
        let mut per_axis = Vec::with_capacity(self.ndim());
        for &d in self.dims.iter().rev() {
            let p = Expr::array(&flat) / Scalar::I64(stride) % Scalar::I64(d.max(1) as i64);
            per_axis.push(p.eval_raw()?);
            stride = stride.saturating_mul(d as i64);
        }
        per_axis.reverse();
        Ok(per_axis)
    }

    /// The indices of the non-zero (true) elements as one `(count, ndim)` i64 array (NumPy
    /// `argwhere`).
    pub fn argwhere(&self) -> Result<RawArray<B>> {
        if self.ndim() == 0 {
            let truth = Expr::array(self).cast(DType::Bool).eval_raw()?.to_bytes()?;
            let n = usize::from(truth.first().is_some_and(|&b| b != 0));
            return RawArray::alloc(&self.backend, DType::I64, &[n, 0]);
        }
        let axes = self.nonzero()?;
        let refs: Vec<&RawArray<B>> = axes.iter().collect();
        RawArray::stack(&refs, 1)
    }

    /// How many times each value `0..=max` occurs in this 1-D array of non-negative
    /// integers (NumPy `bincount`): i64 counts, or with `weights` (same length, any real
    /// type) the sum of the weights per value as f64. The result has at least `minlength`
    /// elements.
    pub fn bincount(&self, weights: Option<&RawArray<B>>, minlength: usize) -> Result<RawArray<B>> {
        let op = "bincount";
        if self.ndim() != 1 {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: "a 1-D array".into(),
                got: self.ndim(),
            });
        }
        let index = crate::ops::index_space::as_i64(op, self)?;
        let values = match weights {
            None => {
                RawArray::full(&self.backend, &[1], Scalar::I64(1))?.broadcast_to(&self.dims)?
            }
            Some(w) => {
                self.same_device(op, w)?;
                if w.dims != self.dims {
                    return Err(Error::ShapeMismatch {
                        op: format!("{op} (weights must match the values)"),
                        lhs: self.dims.clone(),
                        rhs: w.dims.clone(),
                    });
                }
                if w.dtype == DType::Bool || w.dtype.is_complex() {
                    return Err(Error::invalid_dtype(
                        op,
                        w.dtype,
                        "weights are real numbers (they are summed as f64)",
                    ));
                }
                Expr::array(w).cast(DType::F64).eval_raw()?
            }
        };
        let n = index.len();
        let len = if n == 0 {
            minlength
        } else {
            let lo = index.reduce_all(ReduceOp::Min)?;
            let hi = index.reduce_all(ReduceOp::Max)?;
            match (lo, hi) {
                (Scalar::I64(lo), _) if lo < 0 => {
                    return Err(Error::IndexOutOfRange {
                        op: op.into(),
                        index: lo,
                        len: 0,
                        hint: "bincount counts non-negative integers".into(),
                    });
                }
                (_, Scalar::I64(hi)) => usize::try_from(hi)
                    .ok()
                    .and_then(|h| h.checked_add(1))
                    .ok_or_else(|| Error::invalid_arg(op, "the largest value is too large"))?
                    .max(minlength),
                _ => minlength,
            }
        };
        let out = RawArray::full(&self.backend, &[len], Scalar::zero(values.dtype))?;
        if !check_space(
            op,
            (out.dtype, OpKind::Scatter),
            &index,
            n,
            len,
            IndexMode::Clip,
        )? {
            return Ok(out);
        }
        let t = Folded::new(&out, 0..1)?;
        let idx = Folded::new(&index, 0..1)?;
        let v = Folded::new(&values, 0..1)?;
        scatter(
            ScatterOp::Add,
            &t,
            &idx,
            &v,
            [1, n, 1],
            len,
            IndexMode::Clip,
        )?;
        Ok(out)
    }
}

fn dims_isize(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

impl<T: Element, B: Backend> Array<T, B> {
    /// [`RawArray::masked_select`]: NumPy `a[mask]`.
    pub fn masked_select(&self, mask: &Array<bool, B>) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.masked_select(&mask.raw)?))
    }

    /// [`RawArray::masked_assign`]: NumPy `a[mask] = values`.
    pub fn masked_assign(&mut self, mask: &Array<bool, B>, values: &Array<T, B>) -> Result<()> {
        self.raw.masked_assign(&mask.raw, &values.raw)
    }

    /// [`RawArray::masked_fill`]: NumPy `a[mask] = value`.
    pub fn masked_fill(&mut self, mask: &Array<bool, B>, value: T) -> Result<()> {
        self.raw.masked_fill(&mask.raw, value.to_scalar())
    }

    /// [`RawArray::nonzero`]: one index array per dimension.
    pub fn nonzero(&self) -> Result<Vec<Array<i64, B>>> {
        Ok(self
            .raw
            .nonzero()?
            .into_iter()
            .map(Array::from_raw)
            .collect())
    }

    /// [`RawArray::argwhere`]: a `(count, ndim)` array of indices.
    pub fn argwhere(&self) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.argwhere()?))
    }

    /// [`RawArray::bincount`] without weights: i64 counts of each value.
    ///
    /// ```
    /// # use gpuarrays_core::Array;
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let x = Array::<i32, _>::from_slice(&cpu, &[5], &[1, 3, 1, 0, 1])?;
    /// assert_eq!(x.bincount(0)?.to_vec()?, [1, 3, 0, 1]);
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn bincount(&self, minlength: usize) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.bincount(None, minlength)?))
    }

    /// [`RawArray::bincount`] with weights: the f64 sum of the weights per value.
    pub fn bincount_weighted<W: Element>(
        &self,
        weights: &Array<W, B>,
        minlength: usize,
    ) -> Result<Array<f64, B>> {
        Ok(Array::from_raw(
            self.raw.bincount(Some(&weights.raw), minlength)?,
        ))
    }
}
