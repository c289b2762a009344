//! `unique` (NumPy `np.unique` with `return_index`, `return_inverse`, `return_counts`),
//! built on the stable sorting permutation of [`sort_keys`](super::sort_keys): no kernel of
//! its own, so every backend has it.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{IndexMode, ScatterOp};
use crate::ops::expr::Expr;
use crate::ops::index_space::{Folded, scatter};
use crate::ops::sort_keys::{SortOrder, gather_last, sort_last_axis};
use crate::scalar::Scalar;

/// The result of [`RawArray::unique_all`]: NumPy's `np.unique(x, return_index=True,
/// return_inverse=True, return_counts=True)`.
#[derive(Debug, Clone)]
pub struct Unique<V, I> {
    /// The distinct values, ascending (1-D).
    pub values: V,
    /// For each distinct value, the flat index of its first occurrence (i64, 1-D).
    pub indices: I,
    /// For each input element, the position of its value in `values` (i64, the input's
    /// shape): `values.take(inverse)` rebuilds the input.
    pub inverse: I,
    /// How often each distinct value occurs (i64, 1-D).
    pub counts: I,
}

/// The groups of equal elements of a flattened array, in sorted order.
struct Groups<B: Backend> {
    /// The stable sorting permutation (i64, n).
    perm: RawArray<B>,
    /// Whether sorted position `j` starts a group (bool, n).
    starts_mask: RawArray<B>,
    /// The sorted positions where groups start (i64, one per distinct value).
    starts: RawArray<B>,
    /// The flat index of each group's first occurrence (i64).
    indices: RawArray<B>,
    /// Each group's value, from its first occurrence.
    values: RawArray<B>,
}

/// `target[idx[j]] = values[j]` for 1-D dense arrays, the indices distinct and in range.
fn scatter_distinct<B: Backend>(
    target: &RawArray<B>,
    idx: &RawArray<B>,
    values: &RawArray<B>,
) -> Result<()> {
    let n = idx.len();
    if n == 0 {
        return Ok(());
    }
    let (t, i, v) = (
        Folded::new(target, 0..1)?,
        Folded::new(idx, 0..1)?,
        Folded::new(values, 0..1)?,
    );
    scatter(
        ScatterOp::Assign,
        &t,
        &i,
        &v,
        [1, n, 1],
        target.len(),
        IndexMode::Clip,
    )
}

/// The positions `0..n` as a dense i64 array.
fn positions<B: Backend>(backend: &B, n: usize) -> Result<RawArray<B>> {
    Expr::index(backend, &[n]).eval_raw()
}

impl<B: Backend> RawArray<B> {
    /// The distinct values of the flattened array, ascending (NumPy `np.unique`). Values
    /// that compare equal are one value: every NaN is one (NumPy's `equal_nan=True`), and
    /// `-0.0` is `0.0`; the value returned for such a group is its first occurrence.
    pub fn unique(&self) -> Result<RawArray<B>> {
        let _span = crate::profiling::operation("unique");
        Ok(match self.groups()? {
            Some(g) => g.values,
            None => RawArray::alloc(&self.backend, self.dtype, &[0])?,
        })
    }

    /// The distinct values with the first index of each, the inverse and the counts (see
    /// [`Unique`] and [`unique`](Self::unique)).
    pub fn unique_all(&self) -> Result<Unique<RawArray<B>, RawArray<B>>> {
        let _span = crate::profiling::operation("unique_all");
        let b = &self.backend;
        let Some(g) = self.groups()? else {
            let empty = RawArray::alloc(b, DType::I64, &[0])?;
            return Ok(Unique {
                values: RawArray::alloc(b, self.dtype, &[0])?,
                indices: empty.clone(),
                inverse: RawArray::alloc(b, DType::I64, &self.dims)?,
                counts: empty,
            });
        };
        let (n, u) = (g.perm.len(), g.starts.len());
        // Counts: the distance from each group's start to the next (or to the end).
        let end = RawArray::full(b, &[1], Scalar::I64(n as i64))?;
        let next = g
            .starts
            .derive_strided(DType::I64, vec![u - 1], vec![1], g.starts.offset + 1);
        let ends = RawArray::concatenate(&[&next, &end], 0)?;
        let counts = (Expr::array(&ends) - Expr::array(&g.starts)).eval_raw()?;
        // Inverse: each sorted position's group number, scattered back to where the element
        // came from.
        let group = Expr::array(&g.starts_mask)
            .cast(DType::I64)
            .eval_raw()?
            .scan(crate::kernel::ScanOp::Sum, 0)?;
        let group = (Expr::array(&group) - Scalar::I64(1)).eval_raw()?;
        let inverse = RawArray::alloc(b, DType::I64, &[n])?;
        scatter_distinct(&inverse, &g.perm, &group)?;
        let dims: Vec<isize> = self.dims.iter().map(|&d| d as isize).collect();
        Ok(Unique {
            values: g.values,
            indices: g.indices,
            inverse: inverse.reshape(&dims)?,
            counts,
        })
    }

    /// The groups of equal elements of the flattened array in sorted order, or `None` when
    /// it is empty (after the type check).
    fn groups(&self) -> Result<Option<Groups<B>>> {
        let op = "unique";
        let flat = self.flattened()?;
        let n = flat.len();
        let b = &self.backend;
        if n == 0 {
            sort_last_axis(op, &flat, SortOrder::Ascending, false)?;
            return Ok(None);
        }
        let p = sort_last_axis(op, &flat, SortOrder::Ascending, true)?;
        let keys = p
            .keys
            .ok_or_else(|| Error::invalid_arg(op, "the sort returned no keys"))?;
        // A group starts where the sorted key changes (and at 0).
        let shifted = |from: usize| {
            keys.derive_strided(
                keys.dtype,
                vec![n - 1],
                keys.strides.clone(),
                keys.offset + from,
            )
        };
        let changes = Expr::array(&shifted(1))
            .ne(Expr::array(&shifted(0)))
            .eval_raw()?;
        let head = RawArray::full(b, &[1], Scalar::Bool(true))?;
        let starts_mask = RawArray::concatenate(&[&head, &changes], 0)?;
        drop((changes, keys));
        let starts = positions(b, n)?.masked_select(&starts_mask)?;
        let indices = gather_last(&p.perm, &starts)?;
        let values = gather_last(&flat, &indices)?;
        Ok(Some(Groups {
            perm: p.perm,
            starts_mask,
            starts,
            indices,
            values,
        }))
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The distinct values, ascending (see [`RawArray::unique`]).
    pub fn unique(&self) -> Result<Self> {
        Ok(Array::from_raw(self.raw.unique()?))
    }

    /// Distinct values, first indices, inverse and counts (see [`RawArray::unique_all`]).
    pub fn unique_all(&self) -> Result<Unique<Self, Array<i64, B>>> {
        let u = self.raw.unique_all()?;
        Ok(Unique {
            values: Array::from_raw(u.values),
            indices: Array::from_raw(u.indices),
            inverse: Array::from_raw(u.inverse),
            counts: Array::from_raw(u.counts),
        })
    }
}
