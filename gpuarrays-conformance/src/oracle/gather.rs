//! The oracle of the gathers, scatters and masks, from NumPy's documentation: each index
//! resolved by the mode's rule (raise: `-n ≤ i < n`, negatives from the end; wrap: modulo
//! `n`; clip: clamped, negatives to the first element), each update applied in row-major
//! order of the indices (a repeated store keeps the last, sums add all, computed exactly and
//! rounded once).

use gpuarrays_core::kernel::IndexMode;
use gpuarrays_core::{DType, Scalar};

use super::index::{numel, ravel, unravel};
use super::rules::{
    self, DTYPE_MISMATCH, Expected, INDEX_OUT_OF_RANGE, INVALID_ARGUMENT, INVALID_DTYPE,
    RANK_MISMATCH, SHAPE_MISMATCH,
};
use super::value::{Accumulator, Wide, widen};
use crate::case::{IndexCase, Input};
use crate::host::{HostArray, HostData};

/// An index value: integers converted to i64 (wrapping, as a cast does); other types are
/// refused.
fn index_at(a: &HostArray, p: usize) -> Result<i64, Expected> {
    match widen(a.data.get(p)) {
        Wide::Int(v) if a.dtype() != DType::Bool => Ok(v as i64),
        _ => Err(INVALID_DTYPE),
    }
}

fn check_indices(a: &HostArray) -> Result<(), Expected> {
    if a.dtype().is_integer() {
        Ok(())
    } else {
        Err(INVALID_DTYPE)
    }
}

/// The position of index `r` on an axis of `n` elements under `mode`.
fn resolve(r: i64, n: usize, mode: IndexMode) -> Result<usize, Expected> {
    let n = n as i128;
    let r = r as i128;
    if n == 0 {
        return Err(INDEX_OUT_OF_RANGE);
    }
    let p = match mode {
        IndexMode::Raise if r < -n || r >= n => return Err(INDEX_OUT_OF_RANGE),
        IndexMode::Raise if r < 0 => r + n,
        IndexMode::Raise => r,
        IndexMode::Wrap => r.rem_euclid(n),
        IndexMode::Clip => r.clamp(0, n - 1),
    };
    Ok(p as usize)
}

fn build(dims: Vec<usize>, t: DType, values: Vec<Scalar>) -> Result<HostArray, Expected> {
    let data = HostData::from_scalars(t, values).map_err(|_| INVALID_ARGUMENT)?;
    Ok(HostArray::new(dims, data))
}

/// Broadcasts `src` to `dims` (NumPy's rule, trailing alignment), or the shape error.
fn broadcast(src: &HostArray, dims: &[usize]) -> Result<Vec<Scalar>, Expected> {
    if rules::broadcast(&src.dims, dims)? != dims {
        return Err(SHAPE_MISMATCH);
    }
    let lead = dims.len() - src.dims.len();
    Ok((0..numel(dims))
        .map(|p| {
            let idx = unravel(p, dims);
            let own: Vec<usize> = src
                .dims
                .iter()
                .enumerate()
                .map(|(k, &d)| if d == 1 { 0 } else { idx[lead + k] })
                .collect();
            src.data.get(ravel(&own, &src.dims))
        })
        .collect())
}

/// NumPy `take`.
pub fn take(
    a: &HostArray,
    idx: &HostArray,
    axis: Option<usize>,
    mode: IndexMode,
) -> Result<HostArray, Expected> {
    check_indices(idx)?;
    let (dims, axis) = match axis {
        Some(ax) => {
            rules::check_axis(ax, a.dims.len())?;
            (a.dims.clone(), ax)
        }
        None => (vec![a.len()], 0),
    };
    let mut out_dims = dims[..axis].to_vec();
    out_dims.extend_from_slice(&idx.dims);
    out_dims.extend_from_slice(&dims[axis + 1..]);
    let (k, n) = (idx.dims.len(), dims[axis]);
    let mut out = Vec::with_capacity(numel(&out_dims));
    for p in 0..numel(&out_dims) {
        let o = unravel(p, &out_dims);
        let which = ravel(&o[axis..axis + k], &idx.dims);
        let mut src = o[..axis].to_vec();
        src.push(resolve(index_at(idx, which)?, n, mode)?);
        src.extend_from_slice(&o[axis + k..]);
        out.push(a.data.get(ravel(&src, &dims)));
    }
    build(out_dims, a.dtype(), out)
}

