//! NumPy-style basic indexing: `a.at(&s![1..-1, ..;2, 3, NEW_AXIS])` selects, per axis, a
//! range with a step (negative steps walk backwards, negative bounds count from the end), a
//! single index (which drops the axis) or a new axis of length 1. Axes not named are whole.
//! The result is a view sharing the buffer; nothing is copied.
//!
//! | written | meaning (NumPy) |
//! |---|---|
//! | `2` / `-1` | index 2 / the last index; the axis is dropped |
//! | `1..4`, `1..`, `..4`, `..`, `1..=3` | a range (bounds clamped to the axis, like NumPy) |
//! | `..;2`, `1..-1;3`, `..;-1` | a range with a step; `..;-1` reverses the axis |
//! | `NEW_AXIS` | a new axis of length 1 (NumPy `None`/`np.newaxis`) |

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape;

/// What one axis of [`RawArray::at`] selects; made by the [`s!`](crate::s) macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceArg {
    /// One index (negative counts from the end); the axis is dropped.
    Index(isize),
    /// `start..end` by `step` (NumPy's `start:end:step`); `None` is the end the step
    /// walks from or to.
    Range {
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    },
    /// A new axis of length 1.
    NewAxis,
}

/// A new axis of length 1, for [`s!`](crate::s).
pub const NEW_AXIS: SliceArg = SliceArg::NewAxis;

impl SliceArg {
    /// This selection with step `step` (a single index becomes the range of that index).
    pub fn step_by(self, step: isize) -> SliceArg {
        match self {
            SliceArg::Range { start, end, .. } => SliceArg::Range { start, end, step },
            SliceArg::Index(i) => SliceArg::Range {
                start: Some(i),
                end: if i == -1 { None } else { Some(i + 1) },
                step,
            },
            SliceArg::NewAxis => SliceArg::NewAxis,
        }
    }

    fn range(start: Option<isize>, end: Option<isize>) -> SliceArg {
        SliceArg::Range {
            start,
            end,
            step: 1,
        }
    }
}

/// Selects elements of an array per axis: `s![1..-1, ..;2]` is NumPy's `[1:-1, ::2]`.
/// Each item is an index, a range (optionally `;step`) or [`NEW_AXIS`]; the result is a fixed
/// array of [`SliceArg`] for [`Array::at`].
#[macro_export]
macro_rules! s {
    (@acc [$($done:expr,)*]) => { [$($done,)*] };
    (@acc [$($done:expr,)*] $r:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($done,)* $crate::s!(@one $r).step_by(($step) as isize),] $($rest)*)
    };
    (@acc [$($done:expr,)*] $r:expr ; $step:expr) => {
        $crate::s!(@acc [$($done,)* $crate::s!(@one $r).step_by(($step) as isize),])
    };
    (@acc [$($done:expr,)*] $r:expr , $($rest:tt)*) => {
        $crate::s!(@acc [$($done,)* $crate::s!(@one $r),] $($rest)*)
    };
    (@acc [$($done:expr,)*] $r:expr) => {
        $crate::s!(@acc [$($done,)* $crate::s!(@one $r),])
    };
    // `1..-1` is NumPy's `1:-1`, not an empty Rust range: clippy's lint against reversed
    // ranges does not apply to selections.
    (@one $r:expr) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let arg = $crate::SliceArg::from($r);
        arg
    }};
    ($($t:tt)*) => { $crate::s!(@acc [] $($t)*) };
}

macro_rules! slice_arg_from {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceArg {
            fn from(i: $t) -> Self {
                SliceArg::Index(i as isize)
            }
        }
        impl From<Range<$t>> for SliceArg {
            fn from(r: Range<$t>) -> Self {
                SliceArg::range(Some(r.start as isize), Some(r.end as isize))
            }
        }
        impl From<RangeFrom<$t>> for SliceArg {
            fn from(r: RangeFrom<$t>) -> Self {
                SliceArg::range(Some(r.start as isize), None)
            }
        }
        impl From<RangeTo<$t>> for SliceArg {
            fn from(r: RangeTo<$t>) -> Self {
                SliceArg::range(None, Some(r.end as isize))
            }
        }
        impl From<RangeInclusive<$t>> for SliceArg {
            fn from(r: RangeInclusive<$t>) -> Self {
                let end = *r.end() as isize;
                SliceArg::range(Some(*r.start() as isize), (end != -1).then_some(end + 1))
            }
        }
        impl From<RangeToInclusive<$t>> for SliceArg {
            fn from(r: RangeToInclusive<$t>) -> Self {
                let end = r.end as isize;
                SliceArg::range(None, (end != -1).then_some(end + 1))
            }
        }
    )*};
}
slice_arg_from!(i32, i64, isize, usize);

impl From<RangeFull> for SliceArg {
    fn from(_: RangeFull) -> Self {
        SliceArg::range(None, None)
    }
}

