//! Copying a box of elements between two arrays: the kernel behind NumPy's FFT `n`/`s`
//! (crop and zero-pad) and `fftshift` (a roll is two boxes per axis). A box is a view of
//! each array; the copy is one elementwise assignment between the views.

use std::ops::Range;

use crate::array::RawArray;
use crate::backend::Backend;
use crate::error::Result;
use crate::ops::expr::Expr;
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// Writes `dst[dst_start + i] = cast(src[src_start + i])` for every multi-index `i` of
/// `extent` (both arrays with the same rank; the cast is the identity when the types
/// agree). Nothing is dispatched for an empty box.
pub(crate) fn copy_box<B: Backend>(
    src: &RawArray<B>,
    src_start: &[usize],
    dst: &RawArray<B>,
    dst_start: &[usize],
    extent: &[usize],
) -> Result<()> {
    src.same_device("copy", dst)?;
    ensure_supported(&src.backend, src.dtype, OpKind::Elementwise)?;
    ensure_supported(&src.backend, dst.dtype, OpKind::Elementwise)?;
    if shape::numel(extent) == 0 {
        return Ok(());
    }
    let boxed = |start: &[usize]| -> Vec<Range<usize>> {
        start.iter().zip(extent).map(|(&s, &e)| s..s + e).collect()
    };
    let from = src.view(&boxed(src_start))?;
    let to = dst.view(&boxed(dst_start))?;
    let mut value = Expr::array(&from);
    if from.dtype != to.dtype {
        value = value.cast(to.dtype);
    }
    value.eval_into_raw(&to)
}