/// The broadcast shape of an along-axis operation between `dims` and `idx` (same rank),
/// with `idx`'s length along `axis`.
fn along_axis_space(dims: &[usize], idx: &[usize], axis: usize) -> Result<Vec<usize>, Expected> {
    if idx.len() != dims.len() {
        return Err(RANK_MISMATCH);
    }
    rules::check_axis(axis, dims.len())?;
    let mut space = idx.to_vec();
    for k in (0..dims.len()).filter(|&k| k != axis) {
        space[k] = match (dims[k], idx[k]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return Err(SHAPE_MISMATCH),
        };
    }
    Ok(space)
}

/// NumPy `take_along_axis` (out-of-range indices are an error).
pub fn take_along_axis(a: &HostArray, idx: &HostArray, axis: usize) -> Result<HostArray, Expected> {
    check_indices(idx)?;
    let space = along_axis_space(&a.dims, &idx.dims, axis)?;
    let mut idx_dims = space.clone();
    idx_dims[axis] = idx.dims[axis];
    let ids = broadcast(idx, &idx_dims)?;
    let mut out = Vec::with_capacity(numel(&space));
    for (p, &r) in ids.iter().enumerate() {
        let mut at = unravel(p, &space);
        at[axis] = resolve(widen_int(r) as i64, a.dims[axis], IndexMode::Raise)?;
        let src: Vec<usize> = at
            .iter()
            .zip(&a.dims)
            .map(|(&i, &d)| if d == 1 { 0 } else { i })
            .collect();
        out.push(a.data.get(ravel(&src, &a.dims)));
    }
    build(space, a.dtype(), out)
}

fn widen_int(s: Scalar) -> i128 {
    match widen(s) {
        Wide::Int(v) => v,
        _ => 0,
    }
}

/// The updates of an in-place operation: (flat target position, value), in row-major order.
type Updates = Vec<(usize, Scalar)>;

/// Applies `updates` to `target`'s elements: stores (the last wins), or exact sums rounded
/// once; returns the target's whole buffer.
fn apply(target: &Input, updates: Updates, add: bool) -> Result<HostArray, Expected> {
    let t = target.array.dtype();
    if add && t == DType::Bool {
        return Err(INVALID_DTYPE);
    }
    let mut values: Vec<Scalar> = target.array.data.scalars().collect();
    let mut sums: Vec<Option<Accumulator>> = vec![None; values.len()];
    for (p, v) in updates {
        if add {
            let acc = sums[p].get_or_insert_with(|| {
                let mut a = Accumulator::new(t);
                a.add(values[p]);
                a
            });
            acc.add(v);
        } else {
            values[p] = v;
        }
    }
    for (v, s) in values.iter_mut().zip(&sums) {
        if let Some(s) = s {
            *v = s.value(t);
        }
    }
    let data = HostData::from_scalars(t, values).map_err(|_| INVALID_ARGUMENT)?;
    let all = target.base_with(&data);
    Ok(HostArray::new(vec![all.len()], all))
}

fn same_type(target: &HostArray, values: &HostArray) -> Result<(), Expected> {
    if target.dtype() == values.dtype() {
        Ok(())
    } else {
        Err(DTYPE_MISMATCH)
    }
}

/// NumPy `put`: flat indices; the values read flattened and repeated cyclically.
pub fn put(
    target: &Input,
    idx: &HostArray,
    values: &HostArray,
    mode: IndexMode,
) -> Result<HostArray, Expected> {
    same_type(&target.array, values)?;
    check_indices(idx)?;
    let n = target.array.len();
    let mut updates = Updates::new();
    if !values.is_empty() {
        for j in 0..idx.len() {
            let p = resolve(index_at(idx, j)?, n, mode)?;
            updates.push((p, values.data.get(j % values.len())));
        }
    }
    apply(target, updates, false)
}

