//! What an FFT call transforms: the four transforms, and NumPy's rules that turn `s` and
//! `axes` into the chosen axes and their lengths, grouped into runs of consecutive axes
//! that one backend call can take (at most [`MAX_FFT_RANK`]).

use crate::error::{Error, Result};
use crate::kernel::MAX_FFT_RANK;
use crate::shape;

/// The four transforms the public functions are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transform {
    Fft,
    Ifft,
    Rfft,
    Irfft,
}

impl Transform {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Transform::Fft => "fft",
            Transform::Ifft => "ifft",
            Transform::Rfft => "rfft",
            Transform::Irfft => "irfft",
        }
    }

    pub(crate) fn inverse(self) -> bool {
        matches!(self, Transform::Ifft | Transform::Irfft)
    }
}

/// The chosen axes: `axes`, else the last `s.len()` axes, else all; each in range, none twice,
/// as many as `s` has lengths.
pub(crate) fn resolve_axes(
    op: &str,
    ndim: usize,
    s: Option<&[usize]>,
    axes: Option<&[usize]>,
) -> Result<Vec<usize>> {
    let axes: Vec<usize> = match (axes, s) {
        (Some(axes), _) => axes.to_vec(),
        (None, Some(s)) if s.len() > ndim => {
            return Err(Error::invalid_arg(
                op,
                format!("{} lengths for an array of {ndim} dimensions", s.len()),
            ));
        }
        (None, Some(s)) => (ndim - s.len()..ndim).collect(),
        (None, None) => (0..ndim).collect(),
    };
    for &ax in &axes {
        shape::check_axis(op, ax, ndim)?;
    }
    for (i, ax) in axes.iter().enumerate() {
        if axes[..i].contains(ax) {
            return Err(Error::invalid_arg(
                op,
                format!("axis {ax} is listed twice in {axes:?}; list each axis once"),
            ));
        }
    }
    if let Some(s) = s
        && s.len() != axes.len()
    {
        return Err(Error::invalid_arg(
            op,
            format!(
                "{} lengths {s:?} for {} axes {axes:?}; give one length per axis",
                s.len(),
                axes.len()
            ),
        ));
    }
    Ok(axes)
}

/// The logical transform length of each chosen axis (for irfft: the output lengths).
pub(crate) fn resolve_lengths(
    op: &str,
    t: Transform,
    dims: &[usize],
    axes: &[usize],
    s: Option<&[usize]>,
) -> Result<Vec<usize>> {
    let mut lengths: Vec<usize> = match s {
        Some(s) => s.to_vec(),
        None => axes.iter().map(|&a| dims[a]).collect(),
    };
    if t == Transform::Irfft
        && s.is_none()
        && let (Some(last), Some(&ax)) = (lengths.last_mut(), axes.last())
    {
        let m = dims[ax];
        *last = m.saturating_sub(1).checked_mul(2).ok_or_else(|| {
            Error::invalid_arg(
                op,
                format!(
                    "the default output length 2·(m − 1) for m = {m} along axis {ax} \
                     overflows usize; give the output length explicitly"
                ),
            )
        })?;
    }
    if let Some(k) = lengths.iter().position(|&n| n == 0) {
        return Err(Error::invalid_arg(
            op,
            format!(
                "a transform of 0 points along axis {}; every transform length must be at least 1",
                axes[k]
            ),
        ));
    }
    Ok(lengths)
}

/// Sorted axes split into runs of consecutive axes, at most [`MAX_FFT_RANK`] long:
/// `(first axis, count)`.
pub(crate) fn runs(axes: &[usize]) -> Vec<(usize, usize)> {
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for ax in sorted {
        match out.last_mut() {
            Some((first, count)) if *first + *count == ax && *count < MAX_FFT_RANK => *count += 1,
            _ => out.push((ax, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_group_consecutive_axes_up_to_three() {
        assert_eq!(runs(&[2, 0, 1]), vec![(0, 3)]);
        assert_eq!(runs(&[0, 2]), vec![(0, 1), (2, 1)]);
        assert_eq!(runs(&[4, 3, 2, 1, 0]), vec![(0, 3), (3, 2)]);
        assert_eq!(runs(&[]), vec![]);
    }

    #[test]
    fn axes_and_lengths_follow_numpy() {
        assert_eq!(resolve_axes("f", 3, None, None).unwrap(), vec![0, 1, 2]);
        assert_eq!(
            resolve_axes("f", 3, Some(&[4, 4]), None).unwrap(),
            vec![1, 2]
        );
        assert!(matches!(
            resolve_axes("f", 2, None, Some(&[2])),
            Err(Error::AxisOutOfRange { .. })
        ));
        assert!(matches!(
            resolve_axes("f", 2, None, Some(&[1, 1])),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            resolve_axes("f", 2, Some(&[3]), Some(&[0, 1])),
            Err(Error::InvalidArgument { .. })
        ));
        let irfft = resolve_lengths("f", Transform::Irfft, &[3, 5], &[0, 1], None).unwrap();
        assert_eq!(irfft, vec![3, 8]);
        assert!(resolve_lengths("f", Transform::Irfft, &[3, 1], &[1], None).is_err());
        assert!(resolve_lengths("f", Transform::Fft, &[3, 1], &[0], Some(&[0])).is_err());
    }
}
