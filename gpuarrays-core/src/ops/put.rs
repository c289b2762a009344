//! Scatters, in place: `put` (NumPy), `put_along_axis` (NumPy) and `scatter_add`
//! (PyTorch's `scatter_add_` with NumPy broadcasting), `index_copy` and `index_add`
//! (PyTorch; `index_add` is NumPy's `add.at` along an axis).
//!
//! When several updates reach one element: a store keeps one of them (the CPU reference
//! the last in row-major order of the indices, a GPU any one), and an addition adds them
//! all (the CPU reference in row-major order, so its float sums are reproducible; GPUs
//! with atomics, in an order that may change the last bits from run to run).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{IndexMode, ScatterOp};
use crate::ops::copy::copy_raw;
use crate::ops::eval::check_writable;
use crate::ops::index_space::{Folded, as_i64, check_space, scatter};
use crate::ops::take::along_axis_dims;
use crate::shape;
use crate::support::OpKind;

/// One scatter into `target` (any view that can be written) whose index space is
/// `[outer, count, inner]`: the target folded around `axis`, the index and values already
/// folded over the space. A target that does not fold is scattered into a copy and copied
/// back.
#[allow(clippy::too_many_arguments)]
fn scatter_into<B: Backend>(
    op: ScatterOp,
    target: &RawArray<B>,
    axis: usize,
    index: &Folded<'_, B>,
    values: &Folded<'_, B>,
    dims: [usize; 3],
    extent: usize,
    mode: IndexMode,
) -> Result<()> {
    let t = Folded::new(target, axis..axis + 1)?;
    scatter(op, &t, index, values, dims, extent, mode)?;
    if let std::borrow::Cow::Owned(copy) = &t.array {
        copy_raw(copy, target)?;
    }
    Ok(())
}

/// `a`, or a copy of it when it lies in `target`'s buffer (a kernel must not read what it
/// writes).
fn apart<B: Backend>(a: RawArray<B>, target: &RawArray<B>) -> Result<RawArray<B>> {
    if crate::DataRef::same_buffer(&a.data, &target.data) {
        a.copy()
    } else {
        Ok(a)
    }
}

/// Checks shared by every scatter: same device, writable, matching element types.
fn check_target<B: Backend>(
    op: &str,
    target: &RawArray<B>,
    indices: &RawArray<B>,
    values: &RawArray<B>,
    scatter_op: ScatterOp,
) -> Result<()> {
    target.same_device(op, indices)?;
    target.same_device(op, values)?;
    check_writable(op, target)?;
    if values.dtype != target.dtype {
        return Err(Error::DTypeMismatch {
            op: op.into(),
            lhs: target.dtype,
            rhs: values.dtype,
        });
    }
    if scatter_op == ScatterOp::Add && !target.dtype.is_numeric() {
        return Err(Error::invalid_dtype(
            op,
            target.dtype,
            "bool is not added; cast to an integer type, or use a store (put)",
        ));
    }
    // Asked before any shortcut (no values, no indices), so a refused type is refused for
    // every shape.
    crate::support::ensure_supported(
        &target.backend,
        target.dtype,
        crate::support::OpKind::Scatter,
    )
}

