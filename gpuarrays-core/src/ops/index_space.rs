//! What the gather and scatter operations share: operands folded to the kernels'
//! `(outer, middle, inner)` picture, index arrays converted to i64 and checked, and the
//! two kernel calls.
//!
//! An operation names three groups of an operand's dimensions (before the indexed axis,
//! the indexed or index axes, after it). Each group becomes one stride when its dimensions
//! merge (row-major runs, broadcast runs, single dimensions: every contiguous array and most
//! views); an operand whose group does not merge is copied to a contiguous array first
//! (one copy, as for every non-elementwise kernel).

use std::borrow::Cow;
use std::ops::Range;

use crate::array::RawArray;
use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{
    BinaryOp, GatherArgs, IndexMode, IndexSpace, ReduceOp, ScatterArgs, ScatterOp, Strided3,
};
use crate::ops::expr::Expr;
use crate::scalar::Scalar;
use crate::support::{OpKind, ensure_supported};

/// One stride for a row-major group of dimensions, when they merge (`0` for a group of
/// length-1 dimensions).
fn merged(dims: &[usize], strides: &[isize]) -> Option<isize> {
    let mut acc: Option<(isize, isize)> = None;
    for (&d, &s) in dims.iter().zip(strides).rev().filter(|(d, _)| **d != 1) {
        acc = match acc {
            None => Some((s, d as isize)),
            Some((inner, n)) if s == inner.checked_mul(n)? => Some((inner, n * d as isize)),
            Some(_) => return None,
        };
    }
    Some(acc.map_or(0, |(s, _)| s))
}

/// An operand folded to three strides: borrowed when its groups merge, else a copy.
pub(crate) struct Folded<'a, B: Backend> {
    pub array: Cow<'a, RawArray<B>>,
    pub strides: [isize; 3],
}

impl<'a, B: Backend> Folded<'a, B> {
    /// Folds `a`'s dimensions `..groups.start`, `groups`, `groups.end..`.
    pub fn new(a: &'a RawArray<B>, groups: Range<usize>) -> Result<Self> {
        let fold = |a: &RawArray<B>| -> Option<[isize; 3]> {
            let (d, s) = (&a.dims, &a.strides);
            let (m, e) = (groups.start, groups.end);
            Some([
                merged(&d[..m], &s[..m])?,
                merged(&d[m..e], &s[m..e])?,
                merged(&d[e..], &s[e..])?,
            ])
        };
        if let Some(strides) = fold(a) {
            return Ok(Folded {
                array: Cow::Borrowed(a),
                strides,
            });
        }
        let copy = a.copy()?;
        let strides = fold(&copy).ok_or_else(|| {
            Error::invalid_arg("gather/scatter", "a contiguous copy did not fold")
        })?;
        Ok(Folded {
            array: Cow::Owned(copy),
            strides,
        })
    }
}

impl<'a, B: Backend> Folded<'a, B> {
    /// An index array that walks only the middle of the index space (`take`, `put`,
    /// `index_copy`/`index_add`): all its dimensions form the middle group, repeated across
    /// the outer and inner ones (strides 0).
    pub fn middle(index: &'a RawArray<B>) -> Result<Self> {
        let f = Folded::new(index, 0..index.ndim())?;
        Ok(Folded {
            strides: [0, f.strides[1], 0],
            array: f.array,
        })
    }
}

/// `indices` as i64 (integers only; other integer types are converted, as NumPy does).
pub(crate) fn as_i64<B: Backend>(op: &str, indices: &RawArray<B>) -> Result<RawArray<B>> {
    match indices.dtype {
        DType::I64 => Ok(indices.clone()),
        d if d.is_integer() => Expr::array(indices).cast(DType::I64).eval_raw(),
        d => Err(Error::invalid_dtype(
            op,
            d,
            "indices must be integers (i32, i64, u32, u64, u8); for a boolean mask use \
             masked_select or masked_assign",
        )),
    }
}

