//! `topk`: the `k` first elements of each row in sort order, with their indices.
//!
//! The general path sorts whole rows ([`sort_last_axis`]) and keeps the first `k`. A single
//! long row (at least [`SELECT_MIN_LEN`] elements, `k` small beside it) takes a selection
//! path instead, which sorts only a few candidates:
//!
//! 1. a threshold: the order keys of [`SAMPLE`] elements at a fixed stride are sorted, and
//!    the key a little past the `k / len` quantile is read back;
//! 2. the candidates: the positions whose key is at most the threshold (one elementwise
//!    comparison and a [`find`](crate::RawArray::find));
//! 3. if there are at least `k` of them, every element of the result is among them (the
//!    `k`-th smallest key is at most the threshold), so a stable sort of the candidates,
//!    which stand in position order, gives exactly the general path's result; if there are
//!    fewer (a sample that misjudged the data, e.g. periodic with the sample's stride), the
//!    general path runs.
//!
//! Why: a full sort moves every element through four radix passes to keep 100 of them;
//! PyTorch's `topk` selects without sorting. On an H100, `topk(100)` of 2^26 f32 took
//! 3.76 ms sorting whole (0.36× PyTorch) and 0.354 ms selecting (3.83×;
//! `docs/results/indexing.md`). The selection reads the row twice (the comparison and the
//! mask) and sorts about `2k + 16·len/SAMPLE` candidates on uniform data; the result is the
//! same bits either way, on every backend.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::argsort::{axis_last, restore};
use crate::ops::sort_keys::{SortOrder, gather_last, order_key, sort_last_axis};
use crate::scalar::Scalar;

/// Rows shorter than this sort whole (the selection's two host reads cost more there).
pub const SELECT_MIN_LEN: usize = 1 << 20;
/// Elements sampled for the threshold.
pub const SAMPLE: usize = 1 << 16;
/// Sample keys past the `k / len` quantile taken as the threshold's margin.
const MARGIN: usize = 16;

impl<B: Backend> RawArray<B> {
    /// The `k` largest (`Descending`) or smallest (`Ascending`) elements along `axis` and
    /// their indices (PyTorch `topk(k, largest=...)`, sorted): the result's `axis` has length
    /// `k`, ordered as [`argsort`](Self::argsort) orders them (ties by position; NaN counts
    /// as the largest value, as in PyTorch). `k` above the axis length is an error.
    pub fn topk(
        &self,
        k: usize,
        axis: usize,
        order: SortOrder,
    ) -> Result<(RawArray<B>, RawArray<B>)> {
        let _span = crate::profiling::operation("topk");
        let op = "topk";
        let (moved, back) = axis_last(op, self, axis)?;
        let len = self.dims[axis];
        if k > len {
            return Err(Error::invalid_arg(
                op,
                format!("k = {k} is larger than the axis ({len} elements)"),
            ));
        }
        let mut dims = moved.dims.clone();
        if let Some(last) = dims.last_mut() {
            *last = k;
        }
        if let Some((values, indices)) = select(op, &moved, k, order)? {
            let shape = |a: RawArray<B>| {
                let d: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
                restore(a.reshape(&d)?, &back)
            };
            return Ok((shape(values)?, shape(indices)?));
        }
        let p = sort_last_axis(op, &moved, order, false)?.perm;
        let first = p.derive_strided(p.dtype, dims.clone(), p.strides.clone(), p.offset);
        let (values, indices) = if first.is_empty() {
            (
                RawArray::alloc(&self.backend, self.dtype, &dims)?,
                first.contiguous()?,
            )
        } else {
            (gather_last(&moved, &first)?, first.contiguous()?)
        };
        Ok((restore(values, &back)?, restore(indices, &back)?))
    }
}

/// The selection path (module docs) for `x` with its axis last: `Some((values, indices))`
/// as 1-D arrays of `k`, or `None` where the general path must run.
fn select<B: Backend>(
    op: &'static str,
    x: &RawArray<B>,
    k: usize,
    order: SortOrder,
) -> Result<Option<(RawArray<B>, RawArray<B>)>> {
    let len = x.dims.last().copied().unwrap_or(1);
    let rank = k.saturating_mul(2 * SAMPLE) / len.max(1) + MARGIN;
    if x.len() != len || len < SELECT_MIN_LEN || k == 0 || rank >= SAMPLE / 4 {
        return Ok(None);
    }
    let stride = x.strides.last().copied().unwrap_or(1);
    let row = x.derive_strided(x.dtype, vec![len], vec![stride], x.offset);
    let step = len / SAMPLE;
    let sample = x.derive_strided(
        x.dtype,
        vec![SAMPLE],
        vec![stride * step as isize],
        x.offset,
    );
    let keys = order_key(op, &sample, order)?.eval_raw()?.sort()?;
    let key_type = keys.dtype;
    let at = keys.derive(key_type, vec![1], keys.offset + rank);
    let bytes = at.to_bytes()?;
    // `to_bytes` returns the one key's bytes; anything else leaves the general path to run.
    let threshold = match key_type {
        DType::U32 => bytes
            .try_into()
            .ok()
            .map(|b| Scalar::U32(u32::from_le_bytes(b))),
        _ => bytes
            .try_into()
            .ok()
            .map(|b| Scalar::U64(u64::from_le_bytes(b))),
    };
    let Some(threshold) = threshold else {
        return Ok(None);
    };
    let mask = order_key(op, &row, order)?.le(threshold).eval_raw()?;
    let positions = mask.find()?;
    drop(mask);
    if positions.len() < k {
        tracing::debug!(
            op,
            len,
            k,
            candidates = positions.len(),
            "the sampled threshold kept too few candidates: sorting the whole row"
        );
        return Ok(None);
    }
    let candidates = gather_last(&row, &positions)?;
    let perm = sort_last_axis(op, &candidates, order, false)?.perm;
    let first = perm.derive(perm.dtype, vec![k], perm.offset);
    let values = gather_last(&candidates, &first)?;
    let indices = gather_last(&positions, &first)?;
    Ok(Some((values, indices)))
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The `k` largest or smallest elements along `axis` and their indices (see
    /// [`RawArray::topk`]).
    pub fn topk(&self, k: usize, axis: usize, order: SortOrder) -> Result<(Self, Array<i64, B>)> {
        let (v, i) = self.raw.topk(k, axis, order)?;
        Ok((Array::from_raw(v), Array::from_raw(i)))
    }
}
