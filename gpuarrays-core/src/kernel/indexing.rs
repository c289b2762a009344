//! Descriptions of the indexing kernels: gather (read at positions held in an index array)
//! and scatter (write or add at such positions).
//!
//! Both work on a three-axis picture that core builds from any array operation of the
//! family (`take`, `take_along_axis`, `index_select`, boolean masks, `put`,
//! `put_along_axis`, `scatter_add`, `bincount`, ...): an `(outer, count, inner)` index
//! space, an *indexed* operand whose middle axis has `extent` positions and is addressed by
//! the index array, and the operands that walk the index space directly. Every operand has
//! element strides per axis (0 repeats an element: an index or value broadcast along an
//! axis; negative strides walk a reversed view), and an offset in elements of its own type.
//!
//! For `o < outer`, `j < count`, `k < inner`, with `r = index[index_offset + o·is₀ + j·is₁ +
//! k·is₂]` (an i64) and `p = mode.position(r, extent)`:
//!
//! | kernel | effect |
//! |---|---|
//! | gather | `output[output_offset + (o·count + j)·inner + k] = source[source_offset + o·ss₀ + p·ss₁ + k·ss₂]` |
//! | scatter `Assign` | `target[target_offset + o·ts₀ + p·ts₁ + k·ts₂] = values[values_offset + o·vs₀ + j·vs₁ + k·vs₂]` |
//! | scatter `Add` | the same address `+=` the value (integers wrap) |
//!
//! Core guarantees: every dimension is at least 1 and `extent ≥ 1`; every address the
//! formulas reach for `p` in `0..extent` lies inside its buffer; the output is contiguous
//! and shares no memory with the other operands; in a scatter, distinct `(o, p, k)` reach
//! distinct target elements, and neither the index nor the values overlap the target.
//!
//! What differs between backends, and is documented for users: when two updates of a
//! scatter reach one element, `Assign` keeps one of them (the CPU reference: the last in
//! row-major order of the index space; GPUs: any one), and `Add` sums them all in an
//! unspecified order (the CPU reference adds in row-major order, so its float sums are
//! reproducible; GPUs add with atomics, so theirs may differ in the last bits between runs).

use crate::dtype::DType;

/// How an index outside `0..extent` is treated (NumPy's `mode` of `take` and `put`).
///
/// | mode | position of index `r` on an axis of `n` elements |
/// |---|---|
/// | `Raise` | `r` for `0 ≤ r < n`, `r + n` for `−n ≤ r < 0`; any other `r` is an error, reported by core before a kernel runs |
/// | `Wrap` | `r` modulo `n`, made non-negative (`r.rem_euclid(n)`) |
/// | `Clip` | `r` clamped into `0..n` (so a negative index means the first element, as in NumPy) |
///
/// A kernel never reads or writes outside the operand whatever the index holds: under
/// `Raise` it still clamps after adding `n` to negative indices (the check ran before, and
/// an index changed since by another thread must not become a wild address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexMode {
    #[default]
    Raise,
    Wrap,
    Clip,
}

impl IndexMode {
    pub const ALL: [IndexMode; 3] = [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip];

    pub const fn name(self) -> &'static str {
        match self {
            IndexMode::Raise => "raise",
            IndexMode::Wrap => "wrap",
            IndexMode::Clip => "clip",
        }
    }

    /// The position a kernel uses for index `r` on an axis of `extent ≥ 1` elements: the
    /// table above, with `Raise` clamped as the kernels do. Host kernels call this; device
    /// kernels print the same arithmetic.
    #[inline]
    pub fn position(self, r: i64, extent: usize) -> usize {
        let n = extent as i64;
        let p = match self {
            IndexMode::Raise => {
                if r < 0 {
                    r.wrapping_add(n)
                } else {
                    r
                }
            }
            IndexMode::Wrap => r.rem_euclid(n.max(1)),
            IndexMode::Clip => r,
        };
        p.clamp(0, n - 1) as usize
    }
}

/// Whether a scatter stores or accumulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScatterOp {
    /// `target[p] = value` (one of several updates of one element wins).
    Assign,
    /// `target[p] += value` (numeric types; integers wrap; all updates are added).
    Add,
}

impl ScatterOp {
    pub const ALL: [ScatterOp; 2] = [ScatterOp::Assign, ScatterOp::Add];