/// Fails unless every index lies in `-extent..extent` (the `Raise` rule): one fused
/// comparison and an `any` reduction; the offending extreme is read only on failure.
pub(crate) fn check_in_range<B: Backend>(
    op: &str,
    indices: &RawArray<B>,
    extent: usize,
) -> Result<()> {
    if indices.is_empty() {
        return Ok(());
    }
    let n = i64::try_from(extent).unwrap_or(i64::MAX);
    let x = || Expr::array(indices);
    let bad = x()
        .lt(Scalar::I64(-n))
        .binary(BinaryOp::Or, x().ge(Scalar::I64(n)))
        .eval_raw()?;
    if bad.reduce_all(ReduceOp::Any)? != Scalar::Bool(true) {
        return Ok(());
    }
    let lo = indices.reduce_all(ReduceOp::Min)?;
    let hi = indices.reduce_all(ReduceOp::Max)?;
    let index = match (lo, hi) {
        (Scalar::I64(lo), _) if lo < -n => lo,
        (_, Scalar::I64(hi)) => hi,
        _ => n,
    };
    Err(range_error(op, index, extent))
}

/// The `Raise` rule's error for `index` on an axis of `extent` elements.
fn range_error(op: &str, index: i64, extent: usize) -> Error {
    Error::IndexOutOfRange {
        op: op.into(),
        index,
        len: extent,
        hint: format!(
            "valid indices are -{extent}..{extent} (negative ones count from the end); pass \
             IndexMode::Wrap or IndexMode::Clip to wrap or clamp them instead"
        ),
    }
}

/// The checks every gather and scatter makes before its kernel: an index space with
/// points needs a non-empty axis, and `Raise` needs every index in range. Returns whether
/// a kernel is needed (`false` for an empty index space).
pub(crate) fn check_space<B: Backend>(
    op: &str,
    data: (DType, OpKind),
    index: &RawArray<B>,
    points: usize,
    extent: usize,
    mode: IndexMode,
) -> Result<bool> {
    check_points(op, data, index, points, extent, mode == IndexMode::Raise)
}

/// [`check_space`] for a gather: where the backend's gather reports out-of-range indices
/// itself ([`Backend::reports_gather_range`]), the `Raise` pass over the indices is left to
/// the kernel and [`gather`] reads its report.
pub(crate) fn check_gather_space<B: Backend>(
    op: &str,
    dtype: DType,
    index: &RawArray<B>,
    points: usize,
    extent: usize,
    mode: IndexMode,
) -> Result<bool> {
    let pass = mode == IndexMode::Raise && !index.backend.reports_gather_range();
    check_points(op, (dtype, OpKind::Gather), index, points, extent, pass)
}

/// `data` is the element type the kernel moves and its kind (gather or scatter): a backend
/// without that kernel refuses the operation for every shape, an empty one included (where
/// no kernel would run), so its answer does not depend on the data.
fn check_points<B: Backend>(
    op: &str,
    data: (DType, OpKind),
    index: &RawArray<B>,
    points: usize,
    extent: usize,
    range_pass: bool,
) -> Result<bool> {
    index.ensure_alive()?;
    ensure_supported(&index.backend, data.0, data.1)?;
    if points == 0 {
        return Ok(false);
    }
    if extent == 0 {
        return Err(Error::IndexOutOfRange {
            op: op.into(),
            index: 0,
            len: 0,
            hint: "the indexed axis is empty, so no index is valid".into(),
        });
    }
    if range_pass {
        check_in_range(op, index, extent)?;
    }
    Ok(true)
}

/// A kernel's view of a folded operand.
fn strided3<'b, B: Backend>(f: &Folded<'_, B>, buffer: &'b B::Buffer) -> Strided3<'b, B::Buffer> {
    Strided3 {
        buffer,
        offset: f.array.offset,
        strides: f.strides,
    }
}

