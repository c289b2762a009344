//! Range checks of the operands an operation is given, before anything is enqueued: a kernel
//! handed an address outside its buffer would read or write another allocation (or fault and
//! leave the context unusable), so every operand is checked against its buffer's length.

use gpuarrays_core::DType;

use super::HipBuffer;
use crate::error::HipError;

fn out_of_range(what: &str, detail: String) -> HipError {
    HipError::InvalidArgument(format!("{what}: {detail}"))
}

/// Checks that `count` elements of `dtype` from element `offset` fit in `buf`.
pub(super) fn check_run(
    buf: &HipBuffer,
    dtype: DType,
    offset: usize,
    count: usize,
    what: &str,
) -> crate::Result<()> {
    let end = (offset as u128 + count as u128) * dtype.size() as u128;
    if end > buf.len() as u128 {
        return Err(out_of_range(
            what,
            format!(
                "elements {offset}..{} of {dtype} exceed a buffer of {} bytes",
                offset + count,
                buf.len()
            ),
        ));
    }
    Ok(())
}

/// Checks that every element a strided operand reaches over `shape` lies in its buffer.
pub(super) fn check_strided(
    buf: &HipBuffer,
    dtype: DType,
    offset: usize,
    shape: &[usize],
    strides: &[isize],
    what: &str,
) -> crate::Result<()> {
    if strides.len() != shape.len() {
        return Err(out_of_range(
            what,
            format!("{} strides for {} dimensions", strides.len(), shape.len()),
        ));
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = (n as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    if lo < 0 || (hi + 1) * dtype.size() as i128 > buf.len() as i128 {
        return Err(out_of_range(
            what,
            format!(
                "strides {strides:?} from offset {offset} over {shape:?} leave a buffer of {} bytes",
                buf.len()
            ),
        ));
    }
    Ok(())
}