impl<B: Backend> RawArray<B> {
    /// Stores `values` at the flat (row-major) positions `indices` (NumPy `put`): `values`
    /// is read flattened and repeated as needed to match the number of indices (no values:
    /// nothing is stored); `mode` says what an out-of-range index means.
    pub fn put(&self, indices: &RawArray<B>, values: &RawArray<B>, mode: IndexMode) -> Result<()> {
        let op = "put";
        check_target(op, self, indices, values, ScatterOp::Assign)?;
        let index = apart(as_i64(op, indices)?, self)?;
        let n = index.len();
        if values.is_empty() {
            // NumPy stores nothing when there are no values.
            return self.ensure_alive();
        }
        let flat_target = self.flattened()?;
        let target_is_view = crate::DataRef::same_buffer(&flat_target.data, &self.data);
        if !check_space(
            op,
            (self.dtype, OpKind::Scatter),
            &index,
            n,
            self.len(),
            mode,
        )? {
            return values.ensure_alive();
        }
        // NumPy repeats the values cyclically: a gather of `values` at `0..n` modulo their
        // count, only when the counts differ.
        let mut vals = apart(values.flattened()?, self)?;
        if vals.len() != n {
            let positions = crate::ops::expr::Expr::index(&self.backend, &[n]).eval_raw()?;
            vals = vals.take(&positions, Some(0), IndexMode::Wrap)?;
        }
        let idx = Folded::middle(&index)?;
        let v = Folded::new(&vals, 0..1)?;
        let dims = [1, n, 1];
        scatter_into(
            ScatterOp::Assign,
            &flat_target,
            0,
            &idx,
            &v,
            dims,
            self.len(),
            mode,
        )?;
        if !target_is_view {
            copy_raw(&flat_target.reshape(&self.dims_isize())?, self)?;
        }
        Ok(())
    }

    /// Stores `values` at `indices` along `axis`, index by index (NumPy `put_along_axis`):
    /// `indices` has the array's rank, its other dimensions broadcast to the array's, and
    /// `values` broadcasts to the indices' (broadcast) shape. Out-of-range indices are an
    /// error (negative ones count from the end).
    pub fn put_along_axis(
        &self,
        indices: &RawArray<B>,
        values: &RawArray<B>,
        axis: usize,
    ) -> Result<()> {
        self.along_axis("put_along_axis", ScatterOp::Assign, indices, values, axis)
    }

    /// Adds `values` at `indices` along `axis`, index by index (PyTorch `scatter_add_`,
    /// with NumPy broadcasting as in [`put_along_axis`](Self::put_along_axis)); repeated
    /// indices add every value. Integers wrap.
    pub fn scatter_add(
        &self,
        indices: &RawArray<B>,
        values: &RawArray<B>,
        axis: usize,
    ) -> Result<()> {
        self.along_axis("scatter_add", ScatterOp::Add, indices, values, axis)
    }

