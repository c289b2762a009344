//! The oracle of axis-wise and reordering operations: cumulative sums, products, maxima
//! and minima,
//! reverse, permute, transpose, fftshift and ifftshift, broadcast_to, sort, find and
//! find_first.

use std::cmp::Ordering;

use gpuarrays_core::kernel::ScanOp;
use gpuarrays_core::{DType, Scalar};

use super::index::{broadcast_source, numel, ravel, split, unravel};
use super::rules::{self, Expected, INVALID_ARGUMENT, RANK_MISMATCH, SHAPE_MISMATCH};
use super::value::{Accumulator, Product, Wide, truthy, widen};
use crate::host::{HostArray, HostData};

/// The running extreme after `x`: NaN once either is NaN (the first NaN stays), else the
/// larger (`max`) or smaller value.
fn extreme(run: Scalar, x: Scalar, max: bool) -> Scalar {
    let nan = |s: Scalar| matches!(widen(s), Wide::Real(v) if v.is_nan());
    if nan(run) {
        return run;
    }
    if nan(x) {
        return x;
    }
    let x_wins = match (widen(run), widen(x)) {
        (Wide::Int(r), Wide::Int(v)) => (v > r) == max && v != r,
        (Wide::Real(r), Wide::Real(v)) => (v > r) == max && v != r,
        _ => false,
    };
    if x_wins { x } else { run }
}

/// Inclusive cumulative sum, product, maximum or minimum along `axis`.
pub fn scan(op: ScanOp, axis: usize, a: &HostArray) -> Result<HostArray, Expected> {
    let t = rules::numeric_only(a.dtype())?;
    if matches!(op, ScanOp::Max | ScanOp::Min) {
        rules::ordered_only(t)?;
    }
    rules::check_axis(axis, a.dims.len())?;
    let (outer, len, inner) = split(&a.dims, axis);
    let mut values = vec![Scalar::Bool(false); a.len()];
    for o in 0..outer {
        for i in 0..inner {
            let (mut sum, mut prod) = (Accumulator::new(t), Product::new(t));
            let mut run: Option<Scalar> = None;
            for k in 0..len {
                let p = o * len * inner + k * inner + i;
                let x = a.data.get(p);
                values[p] = match op {
                    ScanOp::Sum => {
                        sum.add(x);
                        sum.value(t)
                    }
                    ScanOp::Prod => {
                        prod.mul(x);
                        prod.value(t)
                    }
                    ScanOp::Max | ScanOp::Min => {
                        let v = run.map_or(x, |r| extreme(r, x, op == ScanOp::Max));
                        run = Some(v);
                        v
                    }
                };
            }
        }
    }
    collect(a.dims.clone(), t, values)
}

fn collect(dims: Vec<usize>, t: DType, values: Vec<Scalar>) -> Result<HostArray, Expected> {
    let data = HostData::from_scalars(t, values).map_err(|_| INVALID_ARGUMENT)?;
    Ok(HostArray::new(dims, data))
}

/// The elements along `axis` in reverse order.
pub fn reverse(axis: usize, a: &HostArray) -> Result<HostArray, Expected> {
    rules::check_axis(axis, a.dims.len())?;
    let values = (0..a.len()).map(|p| {
        let mut idx = unravel(p, &a.dims);
        idx[axis] = a.dims[axis] - 1 - idx[axis];
        a.data.get(ravel(&idx, &a.dims))
    });
    collect(a.dims.clone(), a.dtype(), values.collect())
}

