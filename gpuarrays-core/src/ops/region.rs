//! Copying a box of elements between two arrays: the kernel behind NumPy's FFT `n`/`s`
//! (crop and zero-pad) and `fftshift` (a roll is two boxes per axis).
//!
//! Elementwise outputs are contiguous by contract, so a box whose destination rows have
//! gaps is written one contiguous run per dispatch (see [`copy_box`]).

use crate::array::RawArray;
use crate::backend::Backend;
use crate::error::Result;
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// Writes `dst[dst_start + i] = cast(src[src_start + i])` for every multi-index `i` of
/// `extent` (both arrays row-major with the same rank; the cast is the identity when the
/// types agree). One elementwise kernel per contiguous run of the destination; nothing is
/// dispatched for an empty box.
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
    let (dst_base, src_base) = (
        dst.offset + start(&dst_strides, dst_start),
        src.offset + start(&src_strides, src_start),
    );
    // Elementwise outputs are contiguous (the kernel contract), and a box inside a larger
    // destination is not: one dispatch per contiguous run of the destination, i.e. per index
    // of the leading dimensions `..k` whose steps leave gaps. A crop (the destination is the
    // whole box) is one dispatch; a zero-pad of the last axis is one per line.
    let k = contiguous_tail(&dims, &st[0]);
    let outer = &dims[..k];
    let mut index = vec![0usize; k];
    for _ in 0..shape::numel(outer) {
        let at = |strides: &[isize]| -> usize {
            index
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i * s as usize)
                .sum()
        };
        let args = ElementwiseArgs {
            shape: dims[k..].to_vec(),
            inputs: vec![Operand {
                buffer: &*s,
                dtype: src.dtype,
                offset: src_base + at(&st[1]),
                strides: st[1][k..].to_vec(),
            }],
            scalars: vec![],
            output: Operand {
                buffer: &*d,
                dtype: dst.dtype,
                offset: dst_base + at(&st[0]),
                strides: st[0][k..].to_vec(),
            },
        };
        src.backend.elementwise(&program, &args)?;
        // Next multi-index of the leading dimensions, row-major.
        for axis in (0..k).rev() {
            index[axis] += 1;
            if index[axis] < outer[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Ok(())
}

/// The first dimension `k` such that `dims[k..]` with `strides[k..]` is row-major contiguous
/// (`dims.len()` when even the last dimension is not unit-stride).
fn contiguous_tail(dims: &[usize], strides: &[isize]) -> usize {
    let mut expected = 1isize;
    for k in (0..dims.len()).rev() {
        if dims[k] != 1 && strides[k] != expected {
            return k + 1;
        }
        expected *= dims[k] as isize;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::contiguous_tail;

    #[test]
    fn contiguous_tail_finds_the_gap() {
        assert_eq!(contiguous_tail(&[4, 8], &[8, 1]), 0);
        assert_eq!(contiguous_tail(&[4, 8], &[16, 1]), 1);
        assert_eq!(contiguous_tail(&[2, 4, 8], &[64, 8, 1]), 1);
        assert_eq!(contiguous_tail(&[4], &[2]), 1);
        assert_eq!(contiguous_tail(&[1, 4], &[99, 1]), 0);
    }
}
