//! The fused elementwise evaluator. Outputs are split into tasks of [`TASK`] outputs (run
//! in parallel) and each task into blocks of [`BLOCK`] outputs; the program, compiled once
//! per call ([`plan`]), runs one block at a time, each instruction a tight loop over the
//! block's values ([`kernel`]) into a scratch column that stays in L1. One pass over memory
//! per expression.
//!
//! Why blocks this small: every column a block touches (inputs read in place, scratch
//! columns, the output) must stay in the 32 KiB L1 from one instruction to the next.
//! Measured with a stand-alone copy of the loops of `max(a·x + y, 0)` over 1 M f32, one
//! thread, on this project's 2-core AMD EPYC host (hand-fused loop: 186–205 µs): blocks of
//! 512 ran in 187–191 µs, 1,024 in 220–298 µs, 2,048 in 279–436 µs (five columns of
//! 8 KiB no longer fit), 256 in 212–216 µs. The earlier evaluator could not use small
//! blocks: it matched operator and type, took pooled vectors and checked types in every
//! block (about 80 ns per block, from `perf`); now that is decided once per call and a
//! block costs one indirect call per instruction.
//!
//! Every output element is computed by the same per-element functions whatever the split,
//! so neither the split nor the number of threads affects results.
//!
//! Chains of instructions (each value read only by the next instruction) run fused where a
//! kernel for them is compiled: `max(a·x + y, 0)` is one loop per block, its values in
//! registers, instead of three passes through scratch columns (see `chain.rs` for the
//! measurements). Same per-element functions in the same order, so fusing changes no bit.
//!
//! `plan.rs` compiles a program; `fuse.rs` replaces chains of its steps by fused kernels
//! from `chain.rs`; `instructions.rs` chooses each instruction's kernel; `kernel.rs` holds
//! the kernels' calling convention and loops; `operands.rs` the inputs and output as a plan
//! sees them (an output covering its whole buffer is written without zeroing it first);
//! `layout.rs` operand layouts, gather and scatter; `multiversion.rs` the AVX2 copies.

mod chain;
mod fuse;
mod instructions;
mod kernel;
mod layout;
mod multiversion;
mod operands;
mod plan;
#[cfg(test)]
mod tests;

use gpuarrays_core::kernel::{ElementwiseArgs, Program};
use rayon::prelude::*;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};
use layout::{gather, scatter};
use plan::{Action, Plan, Src};

/// Outputs per block (see the module documentation).
const BLOCK: usize = 512;
/// Outputs per parallel task: enough to amortise a task's scheduling, small enough to
/// balance two to sixteen threads at 1 M elements.
const TASK: usize = 32 * BLOCK;

/// A task's scratch columns: `plan.columns` columns of `plan.column_bytes` bytes, aligned to
/// 8 bytes (enough for every element type).
fn scratch(plan: &Plan<'_>) -> Vec<u64> {
    vec![0u64; plan.columns * plan.column_bytes / 8]
}

/// Runs outputs `begin..end` block by block, with the scratch space `scratch`.
fn run_task(
    plan: &Plan<'_>,
    (begin, end): (usize, usize),
    scratch: &mut [u64],
) -> Result<(), CpuError> {
    if scratch.len() * 8 < plan.columns * plan.column_bytes {
        return Err(invalid("scratch space smaller than the plan's columns"));
    }
    let base = scratch.as_mut_ptr().cast::<u8>();
    let mut start = begin;
    while start < end {
        let len = BLOCK.min(end - start);
        for step in &plan.steps {
            let dst = plan.arg(step.dst, base, start).ptr as *mut u8;
            if dst.is_null() {
                return Err(invalid("a step without a destination"));
            }
            match step.action {
                Action::Kernel(kernel) => {
                    let args = step.args.map(|a| plan.arg(a, base, start));
                    // SAFETY: the plan gave each operand the type the kernel was compiled
                    // for. Scratch columns hold `len` values written by earlier steps of this
                    // block (a step's column is never one it reads); inputs read in place
                    // were bounds-checked for every output and nothing writes them here but
                    // the output, element for element, from a step that reads no input of
                    // the output's buffer (`plan::writes_output`); the output block and the
                    // scratch columns are this task's alone.
                    unsafe { kernel(&args, dst, start, len) };
                }
                Action::Gather(i) => {
                    let inp = plan
                        .inputs
                        .get(i)
                        .ok_or_else(|| invalid(format!("input slot {i}")))?;
                    // SAFETY: the layout was checked for its buffer; the column is this
                    // task's, with room for `len` values of the input's type.
                    unsafe { gather(inp.buffer, inp.dtype, &inp.layout, start, len, dst)? };
                }
            }
        }
        let (src, uniform) = match plan.result {
            Src::Output => {
                start += len;
                continue;
            }
            Src::Uniform(p) => (p, true),
            s @ Src::Scratch(_) => (plan.arg(s, base, start).ptr, false),
            Src::Input(_) | Src::None => return Err(invalid("a program without a result")),
        };
        let o = &plan.output;
        // SAFETY: the output layout was checked against the buffer at `o.base`; this block
        // alone writes these positions; the result is in a scratch column or a cell of the
        // plan, not in the output.
        unsafe { scatter(o.base, o.dtype, &o.layout, (start, len), src, uniform) };
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
    run_with(program, args, Fusion::Chains)
}

/// Whether chains of instructions run fused ([`chain`]); tests compare both ways.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fusion {
    Chains,
    #[cfg_attr(not(test), allow(dead_code))]
    Off,
}

/// Runs `program` over `args`, fusing chains or not.
pub(crate) fn run_with(
    program: &Program,
    args: &ElementwiseArgs<'_, CpuBuffer>,
    fusion: Fusion,
) -> Result<(), CpuError> {
    let n = args.len();
    let mut plan = plan::compile(program, args)?;
    if n == 0 {
        return Ok(());
    }
    if fusion == Fusion::Chains {
        fuse::fuse(&mut plan);
    }
    if single_task(args) {
        // One task: run it here. Handing it to the pool would cost a wake-up of another
        // thread and a wait for it (measured 14 µs per call on this machine for 1,024
        // elements, most of it in the scheduler).
        run_task(&plan, (0, n), &mut scratch(&plan))?;
    } else {
        (0..n.div_ceil(TASK))
            .into_par_iter()
            .with_min_len(crate::parallel::min_len())
            .try_for_each_init(
                || scratch(&plan),
                |cols, t| {
                    let begin = t * TASK;
                    run_task(&plan, (begin, (begin + TASK).min(n)), cols)
                },
            )?;
    }
    // SAFETY: every task succeeded, and together they wrote outputs `0..n` of a linear
    // layout from offset 0 that spans the whole buffer (`operands::output`).
    if plan.output.overwrites && !unsafe { plan.output.buffer.written() } {
        // Another thread's first access zeroed the buffer while the tasks wrote it: run
        // again through the ordinary pointer (the buffer is no longer fresh), so the write
        // is not lost. The inputs are other buffers, so the result is the same.
        drop(plan);
        return run_with(program, args, fusion);
    }
    Ok(())
}