/// NumPy `put_along_axis` (or PyTorch `scatter_add_` with broadcasting, when `add`): the
/// indices' other dimensions broadcast to the target's.
pub fn put_along_axis(
    target: &Input,
    idx: &HostArray,
    values: &HostArray,
    axis: usize,
    add: bool,
) -> Result<HostArray, Expected> {
    same_type(&target.array, values)?;
    if add && !target.array.dtype().is_numeric() {
        return Err(INVALID_DTYPE);
    }
    check_indices(idx)?;
    let dims = &target.array.dims;
    let space = along_axis_space(dims, &idx.dims, axis)?;
    if (0..dims.len()).any(|k| k != axis && space[k] != dims[k]) {
        return Err(SHAPE_MISMATCH);
    }
    let ids = broadcast(idx, &space)?;
    let vals = broadcast(values, &space)?;
    let mut updates = Updates::new();
    for p in 0..numel(&space) {
        let mut at = unravel(p, &space);
        at[axis] = resolve(widen_int(ids[p]) as i64, dims[axis], IndexMode::Raise)?;
        updates.push((ravel(&at, dims), vals[p]));
    }
    apply(target, updates, add)
}

/// PyTorch `index_copy_` / `index_add_` (NumPy `a[..., idx, ...] = v`, `add.at`).
pub fn index_scatter(
    target: &Input,
    idx: &HostArray,
    values: &HostArray,
    axis: usize,
    add: bool,
) -> Result<HostArray, Expected> {
    same_type(&target.array, values)?;
    if add && !target.array.dtype().is_numeric() {
        return Err(INVALID_DTYPE);
    }
    check_indices(idx)?;
    let dims = &target.array.dims;
    rules::check_axis(axis, dims.len())?;
    let k = idx.dims.len();
    let mut space = dims[..axis].to_vec();
    space.extend_from_slice(&idx.dims);
    space.extend_from_slice(&dims[axis + 1..]);
    let vals = broadcast(values, &space)?;
    let mut updates = Updates::new();
    for (p, &v) in vals.iter().enumerate().take(numel(&space)) {
        let s = unravel(p, &space);
        let which = ravel(&s[axis..axis + k], &idx.dims);
        let mut at = s[..axis].to_vec();
        at.push(resolve(
            index_at(idx, which)?,
            dims[axis],
            IndexMode::Raise,
        )?);
        at.extend_from_slice(&s[axis + k..]);
        updates.push((ravel(&at, dims), v));
    }
    apply(target, updates, add)
}

/// The flat positions (over the mask's dimensions) of the true elements, after checking
/// that the mask is bool and covers the array's leading dimensions.
fn mask_hits(a: &HostArray, mask: &HostArray) -> Result<Vec<usize>, Expected> {
    if mask.dtype() != DType::Bool {
        return Err(INVALID_DTYPE);
    }
    let k = mask.dims.len();
    if k > a.dims.len() || mask.dims[..] != a.dims[..k] {
        return Err(SHAPE_MISMATCH);
    }
    Ok((0..mask.len())
        .filter(|&p| matches!(mask.data.get(p), Scalar::Bool(true)))
        .collect())
}

/// NumPy `a[mask]`.
pub fn masked_select(a: &HostArray, mask: &HostArray) -> Result<HostArray, Expected> {
    let hits = mask_hits(a, mask)?;
    let rest = &a.dims[mask.dims.len()..];
    let inner = numel(rest);
    let mut dims = vec![hits.len()];
    dims.extend_from_slice(rest);
    let values = hits
        .iter()
        .flat_map(|&h| (0..inner).map(move |i| h * inner + i))
        .map(|p| a.data.get(p))
        .collect();
    build(dims, a.dtype(), values)
}

/// NumPy `a[mask] = values`.
pub fn masked_assign(
    target: &Input,
    mask: &HostArray,
    values: &HostArray,
) -> Result<HostArray, Expected> {
    let a = &target.array;
    same_type(a, values)?;
    let hits = mask_hits(a, mask)?;
    let rest = &a.dims[mask.dims.len()..];
    let inner = numel(rest);
    let mut space = vec![hits.len()];
    space.extend_from_slice(rest);
    let vals = broadcast(values, &space)?;
    let updates = hits
        .iter()
        .flat_map(|&h| (0..inner).map(move |i| h * inner + i))
        .zip(vals)
        .collect();
    apply(target, updates, false)
}