/// Runs one gather into a new contiguous array of `out_dims` (whose row-major order is
/// `dims`), after [`check_space`] or [`check_gather_space`] said a kernel is needed. A
/// `Raise` gather on a backend that reports out-of-range indices gets a zeroed 4-byte report
/// and is an error when the report comes back set.
pub(crate) fn gather<B: Backend>(
    op: &str,
    source: &Folded<'_, B>,
    index: &Folded<'_, B>,
    dims: [usize; 3],
    extent: usize,
    mode: IndexMode,
    out_dims: &[usize],
) -> Result<RawArray<B>> {
    let backend = &source.array.backend;
    ensure_supported(backend, source.array.dtype, OpKind::Gather)?;
    let out = RawArray::alloc(backend, source.array.dtype, out_dims)?;
    let report = if mode == IndexMode::Raise && backend.reports_gather_range() {
        // The report is the first 4 bytes of its buffer (`GatherArgs::out_of_range`).
        let r = RawArray::alloc(backend, DType::U32, &[1])?;
        crate::graph::dispatch::write(backend, &*r.buffer()?, 0, &0u32.to_ne_bytes())?;
        Some(r)
    } else {
        None
    };
    let (s, i, o) = (source.array.buffer()?, index.array.buffer()?, out.buffer()?);
    let r = report.as_ref().map(RawArray::buffer).transpose()?;
    let _span = crate::profiling::kernel("gather", source.array.dtype);
    crate::graph::dispatch::gather(
        backend,
        &GatherArgs {
            dtype: source.array.dtype,
            space: IndexSpace {
                dims,
                index: strided3(index, &i),
                extent,
                mode,
            },
            source: strided3(source, &s),
            output: &o,
            output_offset: out.offset,
            out_of_range: r.as_deref(),
        },
    )?;
    drop((s, i, o, r));
    if let Some(report) = report {
        let mut word = [0u8; 4];
        crate::graph::dispatch::read(backend, &*report.buffer()?, 0, &mut word)?;
        if word != [0; 4] {
            // The kernel saw an index out of range: find it, for the error's message. (If
            // another thread changed the indices since, the pass may find none.)
            check_in_range(op, &index.array, extent)?;
            return Err(range_error(
                op,
                i64::try_from(extent).unwrap_or(i64::MAX),
                extent,
            ));
        }
    }
    Ok(out)
}

/// Runs one scatter into `target`, after [`check_space`] said a kernel is needed. The
/// target must not share memory with the index or the values (callers copy them first).
pub(crate) fn scatter<B: Backend>(
    op: ScatterOp,
    target: &Folded<'_, B>,
    index: &Folded<'_, B>,
    values: &Folded<'_, B>,
    dims: [usize; 3],
    extent: usize,
    mode: IndexMode,
) -> Result<()> {
    let backend = &target.array.backend;
    ensure_supported(backend, target.array.dtype, OpKind::Scatter)?;
    let (t, i, v) = (
        target.array.buffer()?,
        index.array.buffer()?,
        values.array.buffer()?,
    );
    let _span = crate::profiling::kernel("scatter", target.array.dtype);
    crate::graph::dispatch::scatter(
        backend,
        &ScatterArgs {
            op,
            dtype: target.array.dtype,
            space: IndexSpace {
                dims,
                index: strided3(index, &i),
                extent,
                mode,
            },
            target: strided3(target, &t),
            values: strided3(values, &v),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::merged;

    #[test]
    fn groups_merge_as_row_major_or_broadcast_runs() {
        assert_eq!(merged(&[], &[]), Some(0));
        assert_eq!(merged(&[1, 1], &[7, 9]), Some(0));
        assert_eq!(merged(&[2, 3], &[3, 1]), Some(1));
        assert_eq!(merged(&[2, 3], &[6, 2]), Some(2));
        assert_eq!(merged(&[2, 3], &[0, 0]), Some(0));
        assert_eq!(merged(&[2, 1, 3], &[-3, 5, -1]), Some(-1));
        assert_eq!(merged(&[2, 3], &[1, 3]), None);
        assert_eq!(merged(&[2, 3], &[0, 1]), None);
    }
}
