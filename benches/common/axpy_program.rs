//! The program `x * a + y` lowers to (`%4 = %2 + %3` where `%2 = x * a`), on f32, and its
//! kernel-level arguments: the tiny op the host-path and throughput benches time. One
//! definition, included by path from the top-level benches (`host_enqueue.rs`,
//! `host_launch_split.rs`, `wgpu_timings.rs`) and from gpuarrays-hip's `host_path_probe.rs`,
//! so every bench times the same program with the same arguments.

use gpuarrays_core::kernel::{BinaryOp, ElementwiseArgs, Instr, Node, Operand, Program};
use gpuarrays_core::{DType, Scalar};

/// `x * a + y` on f32: inputs x, y; scalar a.
pub fn axpy_program() -> Program {
    let f = DType::F32;
    let instr = |node| Instr { node, dtype: f };
    Program {
        inputs: vec![f, f],
        scalars: vec![f],
        instrs: vec![
            instr(Node::Input(0)),
            instr(Node::Scalar(0)),
            instr(Node::Binary(BinaryOp::Mul, 0, 1)),
            instr(Node::Input(1)),
            instr(Node::Binary(BinaryOp::Add, 2, 3)),
        ],
    }
}

/// A contiguous f32 operand from the first element of `buffer`.
pub fn f32_operand<Buf>(buffer: &Buf) -> Operand<'_, Buf> {
    Operand {
        buffer,
        dtype: DType::F32,
        offset: 0,
        strides: &[1],
    }
}

/// What the arguments of [`axpy_program`] over `n` contiguous f32 borrow (`z = x * a + y`):
/// kernel descriptions are borrowed, so the caller keeps this and lends
/// [`args`](Self::args) out.
pub struct AxpyOperands<'a, Buf> {
    shape: [usize; 1],
    inputs: [Operand<'a, Buf>; 2],
    scalars: [Scalar; 1],
    output: Operand<'a, Buf>,
}

impl<Buf> AxpyOperands<'_, Buf> {
    /// The kernel-level arguments.
    pub fn args(&self) -> ElementwiseArgs<'_, Buf> {
        ElementwiseArgs {
            shape: &self.shape,
            inputs: &self.inputs,
            scalars: &self.scalars,
            output: self.output,
        }
    }
}

/// The operands of `z = x * a + y` over `n` contiguous f32.
pub fn axpy_args<'a, Buf>(n: usize, [x, y, z]: [&'a Buf; 3], a: f32) -> AxpyOperands<'a, Buf> {
    AxpyOperands {
        shape: [n],
        inputs: [f32_operand(x), f32_operand(y)],
        scalars: [Scalar::F32(a)],
        output: f32_operand(z),
    }
}