/// The first index, step and length NumPy's `start:end:step` selects on an axis of `len`.
fn resolve(len: usize, start: Option<isize>, end: Option<isize>, step: isize) -> (isize, usize) {
    let n = len as isize;
    // Bounds count from the end when negative, then clamp to where the step can go.
    let bound = |v: isize, lo: isize, hi: isize| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(lo, hi)
    };
    let (first, stop) = if step > 0 {
        (
            start.map_or(0, |v| bound(v, 0, n)),
            end.map_or(n, |v| bound(v, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| bound(v, -1, n - 1)),
            end.map_or(-1, |v| bound(v, -1, n - 1)),
        )
    };
    let span = if step > 0 { stop - first } else { first - stop };
    let count = if span <= 0 {
        0
    } else {
        (span + step.abs() - 1) / step.abs()
    };
    (first, count as usize)
}

impl<B: Backend> RawArray<B> {
    /// The view NumPy's basic indexing `a[args]` gives; see the module documentation and
    /// [`s!`](crate::s). Errors: more selecting items than axes ([`Error::RankMismatch`]);
    /// an index out of range or a step of 0 ([`Error::InvalidArgument`]).
    pub fn at(&self, args: &[SliceArg]) -> Result<RawArray<B>> {
        let selecting = args.iter().filter(|a| **a != SliceArg::NewAxis).count();
        if selecting > self.ndim() {
            return Err(Error::RankMismatch {
                op: "at".into(),
                expected: format!(
                    "at most {} selecting items ({selecting} given)",
                    self.ndim()
                ),
                got: self.ndim(),
            });
        }
        let (mut dims, mut strides) = (Vec::new(), Vec::new());
        let mut moved = 0isize;
        let mut axis = 0;
        let mut empty = self.is_empty();
        let all = SliceArg::range(None, None);
        let rest = std::iter::repeat_n(&all, self.ndim() - selecting);
        for arg in args.iter().chain(rest) {
            match *arg {
                SliceArg::NewAxis => {
                    dims.push(1);
                    strides.push(0);
                    continue;
                }
                SliceArg::Index(i) => {
                    let len = self.dims[axis];
                    let at = if i < 0 { i + len as isize } else { i };
                    if at < 0 || at >= len as isize {
                        return Err(Error::invalid_arg(
                            "at",
                            format!(
                                "index {i} is out of range for axis {axis} of length {len} (shape {:?})",
                                self.dims
                            ),
                        ));
                    }
                    moved += at * self.strides[axis];
                }
                SliceArg::Range { start, end, step } => {
                    if step == 0 {
                        return Err(Error::invalid_arg("at", "a slice step of 0"));
                    }
                    let (first, count) = resolve(self.dims[axis], start, end, step);
                    if count > 0 {
                        moved += first * self.strides[axis];
                    }
                    empty |= count == 0;
                    dims.push(count);
                    strides.push(self.strides[axis] * step);
                }
            }
            axis += 1;
        }
        shape::check_rank(dims.len())?;
        let offset = if empty {
            self.offset
        } else {
            (self.offset as isize + moved) as usize
        };
        Ok(self.derive_strided(self.dtype, dims, strides, offset))
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The view NumPy's basic indexing gives: `a.at(&s![1..-1, ..;2])` is `a[1:-1, ::2]`.
    ///
    /// ```
    /// # use gpuarrays_core::{Array, s};
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let a = Array::<i32, _>::from_slice(&cpu, &[3, 4], &(0..12).collect::<Vec<_>>())?;
    /// assert_eq!(a.at(&s![1.., ..;2])?.to_vec()?, [4, 6, 8, 10]);
    /// assert_eq!(a.at(&s![-1, ..;-1])?.to_vec()?, [11, 10, 9, 8]);   // last row, reversed
    /// assert_eq!(a.at(&s![.., 1])?.dims(), [3]);                     // a column
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn at(&self, args: &[SliceArg]) -> Result<Self> {
        Ok(Array::from_raw(self.raw.at(args)?))
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    /// Python's `range(len)[start:end:step]`, written out as a list.
    fn python(len: usize, start: Option<isize>, end: Option<isize>, step: isize) -> Vec<isize> {
        let n = len as isize;
        let norm = |v: isize| if v < 0 { v + n } else { v };
        let mut out = Vec::new();
        if step > 0 {
            let mut i = start.map_or(0, |v| norm(v).clamp(0, n));
            let stop = end.map_or(n, |v| norm(v).clamp(0, n));
            while i < stop {
                out.push(i);
                i += step;
            }
        } else {
            let mut i = start.map_or(n - 1, |v| norm(v).clamp(-1, n - 1));
            let stop = end.map_or(-1, |v| norm(v).clamp(-1, n - 1));
            while i > stop {
                out.push(i);
                i += step;
            }
        }
        out
    }

    #[test]
    fn ranges_select_what_python_slices_select() {
        let bounds = [
            None,
            Some(-7),
            Some(-3),
            Some(-1),
            Some(0),
            Some(1),
            Some(2),
            Some(5),
            Some(9),
        ];
        for len in [0usize, 1, 2, 5] {
            for &start in &bounds {
                for &end in &bounds {
                    for step in [-3isize, -2, -1, 1, 2, 3] {
                        let want = python(len, start, end, step);
                        let (first, count) = resolve(len, start, end, step);
                        let got: Vec<isize> =
                            (0..count as isize).map(|i| first + i * step).collect();
                        assert_eq!(got, want, "len {len} [{start:?}:{end:?}:{step}]");
                    }
                }
            }
        }
    }
}
