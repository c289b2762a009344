//! The call's inputs and output as a plan sees them: layouts checked once, the addresses of
//! contiguous ones, and whether the output is overwritten whole (then its buffer need not
//! be zeroed first, see [`CpuBuffer`]).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ElementwiseArgs;

use super::layout::Layout;
use crate::buffer::CpuBuffer;
use crate::error::CpuError;

/// An input of the call.
pub(crate) struct InputPlan<'a> {
    pub(crate) buffer: &'a CpuBuffer,
    pub(crate) dtype: DType,
    pub(crate) layout: Layout<'a>,
    /// For a contiguous input read in place: the address of its first element and the
    /// element size.
    pub(crate) contiguous: Option<(*const u8, usize)>,
}

/// The output of the call.
pub(crate) struct OutputPlan<'a> {
    pub(crate) buffer: &'a CpuBuffer,
    pub(crate) dtype: DType,
    pub(crate) layout: Layout<'a>,
    /// The first byte of the buffer (scatter's base).
    pub(crate) base: *mut u8,
    /// For a contiguous output: the address of its first element and the element size.
    pub(crate) contiguous: Option<(*mut u8, usize)>,
    /// Whether the call writes every byte of the buffer, which it took without zeroing
    /// ([`CpuBuffer::overwrite_ptr`]): marked written after a successful run.
    pub(crate) overwrites: bool,
}

/// The inputs of `args`, `n` outputs.
pub(crate) fn inputs<'a>(
    args: &ElementwiseArgs<'a, CpuBuffer>,
    n: usize,
) -> Result<Vec<InputPlan<'a>>, CpuError> {
    args.inputs
        .iter()
        .map(|op| {
            let layout = Layout::of(args.shape, op);
            layout.check(op.buffer.len() / op.dtype.size())?;
            let size = op.dtype.size();
            let contiguous = if op.dtype != DType::Bool && layout.is_linear() && n > 0 {
                Some((
                    op.buffer.ptr::<u8>(op.offset * size, n * size)? as *const u8,
                    size,
                ))
            } else {
                None
            };
            Ok(InputPlan {
                buffer: op.buffer,
                dtype: op.dtype,
                layout,
                contiguous,
            })
        })
        .collect()
}

/// The output of `args`, `n` outputs.
pub(crate) fn output<'a>(
    args: &ElementwiseArgs<'a, CpuBuffer>,
    n: usize,
) -> Result<OutputPlan<'a>, CpuError> {
    let out = &args.output;
    let layout = Layout::of(args.shape, out);
    layout.check(out.buffer.len() / out.dtype.size())?;
    let size = out.dtype.size();
    let linear = layout.is_linear() && n > 0;
    let whole = linear
        && out.offset == 0
        && n.checked_mul(size) == Some(out.buffer.len())
        && args
            .inputs
            .iter()
            .all(|i| !std::ptr::eq(i.buffer, out.buffer));
    let fresh = if whole {
        // SAFETY: no input of this call is in the output's buffer and the evaluator only
        // writes the output: the blocks write every position of a linear layout covering
        // the whole buffer before `run_with` marks it written (and runs again through the
        // ordinary pointer if another thread's first access zeroed the buffer meanwhile).
        unsafe { out.buffer.overwrite_ptr() }
    } else {
        None
    };
    let overwrites = fresh.is_some();
    let base = match fresh {
        Some(p) => p,
        None => out.buffer.ptr::<u8>(0, 0)?,
    };
    let contiguous = if linear {
        out.buffer.check(out.offset, n, size)?;
        Some((base.wrapping_add(out.offset * size), size))
    } else {
        None
    };
    Ok(OutputPlan {
        buffer: out.buffer,
        dtype: out.dtype,
        layout,
        base,
        contiguous,
        overwrites,
    })
}
