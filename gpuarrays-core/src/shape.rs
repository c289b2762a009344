//! Shape arithmetic: element counts, row-major strides and NumPy broadcasting.

use crate::error::{Error, Result};

/// The most dimensions an array may have. Kernels index with fixed-size stride tables, so
/// the bound keeps kernel arguments small and known.
pub const MAX_DIMS: usize = 8;

/// Number of elements of a shape (1 for a 0-d shape).
#[inline]
pub fn numel(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// Like [`numel`], but fails instead of overflowing. A shape is valid when the product of
/// its non-zero dimensions fits in `usize` (NumPy's rule): an empty array may have large
/// other dimensions, but not ones whose product overflows, and the answer does not depend
/// on the order of the dimensions. Every shape that passes has a [`numel`] that cannot
/// overflow.
pub fn checked_numel(dims: &[usize]) -> Result<usize> {
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::InvalidArgument {
            op: "shape".into(),
            reason: format!("shape {dims:?} has more than usize::MAX elements"),
        })?;
    Ok(if dims.contains(&0) { 0 } else { nonzero })
}

/// Row-major (C order) strides in elements.
pub fn contiguous_strides(dims: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; dims.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(dims).rev() {
        *s = acc;
        acc = acc.saturating_mul(d as isize);
    }
    strides
}

/// Checks the number of dimensions against [`MAX_DIMS`].
#[inline]
pub fn check_rank(ndim: usize) -> Result<()> {
    if ndim > MAX_DIMS {
        Err(Error::RankTooLarge {
            max: MAX_DIMS,
            got: ndim,
        })
    } else {
        Ok(())
    }
}

/// Checks an axis argument.
pub fn check_axis(op: &str, axis: usize, ndim: usize) -> Result<()> {
    if axis < ndim {
        Ok(())
    } else {
        Err(Error::AxisOutOfRange {
            op: op.to_string(),
            axis,
            ndim,
        })
    }
}

/// The NumPy broadcast of two shapes: align trailing dimensions; each pair must be equal or
/// contain a 1.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::ShapeMismatch {
                    op: op.to_string(),
                    lhs: a.to_vec(),
                    rhs: b.to_vec(),
                });
            }
        };
    }
    check_rank(n)?;
    Ok(out)
}

/// Strides (in elements) with which an operand of shape `src` is read when broadcast to
/// `out`: dimensions of size 1 that are stretched, and missing leading dimensions, get 0.
/// `src` must broadcast to `out` (see [`broadcast_shapes`]).
pub fn broadcast_strides(src: &[usize], out: &[usize]) -> Vec<isize> {
    broadcast_strides_inline(src, out).to_vec()
}

/// Strides of up to [`MAX_DIMS`] dimensions, inline.
pub(crate) type InlineStrides = smallvec::SmallVec<[isize; MAX_DIMS]>;

/// [`broadcast_strides`] without a heap allocation (`out` has at most [`MAX_DIMS`]
/// dimensions; more still work, on the heap).
pub(crate) fn broadcast_strides_inline(src: &[usize], out: &[usize]) -> InlineStrides {
    let lead = out.len() - src.len();
    let mut strides: InlineStrides = smallvec::smallvec![0; out.len()];
    let mut acc = 1isize;
    for i in (lead..out.len()).rev() {
        let n = src[i - lead];
        if !(n == 1 && out[i] != 1) {
            strides[i] = acc;
        }
        acc = acc.saturating_mul(n as isize);
    }
    strides
}

/// Whether `strides` lay `dims` out as one row-major run (dimensions of length 1 and
/// empty shapes impose nothing, as in NumPy).
pub fn is_contiguous(dims: &[usize], strides: &[isize]) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let mut expected = 1isize;
    for (&d, &s) in dims.iter().zip(strides).rev() {
        if d != 1 {
            if s != expected {
                return false;
            }
            expected = expected.saturating_mul(d as isize);
        }
    }
    true
}

/// The lowest and highest positions `offset + Σ ik · strides[k]` reaches over `dims`;
/// `None` when the shape is empty.
pub fn span(offset: usize, dims: &[usize], strides: &[isize]) -> Option<(usize, usize)> {
    if dims.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in dims.iter().zip(strides) {
        let reach = (d as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((lo.max(0) as usize, hi.max(0) as usize))
}

/// Strides with which an operand of shape `src` and strides `strides` is read when
/// broadcast to `out`: stretched dimensions of size 1 and missing leading ones get 0.
pub(crate) fn broadcast_view_strides(
    src: &[usize],
    strides: &[isize],
    out: &[usize],
) -> InlineStrides {
    let lead = out.len() - src.len();
    let mut result: InlineStrides = smallvec::smallvec![0; out.len()];
    for i in lead..out.len() {
        let n = src[i - lead];
        if !(n == 1 && out[i] != 1) {
            result[i] = strides[i - lead];
        }
    }
    result
}

/// Strides with which `new_dims` steps through the elements of an array of `dims` and
/// `strides` in row-major order without moving them, or `None` where no strides can
/// (NumPy's no-copy reshape: each group of old axes merged or split must itself be one
/// strided run). The element counts must agree.
pub fn reshaped_strides(
    dims: &[usize],
    strides: &[isize],
    new_dims: &[usize],
) -> Option<Vec<isize>> {
    if numel(dims) == 0 || is_contiguous(dims, strides) {
        return Some(contiguous_strides(new_dims));
    }
    let old: Vec<(usize, isize)> = dims
        .iter()
        .zip(strides)
        .filter(|(d, _)| **d != 1)
        .map(|(&d, &s)| (d, s))
        .collect();
    let new: Vec<usize> = new_dims.iter().copied().filter(|&d| d != 1).collect();
    let mut found = vec![0isize; new.len()];
    let (mut oi, mut ni) = (0, 0);
    while oi < old.len() && ni < new.len() {
        let (mut op, mut np) = (old[oi].0, new[ni]);
        let (mut oj, mut nj) = (oi + 1, ni + 1);
        while op != np {
            if np < op {
                np *= *new.get(nj)?;
                nj += 1;
            } else {
                op *= old.get(oj)?.0;
                oj += 1;
            }
        }
        // The old axes oi..oj must be one strided run to be regrouped.
        if (oi..oj - 1).any(|k| old[k].1 != old[k + 1].1 * old[k + 1].0 as isize) {
            return None;
        }
        found[nj - 1] = old[oj - 1].1;
        for k in (ni + 1..nj).rev() {
            found[k - 1] = found[k] * new[k] as isize;
        }
        (oi, ni) = (oj, nj);
    }
    // Axes of length 1 take any stride; the others in order.
    let mut found = found.into_iter();
    Some(
        new_dims
            .iter()
            .map(|&d| if d == 1 { 0 } else { found.next().unwrap_or(0) })
            .collect(),
    )
}

/// Splits a shape around `axis` into (outer, len, inner) for axis-wise kernels.
pub fn split_at_axis(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    (numel(&dims[..axis]), dims[axis], numel(&dims[axis + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shapes("t", &[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("t", &[], &[2, 2]).unwrap(), vec![2, 2]);
        assert_eq!(broadcast_shapes("t", &[0], &[1]).unwrap(), vec![0]);
        assert!(matches!(
            broadcast_shapes("t", &[3], &[4]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert_eq!(broadcast_strides(&[3, 1], &[2, 3, 4]), vec![0, 1, 0]);
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(split_at_axis(&[2, 3, 4], 1), (2, 3, 4));
    }
}
