//! The oracle of joining, splitting, tiling, repeating and padding, written as "which
//! input element does each output element come from", one element at a time.

use gpuarrays_core::{DType, Pad, Scalar};

use super::index::{numel, ravel, unravel};
use super::rules::{
    self, DTYPE_MISMATCH, Expected, INVALID_ARGUMENT, RANK_MISMATCH, SHAPE_MISMATCH,
};
use crate::host::{HostArray, HostData};

/// An array of `dims` whose element at each multi-index is `at(index)`.
fn build(
    dims: Vec<usize>,
    t: DType,
    at: impl Fn(&[usize]) -> Scalar,
) -> Result<HostArray, Expected> {
    let values = (0..numel(&dims)).map(|p| at(&unravel(p, &dims)));
    let data =
        HostData::from_scalars(t, values.collect::<Vec<_>>()).map_err(|_| INVALID_ARGUMENT)?;
    Ok(HostArray::new(dims, data))
}

fn get(a: &HostArray, idx: &[usize]) -> Scalar {
    a.data.get(ravel(idx, &a.dims))
}

/// NumPy `concatenate`: one type and rank (>= 1), equal dimensions off `axis`.
pub fn concatenate(ins: &[&HostArray], axis: usize) -> Result<HostArray, Expected> {
    let first = *ins.first().ok_or(INVALID_ARGUMENT)?;
    if first.dims.is_empty() {
        return Err(RANK_MISMATCH);
    }
    rules::check_axis(axis, first.dims.len())?;
    let mut total = 0;
    for a in ins {
        if a.dtype() != first.dtype() {
            return Err(DTYPE_MISMATCH);
        }
        let same = a.dims.len() == first.dims.len()
            && (0..a.dims.len()).all(|k| k == axis || a.dims[k] == first.dims[k]);
        if !same {
            return Err(SHAPE_MISMATCH);
        }
        total += a.dims[axis];
    }
    let mut dims = first.dims.clone();
    dims[axis] = total;
    build(dims, first.dtype(), |idx| {
        // Walk the inputs until the one holding this coordinate.
        let mut i = idx[axis];
        for a in ins {
            if i < a.dims[axis] {
                let mut own = idx.to_vec();
                own[axis] = i;
                return get(a, &own);
            }
            i -= a.dims[axis];
        }
        Scalar::Bool(false)
    })
}

/// NumPy `stack`: equal shapes, a new axis `axis` in `0..=ndim`.
pub fn stack(ins: &[&HostArray], axis: usize) -> Result<HostArray, Expected> {
    let first = *ins.first().ok_or(INVALID_ARGUMENT)?;
    if ins.iter().any(|a| a.dims != first.dims) {
        return Err(SHAPE_MISMATCH);
    }
    rules::check_axis(axis, first.dims.len() + 1)?;
    if ins.iter().any(|a| a.dtype() != first.dtype()) {
        return Err(DTYPE_MISMATCH);
    }
    let mut dims = first.dims.clone();
    dims.insert(axis, ins.len());
    build(dims, first.dtype(), |idx| {
        let mut own = idx.to_vec();
        let which = own.remove(axis);
        get(ins[which], &own)
    })
}

/// Piece `piece` of NumPy `array_split(a, sections, axis)`: the first `n % sections`
/// pieces have `n / sections + 1` elements along the axis, the others `n / sections`.
pub fn array_split(
    a: &HostArray,
    sections: usize,
    axis: usize,
    piece: usize,
) -> Result<HostArray, Expected> {
    rules::check_axis(axis, a.dims.len())?;
    if sections == 0 {
        return Err(INVALID_ARGUMENT);
    }
    let n = a.dims[axis];
    let size = |k: usize| n / sections + usize::from(k < n % sections);
    let start: usize = (0..piece).map(size).sum();
    let mut dims = a.dims.clone();
    dims[axis] = size(piece);
    build(dims, a.dtype(), |idx| {
        let mut own = idx.to_vec();
        own[axis] += start;
        get(a, &own)
    })
}

