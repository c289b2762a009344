//! Dispatching an elementwise kernel whose output is strided (a view: a column, every other
//! element, a reversed axis) to a backend whose kernels write contiguous outputs only.
//!
//! A backend answers [`Backend::writes_strided_outputs`]; when it says no, core keeps the
//! contract "the output is row-major contiguous over the kernel's shape" by
//! 1. turning every axis the output walks backwards around for all operands (the program
//!    does not depend on the order of the index space unless it reads the output index,
//!    and such programs are evaluated into a contiguous temporary by the caller), then
//! 2. dispatching one kernel per contiguous run of the output: per row of a 2-D block, per
//!    element of a column. Correct on every backend; a backend that writes strided outputs
//!    itself does it in one kernel.

use smallvec::SmallVec;

use crate::backend::Backend;
use crate::error::Result;
use crate::kernel::{ElementwiseArgs, Operand, Program, simplify_layout};
use crate::shape;

/// Runs `program` over `args` on `backend`, splitting a strided output into contiguous runs
/// when the backend needs it. `args` must not read the output index when the output is
/// strided and the backend writes contiguous outputs only ([`Program::reads_output_index`]).
pub(crate) fn elementwise<'a, B: Backend>(
    backend: &B,
    program: &Program,
    args: &ElementwiseArgs<'a, B::Buffer>,
) -> Result<()> {
    let _span = crate::profiling::kernel("elementwise", args.output.dtype);
    if backend.writes_strided_outputs(args.output.dtype)
        || shape::is_contiguous(args.shape, args.output.strides)
    {
        return crate::graph::dispatch::elementwise(backend, program, args);
    }
    debug_assert!(!program.reads_output_index());
    let ndim = args.shape.len();
    // Operand 0 is the output, then the inputs.
    let mut offsets: Vec<isize> = std::iter::once(&args.output)
        .chain(args.inputs)
        .map(|o| o.offset as isize)
        .collect();
    let mut strides: Vec<Vec<isize>> = std::iter::once(&args.output)
        .chain(args.inputs)
        .map(|o| o.strides.to_vec())
        .collect();
    for k in 0..ndim {
        if strides[0][k] < 0 {
            let last = args.shape[k] as isize - 1;
            for (off, st) in offsets.iter_mut().zip(strides.iter_mut()) {
                *off += last * st[k];
                st[k] = -st[k];
            }
        }
    }
    let (dims, st) = simplify_layout(args.shape, &strides);
    let k = contiguous_tail(&dims, &st[0]);
    let outer = &dims[..k];
    let mut index = vec![0usize; k];
    for _ in 0..shape::numel(outer) {
        let at = |op: usize| -> usize {
            let moved: isize = index
                .iter()
                .zip(&st[op])
                .map(|(&i, &s)| i as isize * s)
                .sum();
            (offsets[op] + moved) as usize
        };
        let operand = |op: usize, o: &Operand<'a, B::Buffer>| Operand {
            buffer: o.buffer,
            dtype: o.dtype,
            offset: at(op),
            strides: &st[op][k..],
        };
        let inputs: SmallVec<[Operand<'_, B::Buffer>; 4]> = (args.inputs.iter().enumerate())
            .map(|(i, o)| operand(i + 1, o))
            .collect();
        let run = ElementwiseArgs {
            shape: &dims[k..],
            inputs: &inputs,
            scalars: args.scalars,
            output: operand(0, &args.output),
        };
        crate::graph::dispatch::elementwise(backend, program, &run)?;
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
