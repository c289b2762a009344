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
mod multiversion;

use gpuarrays_core::kernel::{ElementwiseArgs, Node, Operand, Program};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};
use rayon::prelude::*;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};
use column::{Col, ColElem, ColMut, ColRef, Pool, Produced, Sink};
use layout::{Layout, Val, gather, scatter};

/// Outputs per block: a block's columns (8 KiB each for f32) stay in L1 or L2 from one
/// instruction to the next, and the dispatch of each instruction (type and operator
/// matches, pooled vectors) is spread over enough elements. Measured on the in-place
/// `max(a·y + b, 0)`, 1 M f32, one thread: 1,024 outputs per block spent ~180 ns per block
/// on that dispatch (a third of the time); 2,048 and 4,096 ran equally fast.
const BLOCK: usize = 2048;
/// Outputs per parallel task: enough to amortise a task's scheduling and its first block's
/// allocations, small enough to balance two to sixteen threads at 1 M elements.
const TASK: usize = 8 * BLOCK;

struct Input<'a> {
    buffer: &'a CpuBuffer,
    dtype: DType,
    layout: Layout,
}

/// What every block reads: the inputs, and the scalar arguments as length-1 columns, made
/// once per call. (Made per block from the pool, they took vectors the next block's full
/// columns then had to grow: two reallocations per block, and the stores into the fresh
/// memory showed in the profile.)
struct Sources<'a> {
    inputs: Vec<Input<'a>>,
    scalars: Vec<Col>,
}

/// The value of instruction `i` of this block.
fn operand<'v>(vals: &'v [Val<'_>], i: u32) -> Result<ColRef<'v>, CpuError> {
    vals.get(i as usize)
        .map(Val::get)
        .ok_or_else(|| invalid(format!("operand %{i} before its definition")))
}

/// The operands of an instruction (indices of earlier instructions).
fn operands(node: Node) -> ([u32; 3], usize) {
    match node {
        Node::Unary(_, a) | Node::Cast(_, a) => ([a, 0, 0], 1),
        Node::Binary(_, a, b) => ([a, b, 0], 2),
        Node::Select(c, a, b) => ([c, a, b], 3),
        Node::Input(_) | Node::Scalar(_) | Node::Index | Node::Random(..) => ([0; 3], 0),
    }
}

/// Evaluates every instruction of `program` over outputs `start..start + len`, pushing
/// their values onto `vals` (empty on entry). The last instruction writes `out` directly
/// when it is given and none of that instruction's operands overlaps it (`out_span`, its
/// bytes); returns whether it did.
///
/// # Safety
/// Every input layout was checked against its buffer, and nothing but `out` writes the input
/// positions of these outputs until `vals` is cleared.
#[allow(clippy::too_many_arguments)]
unsafe fn eval_block<'a>(
    program: &Program,
    sources: &'a Sources<'a>,
    args: &ElementwiseArgs<'_, CpuBuffer>,
    (start, len): (usize, usize),
    pool: &mut Pool,
    vals: &mut Vec<Val<'a>>,
    mut out: Option<ColMut<'_>>,
    out_span: (usize, usize),
) -> Result<bool, CpuError> {
    let scalar = |s: u32| {
        args.scalars
            .get(s as usize)
            .copied()
            .ok_or_else(|| invalid(format!("scalar slot {s}")))
    };
    let last = program.instrs.len().saturating_sub(1);
    for (i, ins) in program.instrs.iter().enumerate() {
        let (ops, n_ops) = operands(ins.node);
        let mut sink = Sink { pool, out: None };
        if i == last {
            let overlaps = ops[..n_ops].iter().any(|&o| match vals.get(o as usize) {
                Some(Val::Borrowed(r)) => {
                    let (s, e) = r.span();
                    s < out_span.1 && out_span.0 < e
                }
                _ => false,
            });
            if !overlaps {
                sink.out = out.take();
            }
        }
        let produced = match ins.node {
            Node::Input(s) => {
                let inp = sources
                    .inputs
                    .get(s as usize)
                    .ok_or_else(|| invalid(format!("input slot {s}")))?;
                // SAFETY: the caller's contract.
                let v = unsafe { gather(inp.buffer, inp.dtype, &inp.layout, start, len, pool)? };
                Ok(Some(v))
            }
            Node::Scalar(s) => sources
                .scalars
                .get(s as usize)
                .map(|c| Some(Val::Borrowed(c.as_ref())))
                .ok_or_else(|| invalid(format!("scalar slot {s}"))),
            Node::Index => instructions::index(start, len, sink).map(Val::produced),
            Node::Unary(op, a) => {
                instructions::unary(op, operand(vals, a)?, sink).map(Val::produced)
            }
            Node::Binary(op, a, b) => {
                instructions::binary(op, operand(vals, a)?, operand(vals, b)?, sink)
                    .map(Val::produced)
            }
            Node::Cast(to, a) => instructions::cast(operand(vals, a)?, to, sink).map(Val::produced),
            Node::Select(c, a, b) => instructions::select(
                operand(vals, c)?,
                operand(vals, a)?,
                operand(vals, b)?,
                sink,
            )
            .map(Val::produced),
            Node::Random(dist, s) => {
                instructions::random(dist, ins.dtype, scalar(s)?, (start, len), sink)
                    .map(Val::produced)
            }
        }?;
        let Some(v) = produced else {
            // Written to the output: the last instruction, of the output's type (checked
            // against the program in `run`).
            return Ok(true);
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
    Ok(false)
}

impl<'a> Val<'a> {
    /// `Some(value)` for a column, `None` once written to the output.
    fn produced(p: Produced) -> Option<Val<'a>> {
        match p {
            Produced::Col(c) => Some(Val::Owned(c)),
            Produced::Written => None,
        }
    }
}

/// Copies a borrowed column into a pooled one.
fn to_owned(r: ColRef<'_>, pool: &mut Pool) -> Col {
    dispatch_dtype!(r, ColRef(v: T) => {
        let mut o = pool.take::<T>();
        o.extend_from_slice(v);
        T::owned(o)
    })
}

/// A block of the output to write in place, and the bytes it spans as addresses `[start, end)`.
type OutBlock<'o> = (ColMut<'o>, (usize, usize));