    fn along_axis(
        &self,
        op: &str,
        sop: ScatterOp,
        indices: &RawArray<B>,
        values: &RawArray<B>,
        axis: usize,
    ) -> Result<()> {
        check_target(op, self, indices, values, sop)?;
        shape::check_axis(op, axis, self.ndim())?;
        let index = apart(as_i64(op, indices)?, self)?;
        if index.ndim() != self.ndim() {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: format!("indices with the array's {} dimensions", self.ndim()),
                got: index.ndim(),
            });
        }
        let (target_dims, space) = along_axis_dims(op, &self.dims, &index.dims, axis)?;
        if target_dims != self.dims {
            return Err(Error::ShapeMismatch {
                op: format!("{op} (indices must broadcast to the array outside axis {axis})"),
                lhs: self.dims.clone(),
                rhs: index.dims.clone(),
            });
        }
        let index = index.broadcast_view(&space)?;
        let values = apart(values.broadcast_to(&space)?, self)?;
        let (outer, count, inner) = shape::split_at_axis(&space, axis);
        let extent = self.dims[axis];
        if !check_space(
            op,
            (self.dtype, OpKind::Scatter),
            &index,
            outer * count * inner,
            extent,
            IndexMode::Raise,
        )? {
            return values.ensure_alive();
        }
        let idx = Folded::new(&index, axis..axis + 1)?;
        let v = Folded::new(&values, axis..axis + 1)?;
        scatter_into(
            sop,
            self,
            axis,
            &idx,
            &v,
            [outer, count, inner],
            extent,
            IndexMode::Raise,
        )
    }

    /// Stores `values` into the slices at `indices` along `axis` (PyTorch `index_copy_`,
    /// NumPy `a[..., indices, ...] = values`): `values` broadcasts to
    /// `dims[..axis] + indices.dims + dims[axis + 1..]` (the shape `take` would return).
    pub fn index_copy(
        &self,
        axis: usize,
        indices: &RawArray<B>,
        values: &RawArray<B>,
    ) -> Result<()> {
        self.index_scatter("index_copy", ScatterOp::Assign, axis, indices, values)
    }

    /// Adds `values` into the slices at `indices` along `axis` (PyTorch `index_add_`, NumPy
    /// `add.at(a, (..., indices), values)`); repeated indices add every value.
    pub fn index_add(
        &self,
        axis: usize,
        indices: &RawArray<B>,
        values: &RawArray<B>,
    ) -> Result<()> {
        self.index_scatter("index_add", ScatterOp::Add, axis, indices, values)
    }

    fn index_scatter(
        &self,
        op: &str,
        sop: ScatterOp,
        axis: usize,
        indices: &RawArray<B>,
        values: &RawArray<B>,
    ) -> Result<()> {
        check_target(op, self, indices, values, sop)?;
        shape::check_axis(op, axis, self.ndim())?;
        let index = apart(as_i64(op, indices)?, self)?;
        let mut space = self.dims[..axis].to_vec();
        space.extend_from_slice(&index.dims);
        space.extend_from_slice(&self.dims[axis + 1..]);
        let values = apart(values.broadcast_to(&space)?, self)?;
        let (outer, extent, inner) = shape::split_at_axis(&self.dims, axis);
        let count = index.len();
        if !check_space(
            op,
            (self.dtype, OpKind::Scatter),
            &index,
            outer * count * inner,
            extent,
            IndexMode::Raise,
        )? {
            return values.ensure_alive();
        }
        let idx = Folded::middle(&index)?;
        let v = Folded::new(&values, axis..axis + index.ndim())?;
        scatter_into(
            sop,
            self,
            axis,
            &idx,
            &v,
            [outer, count, inner],
            extent,
            IndexMode::Raise,
        )
    }

    fn dims_isize(&self) -> Vec<isize> {
        self.dims.iter().map(|&d| d as isize).collect()
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// [`RawArray::put`]: stores `values` at flat positions `indices`.
    pub fn put<I: Element>(
        &mut self,
        indices: &Array<I, B>,
        values: &Array<T, B>,
        mode: IndexMode,
    ) -> Result<()> {
        self.raw.put(&indices.raw, &values.raw, mode)
    }

    /// [`RawArray::put_along_axis`].
    pub fn put_along_axis<I: Element>(
        &mut self,
        indices: &Array<I, B>,
        values: &Array<T, B>,
        axis: usize,
    ) -> Result<()> {
        self.raw.put_along_axis(&indices.raw, &values.raw, axis)
    }

    /// [`RawArray::scatter_add`] (PyTorch `scatter_add_`).
    ///
    /// ```
    /// # use gpuarrays_core::Array;
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let mut counts = Array::<i64, _>::zeros(&cpu, &[3])?;
    /// let labels = Array::<i64, _>::from_slice(&cpu, &[5], &[2, 0, 2, 2, 1])?;
    /// let ones = Array::<i64, _>::ones(&cpu, &[5])?;
    /// counts.scatter_add(&labels, &ones, 0)?;
    /// assert_eq!(counts.to_vec()?, [1, 1, 3]);
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn scatter_add<I: Element>(
        &mut self,
        indices: &Array<I, B>,
        values: &Array<T, B>,
        axis: usize,
    ) -> Result<()> {
        self.raw.scatter_add(&indices.raw, &values.raw, axis)
    }

    /// [`RawArray::index_copy`] (PyTorch `index_copy_`).
    pub fn index_copy<I: Element>(
        &mut self,
        axis: usize,
        indices: &Array<I, B>,
        values: &Array<T, B>,
    ) -> Result<()> {
        self.raw.index_copy(axis, &indices.raw, &values.raw)
    }

    /// [`RawArray::index_add`] (PyTorch `index_add_`, NumPy `add.at` along an axis).
    pub fn index_add<I: Element>(
        &mut self,
        axis: usize,
        indices: &Array<I, B>,
        values: &Array<T, B>,
    ) -> Result<()> {
        self.raw.index_add(axis, &indices.raw, &values.raw)
    }
}
