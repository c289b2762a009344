//! The fused elementwise evaluator. Outputs are split into tasks of [`TASK`] outputs (run
//! in parallel) and each task into blocks of [`BLOCK`] outputs; a program runs one block at
//! a time, each instruction producing a column for the block. One pass over memory per
//! expression; intermediates stay in L1.
//!
//! Why it is shaped this way (profiled with `perf record -e cpu-clock` on
//! `benches/cpu_vs_ndarray.rs`, in-place `y = max(a·y + b, 0)` at 1 M f32): the earlier
//! evaluator ran 4,096-output chunks, allocating a vector per instruction per chunk (the
//! hottest instructions were the stores into those fresh vectors), copying every input into
//! a column (20% of the time in `memmove`) and writing the result with one bounds-checked,
//! unvectorised store per element (13%). Now columns are smaller (they stay in L1 between
//! instructions), their vectors are reused ([`Pool`]), contiguous inputs are read in place
//! ([`layout::gather`]) and results are written as slices ([`layout::scatter`]).
//!
//! Every output element is computed by the same per-element functions whatever the split,
//! so the split does not affect results.
//!
//! `column.rs` holds the column types and the pool; `layout.rs` operand layouts, gather and
//! scatter; `instructions.rs` each kind of instruction over columns.

mod column;
mod instructions;
mod layout;

use gpuarrays_core::kernel::{ElementwiseArgs, Node, Program};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};
use rayon::prelude::*;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};
use column::{Col, ColElem, ColRef, Pool};
use layout::{Layout, Val, gather, scatter};

/// Outputs per block: a block's columns (4 KiB each for f32) stay in L1 from one
/// instruction to the next, and the per-instruction dispatch is spread over enough
/// elements to vanish.
const BLOCK: usize = 1024;
/// Outputs per parallel task: enough to amortise a task's scheduling and its first block's
/// allocations, small enough to balance two to sixteen threads at 1 M elements.
const TASK: usize = 16 * BLOCK;

struct Input<'a> {
    buffer: &'a CpuBuffer,
    dtype: DType,
    layout: Layout,
}

/// The value of instruction `i` of this block.
fn operand<'v>(vals: &'v [Val<'_>], i: u32) -> Result<ColRef<'v>, CpuError> {
    vals.get(i as usize)
        .map(Val::get)
        .ok_or_else(|| invalid(format!("operand %{i} before its definition")))
}

/// Evaluates every instruction of `program` over outputs `start..start + len`, pushing
/// their values onto `vals` (empty on entry).
///
/// # Safety
/// Every input layout was checked against its buffer, and nothing writes the input
/// positions of these outputs until `vals` is cleared.
unsafe fn eval_block<'a>(
    program: &Program,
    inputs: &[Input<'a>],
    args: &ElementwiseArgs<'_, CpuBuffer>,
    start: usize,
    len: usize,
    pool: &mut Pool,
    vals: &mut Vec<Val<'a>>,
) -> Result<(), CpuError> {
    let scalar = |s: u32| {
        args.scalars
            .get(s as usize)
            .copied()
            .ok_or_else(|| invalid(format!("scalar slot {s}")))
    };
    for ins in &program.instrs {
        let v = match ins.node {
            Node::Input(s) => {
                let inp = inputs
                    .get(s as usize)
                    .ok_or_else(|| invalid(format!("input slot {s}")))?;
                // SAFETY: the caller's contract.
                unsafe { gather(inp.buffer, inp.dtype, &inp.layout, start, len, pool)? }
            }
            Node::Scalar(s) => Val::Owned(
                dispatch_dtype!(scalar(s)?, Scalar(x: T) => pool.collect(std::iter::once(x))),
            ),
            Node::Index => Val::Owned(instructions::index(start, len, pool)),
            Node::Unary(op, a) => Val::Owned(instructions::unary(op, operand(vals, a)?, pool)?),
            Node::Binary(op, a, b) => Val::Owned(instructions::binary(
                op,
                operand(vals, a)?,
                operand(vals, b)?,
                pool,
            )?),
            Node::Cast(to, a) => Val::Owned(instructions::cast(operand(vals, a)?, to, pool)),
            Node::Select(c, a, b) => Val::Owned(instructions::select(
                operand(vals, c)?,
                operand(vals, a)?,
                operand(vals, b)?,
                pool,
            )?),
            Node::Random(dist, s) => Val::Owned(instructions::random(
                dist,
                ins.dtype,
                scalar(s)?,
                start,
                len,
                pool,
            )?),
        };
        let got = v.get().dtype();
        if got != ins.dtype {
            return Err(invalid(format!(
                "instruction {:?} typed {} but producing {got}",
                ins.node, ins.dtype
            )));
        }
        vals.push(v);
    }
    Ok(())
}

/// Copies a borrowed column into a pooled one.
fn to_owned(r: ColRef<'_>, pool: &mut Pool) -> Col {
    dispatch_dtype!(r, ColRef(v: T) => {
        let mut o = pool.take::<T>();
        o.extend_from_slice(v);
        T::owned(o)
    })
}

/// Runs outputs `begin..end` block by block.
fn run_task(
    program: &Program,
    inputs: &[Input<'_>],
    args: &ElementwiseArgs<'_, CpuBuffer>,
    out: &Layout,
    (begin, end): (usize, usize),
    pool: &mut Pool,
) -> Result<(), CpuError> {
    let mut vals: Vec<Val<'_>> = Vec::with_capacity(program.instrs.len());
    let mut start = begin;
    while start < end {
        let len = BLOCK.min(end - start);
        // SAFETY: `run` checked every layout; the only writes to these inputs' positions
        // are this block's output writes (core lets an output alias an input element for
        // element only), which happen below, after `vals` has been emptied.
        let evaluated = unsafe { eval_block(program, inputs, args, start, len, pool, &mut vals) };
        let last = vals.pop();
        for v in vals.drain(..) {
            if let Val::Owned(c) = v {
                pool.give(c);
            }
        }
        evaluated?;
        let result = match last {
            Some(Val::Owned(c)) => c,
            // A program that is a bare input: copy it out before writing over it.
            Some(Val::Borrowed(r)) => to_owned(r, pool),
            None => return Err(invalid("an empty program")),
        };
        let o = &args.output;
        // SAFETY: the output layout was checked; this block alone writes these positions
        // and no borrowed input column is alive any more.
        let written = unsafe { scatter(o.buffer, o.dtype, out, start, len, result.as_ref()) };
        pool.give(result);
        written?;
        start += len;
    }
    Ok(())
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
    (0..n.div_ceil(TASK))
        .into_par_iter()
        .try_for_each_init(Pool::default, |pool, t| {
            let begin = t * TASK;
            let end = (begin + TASK).min(n);
            run_task(program, &inputs, args, &out, (begin, end), pool)
        })
}
