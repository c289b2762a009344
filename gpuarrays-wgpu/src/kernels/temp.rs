//! Temporary buffers of kernels, one 32-bit word per bool/u8 element (so threads never share
//! a word), and the pass that packs such words into a bool/u8 destination (an elementwise
//! cast, which writes whole words).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ElementwiseArgs, Instr, Node, Operand, Program};

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::error::Result;
use crate::kernels::elementwise;
use crate::wgsl::types::is_byte;

/// The element type temporaries of `d` are kept in.
pub fn temp_dtype(d: DType) -> DType {
    if is_byte(d) { DType::U32 } else { d }
}

/// The temp form of a value of `d`.
pub fn to_temp(d: DType, v: &str) -> String {
    if d == DType::Bool {
        format!("select(0u, 1u, {v})")
    } else {
        v.to_string()
    }
}

/// The value of `d` from its temp form.
pub fn from_temp(d: DType, v: &str) -> String {
    if d == DType::Bool {
        format!("({v} != 0u)")
    } else {
        v.to_string()
    }
}

/// Converts `count` words of `temp` (values 0..=255) into `d` elements of `dst` at element
/// `dst_offset`.
pub fn pack(
    ctx: &Context,
    temp: &WgpuBuffer,
    d: DType,
    dst: &WgpuBuffer,
    dst_offset: usize,
    count: usize,
) -> Result<()> {
    let program = Program {
        inputs: vec![DType::U32],
        scalars: vec![],
        instrs: vec![
            Instr {
                node: Node::Input(0),
                dtype: DType::U32,
            },
            Instr {
                node: Node::Cast(d, 0),
                dtype: d,
            },
        ],
    };
    let args = ElementwiseArgs {
        shape: &[count],
        inputs: &[Operand {
            buffer: temp,
            dtype: DType::U32,
            offset: 0,
            strides: &[1],
        }],
        scalars: &[],
        output: Operand {
            buffer: dst,
            dtype: d,
            offset: dst_offset,
            strides: &[1],
        },
    };
    elementwise::run(ctx, &program, &args)
}
