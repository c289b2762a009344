//! The sort family along any axis: `argsort` (stable), `sort_along`, `partition` and
//! `argpartition` (`topk` is in [`topk`](super::topk)). Each moves the axis last as a view,
//! sorts rows there (values with the backend's row sort, permutations with
//! [`sort_keys`](super::sort_keys)), and moves the axis back, so the result is a new
//! contiguous array of the input's layout.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::sort_keys::{SortOrder, sort_last_axis};
use crate::shape;

/// `x` with `axis` moved last (a view), and the axes that move it back.
pub(super) fn axis_last<B: Backend>(
    op: &str,
    x: &RawArray<B>,
    axis: usize,
) -> Result<(RawArray<B>, Vec<usize>)> {
    if x.ndim() == 0 {
        return Err(Error::RankMismatch {
            op: op.into(),
            expected: "at least 1 dimension (reshape a 0-d array to [1])".into(),
            got: 0,
        });
    }
    shape::check_axis(op, axis, x.ndim())?;
    let n = x.ndim();
    let mut axes: Vec<usize> = (0..n).filter(|&a| a != axis).collect();
    axes.push(axis);
    let mut back = vec![0; n];
    for (k, &a) in axes.iter().enumerate() {
        back[a] = k;
    }
    Ok((x.permute(&axes)?, back))
}

/// `a` (laid out with the axis last) with the axis back in place, contiguous.
pub(super) fn restore<B: Backend>(a: RawArray<B>, back: &[usize]) -> Result<RawArray<B>> {
    if back.iter().enumerate().all(|(k, &a)| k == a) {
        return Ok(a);
    }
    a.permute(back)?.contiguous()
}

/// `kth` counted from the end when negative, checked against `len`.
fn kth_index(op: &str, kth: isize, len: usize) -> Result<usize> {
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k as usize >= len {
        return Err(Error::invalid_arg(
            op,
            format!("kth = {kth} is out of bounds for an axis of length {len}"),
        ));
    }
    Ok(k as usize)
}

impl<B: Backend> RawArray<B> {
    /// The indices that sort the array along `axis` (NumPy `argsort(kind="stable")`,
    /// PyTorch `argsort(stable=True)`), as i64 of the array's shape: equal elements keep
    /// their order. NaNs sort last ascending and first descending; `-0.0` equals `0.0`;
    /// `false < true`. Complex arrays are refused.
    pub fn argsort(&self, axis: usize, order: SortOrder) -> Result<RawArray<B>> {
        let (moved, back) = axis_last("argsort", self, axis)?;
        let p = sort_last_axis("argsort", &moved, order, false)?;
        restore(p.perm, &back)
    }

    /// A sorted copy along `axis` (NumPy `sort(axis=...)`; descending as PyTorch's
    /// `sort(descending=True)`: NaNs first). The bits of elements that compare equal
    /// (`-0.0` and `0.0`, NaNs of other payloads) may come in any order.
    pub fn sort_along(&self, axis: usize, order: SortOrder) -> Result<RawArray<B>> {
        let (moved, back) = axis_last("sort", self, axis)?;
        let sorted = moved.sort()?;
        let sorted = match order {
            SortOrder::Ascending => sorted,
            SortOrder::Descending => sorted.reverse(self.ndim() - 1)?.contiguous()?,
        };
        restore(sorted, &back)
    }
    /// The array partitioned along `axis` around position `kth` (NumPy `partition`; negative
    /// `kth` counts from the end): the element at `kth` is the one a sort would put there,
    /// none before it is larger and none after it smaller. This implementation returns the
    /// fully sorted array, which is such a partition (the order within each side is
    /// unspecified by NumPy's contract).
    pub fn partition(&self, kth: isize, axis: usize) -> Result<RawArray<B>> {
        let op = "partition";
        let (_, _) = axis_last(op, self, axis)?;
        kth_index(op, kth, self.dims[axis])?;
        self.sort_along(axis, SortOrder::Ascending)
    }

    /// The indices that partition the array along `axis` around `kth` (NumPy
    /// `argpartition`): the stable [`argsort`](Self::argsort), which is such a partition.
    pub fn argpartition(&self, kth: isize, axis: usize) -> Result<RawArray<B>> {
        let op = "argpartition";
        let (_, _) = axis_last(op, self, axis)?;
        kth_index(op, kth, self.dims[axis])?;
        self.argsort(axis, SortOrder::Ascending)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The indices that sort the array along `axis`, stably (see [`RawArray::argsort`]).
    pub fn argsort(&self, axis: usize, order: SortOrder) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.argsort(axis, order)?))
    }

    /// A sorted copy along `axis` (see [`RawArray::sort_along`]).
    pub fn sort_along(&self, axis: usize, order: SortOrder) -> Result<Self> {
        Ok(Array::from_raw(self.raw.sort_along(axis, order)?))
    }

    /// The array partitioned around `kth` along `axis` (see [`RawArray::partition`]).
    pub fn partition(&self, kth: isize, axis: usize) -> Result<Self> {
        Ok(Array::from_raw(self.raw.partition(kth, axis)?))
    }

    /// Indices that partition the array around `kth` (see [`RawArray::argpartition`]).
    pub fn argpartition(&self, kth: isize, axis: usize) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.argpartition(kth, axis)?))
    }
}
