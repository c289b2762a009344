//! The fused elementwise evaluator: programs run chunk by chunk (4096 outputs at a time,
//! chunks in parallel), each instruction producing a column for the chunk. One pass over
//! memory per expression; intermediates stay in cache.
//!
//! `column.rs` holds the column type and the gather/scatter between buffers and columns;
//! `instructions.rs` evaluates each kind of instruction over columns.

mod column;
mod instructions;

use gpuarrays_core::kernel::{ElementwiseArgs, Node, Program};
use rayon::prelude::*;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};
use column::{Col, Layout, gather, scatter};

/// Outputs per chunk: large enough to amortise dispatch per instruction, small enough that a
/// chunk's columns stay in L2.
const CHUNK: usize = 4096;

struct Input<'a> {
    buffer: &'a CpuBuffer,
    dtype: gpuarrays_core::DType,
    layout: Layout,
}

fn eval_chunk(
    program: &Program,
    inputs: &[Input<'_>],
    args: &ElementwiseArgs<'_, CpuBuffer>,
    start: usize,
    len: usize,
) -> Result<Col, CpuError> {
    let mut cols: Vec<Col> = Vec::with_capacity(program.instrs.len());
    for ins in &program.instrs {
        let col = |i: u32| {
            cols.get(i as usize)
                .ok_or_else(|| invalid(format!("operand %{i} before its definition")))
        };
        let c = match ins.node {
            Node::Input(s) => {
                let inp = inputs
                    .get(s as usize)
                    .ok_or_else(|| invalid(format!("input slot {s}")))?;
                gather(inp.buffer, inp.dtype, &inp.layout, start, len)?
            }
            Node::Scalar(s) => Col::scalar(
                *args
                    .scalars
                    .get(s as usize)
                    .ok_or_else(|| invalid(format!("scalar slot {s}")))?,
            ),
            Node::Index => instructions::index(start, len),
            Node::Unary(op, a) => instructions::unary(op, col(a)?)?,
            Node::Binary(op, a, b) => instructions::binary(op, col(a)?, col(b)?)?,
            Node::Cast(to, a) => instructions::cast(col(a)?, to),
            Node::Select(c, a, b) => instructions::select(col(c)?, col(a)?, col(b)?)?,
            Node::Random(dist, s) => {
                let seed = *args
                    .scalars
                    .get(s as usize)
                    .ok_or_else(|| invalid(format!("scalar slot {s}")))?;
                instructions::random(dist, ins.dtype, seed, start, len)?
            }
        };
        if c.dtype() != ins.dtype {
            return Err(invalid(format!(
                "instruction {:?} typed {} but producing {}",
                ins.node,
                ins.dtype,
                c.dtype()
            )));
        }
        cols.push(c);
    }
    cols.pop().ok_or_else(|| invalid("an empty program"))
}

/// Runs `program` over `args`.
pub(crate) fn run(
    program: &Program,
    args: &ElementwiseArgs<'_, CpuBuffer>,
) -> Result<(), CpuError> {
    let n = args.len();
    let inputs: Vec<Input<'_>> = args
        .inputs
        .iter()
        .map(|op| {
            let layout = Layout::of(&args.shape, op);
            layout.check(op.buffer.len() / op.dtype.size())?;
            Ok(Input {
                buffer: op.buffer,
                dtype: op.dtype,
                layout,
            })
        })
        .collect::<Result<_, CpuError>>()?;
    if inputs.len() != program.inputs.len() {
        return Err(invalid(format!(
            "{} inputs for a program of {}",
            inputs.len(),
            program.inputs.len()
        )));
    }
    let out = Layout::of(&args.shape, &args.output);
    out.check(args.output.buffer.len() / args.output.dtype.size())?;
    (0..n.div_ceil(CHUNK)).into_par_iter().try_for_each(|c| {
        let start = c * CHUNK;
        let len = CHUNK.min(n - start);
        let col = eval_chunk(program, &inputs, args, start, len)?;
        scatter(
            args.output.buffer,
            args.output.dtype,
            &out,
            start,
            len,
            &col,
        )
    })
}
