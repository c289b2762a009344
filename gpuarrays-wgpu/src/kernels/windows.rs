//! Binding windows: an operand larger than one storage binding is processed in ranges whose
//! bytes fit a binding, each bound at an aligned start with offsets relative to it. Every
//! kernel family that splits its work this way (find, indexing, matmul, reduce, scan, sort) uses
//! these.

use crate::context::Context;
use crate::error::Result;

/// The largest span of one binding, in bytes (less the alignment slack of its start).
pub(crate) fn capacity(ctx: &Context) -> u64 {
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    ctx.limits
        .max_storage_buffer_binding_size
        .saturating_sub(2 * align)
}

/// `byte − start` in units of `unit` bytes, as the wrapping u32 the kernels add.
pub(crate) fn rel(byte: u64, start: u64, unit: u64) -> u32 {
    ((byte as i64 - start as i64) / unit as i64) as u32
}

/// Calls `f(q0, q1)` for consecutive ranges covering `0..n` such that `fits(q0, q1)` (a
/// range is halved until it fits; a single item is always taken).
pub(crate) fn for_ranges(
    n: usize,
    fits: impl Fn(usize, usize) -> bool,
    mut f: impl FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    let mut q0 = 0;
    while q0 < n {
        let mut step = n - q0;
        while step > 1 && !fits(q0, q0 + step) {
            step = step.div_ceil(2);
        }
        f(q0, q0 + step)?;
        q0 += step;
    }
    Ok(())
}