    pub const fn name(self) -> &'static str {
        match self {
            ScatterOp::Assign => "scatter",
            ScatterOp::Add => "scatter_add",
        }
    }
}

/// An operand of an indexing kernel: a buffer, the element offset of position `(0, 0, 0)`,
/// and element strides along `(outer, middle, inner)`.
#[derive(Debug, Clone)]
pub struct Strided3<'a, Buf> {
    pub buffer: &'a Buf,
    pub offset: usize,
    pub strides: [isize; 3],
}

impl<Buf> Strided3<'_, Buf> {
    /// The element position of `(o, m, k)` (`m` is `j` for the index and values, `p` for
    /// the indexed operand). In range by core's guarantees for in-range coordinates.
    #[inline]
    pub fn at(&self, o: usize, m: usize, k: usize) -> usize {
        (self.offset as isize
            + o as isize * self.strides[0]
            + m as isize * self.strides[1]
            + k as isize * self.strides[2]) as usize
    }

    /// The element positions `(o, m, k)` reaches for coordinates below `dims`: the range
    /// from the lowest to one past the highest (for `dims` of at least 1 each).
    pub fn span(&self, dims: [usize; 3]) -> std::ops::Range<usize> {
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (d, s) in dims.iter().zip(self.strides) {
            let reach = (*d as isize - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        lo as usize..hi as usize + 1
    }
}

/// The index space and index array shared by gathers and scatters.
#[derive(Debug, Clone)]
pub struct IndexSpace<'a, Buf> {
    /// `[outer, count, inner]`, each at least 1.
    pub dims: [usize; 3],
    /// i64 indices, walked over `dims`.
    pub index: Strided3<'a, Buf>,
    /// Positions along the indexed axis (at least 1).
    pub extent: usize,
    pub mode: IndexMode,
}

impl<Buf> IndexSpace<'_, Buf> {
    /// Number of points of the index space.
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A gather (see the [module docs](self)): `output` is contiguous row-major over `dims`.
#[derive(Debug, Clone)]
pub struct GatherArgs<'a, Buf> {
    /// The element type of `source` and `output`.
    pub dtype: DType,
    pub space: IndexSpace<'a, Buf>,
    pub source: Strided3<'a, Buf>,
    pub output: &'a Buf,
    pub output_offset: usize,
    /// The report of a [`IndexMode::Raise`] gather, given only to a backend that answers
    /// [`Backend::reports_gather_range`](crate::Backend::reports_gather_range) with `true`:
    /// a buffer whose first 4 bytes hold zero, which the gather sets to a nonzero value if
    /// any index lies outside `-extent..extent` (positions are still clamped as always, so
    /// the kernel never reads outside the source). Core checks it after the call; it then
    /// needs no pass of its own over the indices before the gather. `None`: no report asked.
    pub out_of_range: Option<&'a Buf>,
}

/// A scatter (see the [module docs](self)), in place on `target`.
#[derive(Debug, Clone)]
pub struct ScatterArgs<'a, Buf> {
    pub op: ScatterOp,
    /// The element type of `target` and `values`.
    pub dtype: DType,
    pub space: IndexSpace<'a, Buf>,
    pub target: Strided3<'a, Buf>,
    pub values: Strided3<'a, Buf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of [`IndexMode`], written out case by case.
    #[test]
    fn positions_follow_numpy_modes() {
        let n = 5;
        let cases: [(i64, [usize; 3]); 8] = [
            (0, [0, 0, 0]),
            (4, [4, 4, 4]),
            (-1, [4, 4, 0]),
            (-5, [0, 0, 0]),
            (5, [4, 0, 4]),
            (7, [4, 2, 4]),
            (-6, [0, 4, 0]),
            (i64::MIN, [0, 2, 0]),
        ];
        for (r, [raise, wrap, clip]) in cases {
            assert_eq!(IndexMode::Raise.position(r, n), raise, "raise {r}");
            assert_eq!(IndexMode::Wrap.position(r, n), wrap, "wrap {r}");
            assert_eq!(IndexMode::Clip.position(r, n), clip, "clip {r}");
        }
        assert_eq!(IndexMode::Wrap.position(i64::MAX, 1), 0);
    }
}