/// NumPy `tile`: `reps` and the shape aligned at the right (missing ones are 1).
pub fn tile(a: &HostArray, reps: &[usize]) -> Result<HostArray, Expected> {
    let n = a.dims.len().max(reps.len());
    let own: Vec<usize> = std::iter::repeat_n(1, n - a.dims.len())
        .chain(a.dims.iter().copied())
        .collect();
    let r: Vec<usize> = std::iter::repeat_n(1, n - reps.len())
        .chain(reps.iter().copied())
        .collect();
    let dims: Vec<usize> = own.iter().zip(&r).map(|(d, r)| d * r).collect();
    build(dims, a.dtype(), |idx| {
        let src: Vec<usize> = idx.iter().zip(&own).map(|(i, d)| i % d).collect();
        a.data.get(ravel(&src, &own))
    })
}

/// NumPy `repeat` with one count: element `i` along the axis is input element
/// `i / repeats`; no axis: of the flattened array.
pub fn repeat(a: &HostArray, repeats: usize, axis: Option<usize>) -> Result<HostArray, Expected> {
    let flat;
    let (a, axis) = match axis {
        Some(ax) => (a, ax),
        None => {
            flat = HostArray::new(vec![a.len()], a.data.clone());
            (&flat, 0)
        }
    };
    rules::check_axis(axis, a.dims.len())?;
    let mut dims = a.dims.clone();
    dims[axis] *= repeats;
    build(dims, a.dtype(), |idx| {
        let mut own = idx.to_vec();
        own[axis] /= repeats;
        get(a, &own)
    })
}

/// NumPy `pad` in modes constant, edge, wrap, reflect and symmetric.
pub fn pad(
    a: &HostArray,
    widths: &[(usize, usize)],
    mode: Pad<Scalar>,
) -> Result<HostArray, Expected> {
    if widths.len() != a.dims.len() {
        return Err(RANK_MISMATCH);
    }
    if let Pad::Constant(v) = mode {
        if v.dtype() != a.dtype() {
            return Err(DTYPE_MISMATCH);
        }
    }
    let adds = |k: usize| widths[k].0 + widths[k].1 > 0;
    if !matches!(mode, Pad::Constant(_)) && (0..a.dims.len()).any(|k| adds(k) && a.dims[k] == 0) {
        return Err(INVALID_ARGUMENT);
    }
    let dims: Vec<usize> = a
        .dims
        .iter()
        .zip(widths)
        .map(|(d, (b, e))| b + d + e)
        .collect();
    build(dims, a.dtype(), |idx| {
        let mut src = Vec::with_capacity(idx.len());
        for (k, &i) in idx.iter().enumerate() {
            let (b, n) = (widths[k].0 as i64, a.dims[k] as i64);
            let j = i as i64 - b;
            let s = match mode {
                _ if (0..n).contains(&j) => j,
                Pad::Constant(v) => return v,
                Pad::Edge => j.clamp(0, n - 1),
                Pad::Wrap => j.rem_euclid(n),
                Pad::Reflect | Pad::Symmetric => bounce(j, n, mode == Pad::Symmetric),
            };
            src.push(s as usize);
        }
        get(a, &src)
    })
}

/// The source of position `j` (counted from the first element of an axis of length
/// `n > 0`) in NumPy's `reflect` or (`symmetric`) `symmetric` mode, by walking: a position
/// past an edge is mirrored about it (reflect: about the edge element; symmetric: about the
/// edge itself) until it lies inside; an axis of length 1 has only its element.
fn bounce(mut j: i64, n: i64, symmetric: bool) -> i64 {
    if n == 1 {
        return 0;
    }
    let s = i64::from(symmetric);
    while !(0..n).contains(&j) {
        j = if j < 0 { -j - s } else { 2 * (n - 1) + s - j };
    }
    j
}
