//! Copying a box of elements between two arrays: the kernel behind NumPy's FFT `n`/`s`
//! (crop and zero-pad) and `fftshift` (a roll is two boxes per axis).

use crate::array::RawArray;
use crate::backend::Backend;
use crate::error::Result;
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// Writes `dst[dst_start + i] = cast(src[src_start + i])` for every multi-index `i` of
/// `extent` (both arrays row-major with the same rank; the cast is the identity when the
/// types agree). One elementwise kernel; nothing is dispatched for an empty box.
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
    let (src_strides, dst_strides) = (
        shape::contiguous_strides(&src.dims),
        shape::contiguous_strides(&dst.dims),
    );
    let start = |strides: &[isize], at: &[usize]| -> usize {
        strides.iter().zip(at).map(|(&s, &i)| s as usize * i).sum()
    };
    let mut instrs = vec![Instr {
        node: Node::Input(0),
        dtype: src.dtype,
    }];
    if src.dtype != dst.dtype {
        instrs.push(Instr {
            node: Node::Cast(dst.dtype, 0),
            dtype: dst.dtype,
        });
    }
    let program = Program {
        inputs: vec![src.dtype],
        scalars: vec![],
        instrs,
    };
    let (dims, st) = simplify_layout(extent, &[dst_strides.clone(), src_strides.clone()]);
    let (s, d) = (src.buffer()?, dst.buffer()?);
    let args = ElementwiseArgs {
        shape: dims,
        inputs: vec![Operand {
            buffer: &*s,
            dtype: src.dtype,
            offset: src.offset + start(&src_strides, src_start),
            strides: st[1].clone(),
        }],
        scalars: vec![],
        output: Operand {
            buffer: &*d,
            dtype: dst.dtype,
            offset: dst.offset + start(&dst_strides, dst_start),
            strides: st[0].clone(),
        },
    };
    src.backend.elementwise(&program, &args)
}