/// NumPy's `fftshift` (`inverse`: `ifftshift`): each axis in `axes` (default: all) rolled by
/// `⌊n/2⌋` (`inverse`: by `−⌊n/2⌋`), i.e. `out[(j + shift) mod n] = in[j]`; an axis named
/// twice rolls twice, as NumPy's `roll` does.
pub fn fftshift(
    inverse: bool,
    axes: Option<&[usize]>,
    a: &HostArray,
) -> Result<HostArray, Expected> {
    let ndim = a.dims.len();
    let all: Vec<usize> = (0..ndim).collect();
    let mut shift = vec![0usize; ndim];
    for &ax in axes.unwrap_or(&all) {
        rules::check_axis(ax, ndim)?;
        let n = a.dims[ax];
        shift[ax] += if inverse { n - n / 2 } else { n / 2 };
    }
    let values = (0..a.len()).map(|p| {
        let mut idx = unravel(p, &a.dims);
        for (ax, i) in idx.iter_mut().enumerate() {
            let n = a.dims[ax];
            *i = (*i + n - shift[ax] % n) % n;
        }
        a.data.get(ravel(&idx, &a.dims))
    });
    collect(a.dims.clone(), a.dtype(), values.collect())
}

/// Result axis `k` is input axis `axes[k]`.
pub fn permute(axes: &[usize], a: &HostArray) -> Result<HostArray, Expected> {
    let n = a.dims.len();
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    if sorted != (0..n).collect::<Vec<_>>() {
        return Err(INVALID_ARGUMENT);
    }
    let dims: Vec<usize> = axes.iter().map(|&k| a.dims[k]).collect();
    let values: Vec<Scalar> = (0..a.len())
        .map(|p| {
            let out_idx = unravel(p, &dims);
            let mut in_idx = vec![0; n];
            for (k, &ax) in axes.iter().enumerate() {
                in_idx[ax] = out_idx[k];
            }
            a.data.get(ravel(&in_idx, &a.dims))
        })
        .collect();
    collect(dims, a.dtype(), values)
}

pub fn transpose(a: &HostArray) -> Result<HostArray, Expected> {
    if a.dims.len() != 2 {
        return Err(RANK_MISMATCH);
    }
    permute(&[1, 0], a)
}

/// `a` repeated to shape `dims` (NumPy rules; the broadcast must be `dims` itself).
pub fn broadcast_to(dims: &[usize], a: &HostArray) -> Result<HostArray, Expected> {
    if rules::broadcast(&a.dims, dims)? != dims {
        return Err(SHAPE_MISMATCH);
    }
    let values = (0..numel(dims)).map(|p| a.data.get(broadcast_source(&unravel(p, dims), &a.dims)));
    collect(dims.to_vec(), a.dtype(), values.collect())
}

/// Ascending order with NaN after everything, `false < true`.
pub(crate) fn order(x: &Scalar, y: &Scalar) -> Ordering {
    match (widen(*x), widen(*y)) {
        (Wide::Bool(a), Wide::Bool(b)) => a.cmp(&b),
        (Wide::Int(a), Wide::Int(b)) => a.cmp(&b),
        (Wide::Real(a), Wide::Real(b)) => match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        },
        _ => Ordering::Equal,
    }
}

/// Each row along the last axis sorted ascending.
pub fn sort(a: &HostArray) -> Result<HostArray, Expected> {
    if a.dims.is_empty() {
        return Err(RANK_MISMATCH);
    }
    rules::ordered_only(a.dtype())?;
    let len = a.dims[a.dims.len() - 1];
    let mut values: Vec<Scalar> = a.data.scalars().collect();
    if len > 0 {
        for row in values.chunks_mut(len) {
            row.sort_by(order);
        }
    }
    collect(a.dims.clone(), a.dtype(), values)
}

/// Flat indices of the non-zero elements, ascending, as i64.
pub fn find(a: &HostArray) -> Result<HostArray, Expected> {
    if a.dims.is_empty() {
        return Err(RANK_MISMATCH);
    }
    let hits: Vec<i64> = (0..a.len())
        .filter(|&p| truthy(a.data.get(p)))
        .map(|p| p as i64)
        .collect();
    Ok(HostArray::new(vec![hits.len()], HostData::I64(hits)))
}

/// The first non-zero position, or -1.
pub fn find_first(a: &HostArray) -> Result<HostArray, Expected> {
    if a.dims.is_empty() {
        return Err(RANK_MISMATCH);
    }
    let first = (0..a.len()).find(|&p| truthy(a.data.get(p)));
    Ok(HostArray::new(
        vec![1],
        HostData::I64(vec![first.map_or(-1, |p| p as i64)]),
    ))
}