/// The coordinates of the non-zero elements: output `which` of NumPy `nonzero`, or all of
/// them as rows (`argwhere`, `which` = `None`).
pub fn nonzero(a: &HostArray, which: Option<usize>) -> Result<HostArray, Expected> {
    let hits: Vec<usize> = (0..a.len())
        .filter(|&p| super::value::truthy(a.data.get(p)))
        .collect();
    let coord = |p: usize| unravel(p, &a.dims);
    let as_i64 = |v: usize| Scalar::I64(v as i64);
    match which {
        Some(_) if a.dims.is_empty() => Err(RANK_MISMATCH),
        Some(k) => build(
            vec![hits.len()],
            DType::I64,
            hits.iter().map(|&p| as_i64(coord(p)[k])).collect(),
        ),
        None => build(
            vec![hits.len(), a.dims.len()],
            DType::I64,
            hits.iter().flat_map(|&p| coord(p)).map(as_i64).collect(),
        ),
    }
}

/// NumPy `bincount(x, weights, minlength)`.
pub fn bincount(
    x: &HostArray,
    weights: Option<&HostArray>,
    minlength: usize,
) -> Result<HostArray, Expected> {
    if x.dims.len() != 1 {
        return Err(RANK_MISMATCH);
    }
    check_indices(x)?;
    let xs = (0..x.len())
        .map(|p| index_at(x, p))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(w) = weights {
        if w.dims != x.dims {
            return Err(SHAPE_MISMATCH);
        }
        if w.dtype() == DType::Bool || w.dtype().is_complex() {
            return Err(INVALID_DTYPE);
        }
    }
    if xs.iter().any(|&v| v < 0) {
        return Err(INDEX_OUT_OF_RANGE);
    }
    let len = xs
        .iter()
        .map(|&v| v as usize + 1)
        .max()
        .unwrap_or(0)
        .max(minlength);
    let t = if weights.is_some() {
        DType::F64
    } else {
        DType::I64
    };
    let mut acc: Vec<Accumulator> = (0..len).map(|_| Accumulator::new(t)).collect();
    for (p, &v) in xs.iter().enumerate() {
        let w = match weights {
            Some(w) => super::value::cast(w.data.get(p), DType::F64),
            None => Scalar::I64(1),
        };
        acc[v as usize].add(w);
    }
    build(vec![len], t, acc.iter().map(|a| a.value(t)).collect())
}

/// The expected result of an indexing case.
pub fn evaluate(op: IndexCase, ins: &[&Input]) -> Result<HostArray, Expected> {
    let arr = |k: usize| ins.get(k).map(|i| &i.array).ok_or(INVALID_ARGUMENT);
    let target = || ins.first().copied().ok_or(INVALID_ARGUMENT);
    match op {
        IndexCase::Take { axis, mode } => take(arr(0)?, arr(1)?, axis, mode),
        IndexCase::TakeAlongAxis(axis) => take_along_axis(arr(0)?, arr(1)?, axis),
        IndexCase::Put(mode) => put(target()?, arr(1)?, arr(2)?, mode),
        IndexCase::PutAlongAxis(axis) => put_along_axis(target()?, arr(1)?, arr(2)?, axis, false),
        IndexCase::ScatterAdd(axis) => put_along_axis(target()?, arr(1)?, arr(2)?, axis, true),
        IndexCase::IndexCopy(axis) => index_scatter(target()?, arr(1)?, arr(2)?, axis, false),
        IndexCase::IndexAdd(axis) => index_scatter(target()?, arr(1)?, arr(2)?, axis, true),
        IndexCase::MaskedSelect => masked_select(arr(0)?, arr(1)?),
        IndexCase::MaskedAssign => masked_assign(target()?, arr(1)?, arr(2)?),
        IndexCase::Nonzero(k) => nonzero(arr(0)?, Some(k)),
        IndexCase::Argwhere => nonzero(arr(0)?, None),
        IndexCase::Bincount(minlength) => bincount(arr(0)?, arr(1).ok(), minlength),
    }
}
