//! The program `x * a + y` lowers to (`%4 = %2 + %3` where `%2 = x * a`), on f32: the tiny
//! op the host-path and throughput benches time. One definition, included by path from the
//! top-level benches (`host_enqueue.rs`, `wgpu_timings.rs`) and from gpuarrays-hip's
//! `host_path_probe.rs`, so every bench times the same program.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, Instr, Node, Program};

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