/// The output's positions for outputs `start..start + len` as a slice to write in place, and
/// the bytes it spans; `None` for bool outputs (held as bytes) and non-linear layouts.
///
/// # Safety
/// `layout` was checked for `out`'s buffer, and no one else reads or writes those positions
/// while the slice lives, except through values `eval_block` keeps apart from it.
unsafe fn out_block<'o>(
    out: &'o Operand<'_, CpuBuffer>,
    layout: &Layout,
    start: usize,
    len: usize,
) -> Result<Option<OutBlock<'o>>, CpuError> {
    if !layout.is_linear() {
        return Ok(None);
    }
    let first = out.offset + start;
    let span = |p: usize, size: usize| (p, p + len * size);
    macro_rules! arms {
        ($($V:ident: $t:ty),*) => {
            match out.dtype {
                DType::Bool => None,
                $(DType::$V => {
                    let p = out.buffer.ptr::<$t>(first, len)?;
                    // SAFETY: bounds-checked by `ptr`; exclusive by the caller's contract.
                    let s = unsafe { std::slice::from_raw_parts_mut(p, len) };
                    Some((ColMut::$V(s), span(p as usize, std::mem::size_of::<$t>())))
                })*
            }
        };
    }
    use gpuarrays_core::{Complex32, Complex64};
    Ok(
        arms!(U8: u8, I32: i32, U32: u32, I64: i64, U64: u64, F32: f32, F64: f64,
        C32: Complex32, C64: Complex64),
    )
}

/// Runs outputs `begin..end` block by block.
fn run_task(
    program: &Program,
    sources: &Sources<'_>,
    args: &ElementwiseArgs<'_, CpuBuffer>,
    out: &Layout,
    (begin, end): (usize, usize),
    pool: &mut Pool,
) -> Result<(), CpuError> {
    let mut vals: Vec<Val<'_>> = Vec::with_capacity(program.instrs.len());
    let mut start = begin;
    while start < end {
        let len = BLOCK.min(end - start);
        // SAFETY: `run` checked the output layout; this block alone writes these positions.
        // Input columns borrowed from the same positions (an output evaluated into one of
        // its inputs) are not read through while the slice is written: `eval_block` writes
        // it only from an instruction none of whose operands overlaps it.
        let direct = unsafe { out_block(&args.output, out, start, len)? };
        let (out_slice, out_span) = match direct {
            Some((s, span)) => (Some(s), span),
            None => (None, (0, 0)),
        };
        // SAFETY: `run` checked every layout; the only writes to these inputs' positions
        // are this block's output writes (core lets an output alias an input element for
        // element only), made by the last instruction as said above or below, after `vals`
        // has been emptied.
        let evaluated = unsafe {
            eval_block(
                program,
                sources,
                args,
                (start, len),
                pool,
                &mut vals,
                out_slice,
                out_span,
            )
        };
        let last = vals.pop();
        for v in vals.drain(..) {
            if let Val::Owned(c) = v {
                pool.give(c);
            }
        }
        if evaluated? {
            if let Some(Val::Owned(c)) = last {
                pool.give(c);
            }
            start += len;
            continue;
        }
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

/// Whether `run` does all its work on the calling thread (one task), so that entering the
/// backend's thread pool first would only add a hand-over to another thread.
pub(crate) fn single_task(args: &ElementwiseArgs<'_, CpuBuffer>) -> bool {
    args.len() <= TASK
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
    if program.output_dtype() != args.output.dtype {
        return Err(invalid(format!(
            "a {} program for a {} output",
            program.output_dtype(),
            args.output.dtype
        )));
    }
    let out = Layout::of(&args.shape, &args.output);
    out.check(args.output.buffer.len() / args.output.dtype.size())?;
    let sources = Sources {
        inputs,
        scalars: args
            .scalars
            .iter()
            .map(|&s| dispatch_dtype!(s, Scalar(x: T) => T::owned(vec![x])))
            .collect(),
    };
    if single_task(args) {
        // One task: run it here. Handing it to the pool would cost a wake-up of another
        // thread and a wait for it (measured 14 µs per call on this machine for 1,024
        // elements, most of it in the scheduler).
        return run_task(program, &sources, args, &out, (0, n), &mut Pool::default());
    }
    (0..n.div_ceil(TASK))
        .into_par_iter()
        .try_for_each_init(Pool::default, |pool, t| {
            let begin = t * TASK;
            let end = (begin + TASK).min(n);
            run_task(program, &sources, args, &out, (begin, end), pool)
        })
}
