//! `pad` in NumPy's `reflect` and `symmetric` modes: one gather (`take`) per padded axis,
//! through an index map made on the host.
//!
//! Why a gather rather than copies of reversed views (as `edge` and `wrap` copy views): a
//! margin wider than the axis reflects again and again (NumPy's rule), which would take
//! one copy per reflection, `width / n` launches per side; the map makes every width one
//! kernel launch per axis, reads strided and reversed inputs where they lie, and runs on
//! every backend that gathers. Its cost is an upload of `before + n + after` i64 per
//! padded axis, small beside the array itself.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::kernel::IndexMode;

/// The source element (along an axis of length `n > 0`) of position `j` counted from the
/// axis's first element (negative in the leading margin): NumPy's `reflect`
/// (`symmetric == false`) or `symmetric` extension, both periodic.
pub(crate) fn mirror_source(j: i64, n: i64, symmetric: bool) -> i64 {
    if symmetric {
        let p = 2 * n;
        let m = j.rem_euclid(p);
        if m < n { m } else { p - 1 - m }
    } else if n == 1 {
        0
    } else {
        let p = 2 * (n - 1);
        let m = j.rem_euclid(p);
        if m < n { m } else { p - m }
    }
}

/// `a` padded by `widths` (one pair per axis, checked by the caller, with every padded axis
/// non-empty) in `reflect` or `symmetric` mode: a new array.
pub(crate) fn pad_mirrored<B: Backend>(
    a: &RawArray<B>,
    widths: &[(usize, usize)],
    symmetric: bool,
) -> Result<RawArray<B>> {
    let mut out: Option<RawArray<B>> = None;
    for (k, &(before, after)) in widths.iter().enumerate() {
        if before == 0 && after == 0 {
            continue;
        }
        let too_long = || Error::invalid_arg("pad", "a padded axis is longer than i64::MAX");
        let n = i64::try_from(a.dims[k]).map_err(|_| too_long())?;
        let b = i64::try_from(before).map_err(|_| too_long())?;
        let total = before
            .checked_add(a.dims[k])
            .and_then(|t| t.checked_add(after))
            .ok_or_else(too_long)?;
        let total = i64::try_from(total).map_err(|_| too_long())?;
        let map: Vec<i64> = (0..total)
            .map(|i| mirror_source(i - b, n, symmetric))
            .collect();
        let index = Array::<i64, B>::from_vec(&a.backend, map)?.into_raw();
        let source = out.as_ref().unwrap_or(a);
        out = Some(source.take(&index, Some(k), IndexMode::Raise)?);
    }
    match out {
        Some(o) => Ok(o),
        None => a.copy(),
    }
}

#[cfg(test)]
mod tests {
    use super::mirror_source;

    #[test]
    fn sources_follow_numpy() {
        // np.pad(np.arange(3), (7, 8), 'reflect') and 'symmetric'.
        let r: Vec<i64> = (-7..11).map(|j| mirror_source(j, 3, false)).collect();
        assert_eq!(r, [1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2]);
        let s: Vec<i64> = (-7..11).map(|j| mirror_source(j, 3, true)).collect();
        assert_eq!(s, [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1]);
        assert!((-5..5).all(|j| mirror_source(j, 1, false) == 0));
        assert!((-5..5).all(|j| mirror_source(j, 1, true) == 0));
    }
}
