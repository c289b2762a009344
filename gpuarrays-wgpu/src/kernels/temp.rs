//! Temporary buffers of kernels, one 32-bit word per element of a packed type (bool, u8,
//! i8, i16, u16, f16, bf16: so threads never share a word), and the pass that packs such
//! words into a destination of the type (an elementwise cast, which writes whole words).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ElementwiseArgs, Instr, Node, Operand, Program};

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::error::Result;
use crate::kernels::elementwise;
use crate::wgsl::types::is_packed;

/// The element type temporaries of `d` are kept in.
pub fn temp_dtype(d: DType) -> DType {
    match d {
        _ if !is_packed(d) => d,
        DType::I8 | DType::I16 => DType::I32,
        DType::F16 | DType::BF16 => DType::F32,
        _ => DType::U32,
    }
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

/// Converts `count` words of `temp` (of [`temp_dtype`]`(d)`, holding values of `d`) into
/// `d` elements of `dst` at element `dst_offset` (the cast is exact).
pub fn pack(
    ctx: &Context,
    temp: &WgpuBuffer,
    d: DType,
    dst: &WgpuBuffer,
    dst_offset: usize,
    count: usize,
) -> Result<()> {
    let t = temp_dtype(d);
    let program = Program {
        inputs: vec![t],
        scalars: vec![],
        instrs: vec![
            Instr {
                node: Node::Input(0),
                dtype: t,
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
            dtype: t,
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
