//! Compiling a [`Program`] for one call: what every block then does, decided once.
//!
//! - Each instruction becomes a step with its [`Kernel`] chosen (operator, types, AVX2),
//!   its operands resolved to where they will be ([`Src`]) and its result given a scratch
//!   column. Columns are reused once their value is dead, so a block's working set is a
//!   few columns whatever the program's length.
//! - Scalars, broadcast inputs and every instruction computed from those alone are
//!   evaluated here, once (a block reads them as one value); they cost nothing per block.
//! - Contiguous inputs are read in place; others are gathered into a column per block.
//! - The last instruction writes the output in place where the output is contiguous and
//!   none of that instruction's operands is read from the output's buffer; otherwise its
//!   column is scattered to the output after the block.
//!
//! The same per-element functions run for every element whatever is decided here, so the
//! results do not depend on it.

use gpuarrays_core::kernel::{BinaryOp, ElementwiseArgs, Node, Program};
use gpuarrays_core::{DType, Scalar, dispatch_dtype};

use super::BLOCK;
use super::instructions;
use super::kernel::{ARGS, Arg, Kernel};
use super::layout::gather;
use super::operands::{self, InputPlan, OutputPlan};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};

/// Where an instruction's values for the current block are.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    /// No operand.
    None,
    /// Column `k` of the task's scratch space.
    Scratch(usize),
    /// Input `i`, read in place (a contiguous input of a non-bool type).
    Input(usize),
    /// One value for every output, held by the plan.
    Uniform(*const u8),
    /// The block of the output itself.
    Output,
}

/// What a step does.
#[derive(Clone, Copy)]
pub(crate) enum Action {
    Kernel(Kernel),
    /// Gathers input `i` into the step's column.
    Gather(usize),
}

/// One instruction (or fused chain) as run on every block.
#[derive(Clone, Copy)]
pub(crate) struct Step {
    pub(crate) action: Action,
    pub(crate) args: [Src; ARGS],
    /// A scratch column or the output.
    pub(crate) dst: Src,
    /// For a binary instruction: its operator and type, for [`super::fuse`].
    pub(crate) link: Option<(BinaryOp, DType)>,
}

/// One value of any element type, at a stable address (a box), aligned for each type.
type Cell = Box<[u64; 2]>;

/// A compiled program.
pub(crate) struct Plan<'a> {
    pub(crate) inputs: Vec<InputPlan<'a>>,
    pub(crate) output: OutputPlan<'a>,
    pub(crate) steps: Vec<Step>,
    /// Where the program's result is after the steps: [`Src::Output`] if written in place,
    /// else to be scattered.
    pub(crate) result: Src,
    /// Scratch columns a task needs, and the bytes of each.
    pub(crate) columns: usize,
    pub(crate) column_bytes: usize,
    /// The values [`Src::Uniform`] points at.
    cells: Vec<Cell>,
}

// SAFETY: the pointers of a plan point into the call's buffers (borrowed for `'a`) and into
// its own cells, which are written only while the plan is built. Tasks on other threads
// read inputs and cells, and write the output only at the positions of their own blocks.
unsafe impl Sync for Plan<'_> {}

impl Plan<'_> {
    /// The operand `src` for the block starting at output index `start`, where `scratch` is
    /// the task's scratch space.
    #[inline(always)]
    pub(crate) fn arg(&self, src: Src, scratch: *mut u8, start: usize) -> Arg {
        let ptr = match src {
            Src::None => return Arg::NONE,
            Src::Uniform(p) => {
                return Arg {
                    ptr: p,
                    uniform: true,
                };
            }
            Src::Scratch(k) => scratch.wrapping_add(k * self.column_bytes) as *const u8,
            Src::Input(i) => match self.inputs.get(i).and_then(|i| i.contiguous) {
                Some((base, size)) => base.wrapping_add(start * size),
                None => return Arg::NONE,
            },
            Src::Output => match self.output.contiguous {
                Some((base, size)) => base.wrapping_add(start * size) as *const u8,
                None => return Arg::NONE,
            },
        };
        Arg {
            ptr,
            uniform: false,
        }
    }
}

/// The operands of an instruction (indices of earlier instructions).
fn operand_ids(node: Node) -> ([u32; 3], usize) {
    match node {
        Node::Unary(_, a) | Node::Cast(_, a) => ([a, 0, 0], 1),
        Node::Binary(_, a, b) => ([a, b, 0], 2),
        Node::Select(c, a, b) => ([c, a, b], 3),
        Node::Random(_, _) | Node::Input(_) | Node::Scalar(_) | Node::Index => ([0; 3], 0),
    }
}

/// A new cell holding `s`.
fn scalar_cell(s: Scalar) -> Cell {
    let mut cell: Cell = Box::new([0; 2]);
    let p = cell.as_mut_ptr().cast::<u8>();
    // SAFETY: a cell is 16 bytes aligned to 8: room for any element type, aligned for it.
    dispatch_dtype!(s, Scalar(x: T) => unsafe { p.cast::<T>().write(x) });
    cell
}

/// Scratch columns handed out and returned as values die.
#[derive(Default)]
struct Columns {
    free: Vec<usize>,
    count: usize,
}

impl Columns {
    fn take(&mut self) -> usize {
        self.free.pop().unwrap_or_else(|| {
            self.count += 1;
            self.count - 1
        })
    }
}

/// Compiles `program` for the call `args`.
pub(crate) fn compile<'a>(
    program: &Program,
    args: &ElementwiseArgs<'a, CpuBuffer>,
) -> Result<Plan<'a>, CpuError> {
    let n = args.len();
    let inputs = operands::inputs(args, n)?;
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
    let output = operands::output(args, n)?;

    let instrs = &program.instrs;
    let Some(last) = instrs.len().checked_sub(1) else {
        return Err(invalid("an empty program"));
    };
    // The last instruction reading each value (the result is read after all of them).
    let mut last_use = vec![0usize; instrs.len()];
    for (i, ins) in instrs.iter().enumerate() {
        let (ops, k) = operand_ids(ins.node);
        for &o in &ops[..k] {
            if o as usize >= i {
                return Err(invalid(format!("operand %{o} before its definition")));
            }
            last_use[o as usize] = i;
        }
    }
    last_use[last] = instrs.len();

    let mut plan = Plan {
        inputs,
        output,
        steps: Vec::with_capacity(instrs.len()),
        result: Src::None,
        columns: 0,
        column_bytes: 0,
        cells: Vec::new(),
    };
    let mut cols = Columns::default();
    let mut vals: Vec<(Src, DType)> = Vec::with_capacity(instrs.len());
    for (i, ins) in instrs.iter().enumerate() {
        let (ops, n_ops) = operand_ids(ins.node);
        let mut args_src = [Src::None; ARGS];
        for (a, &o) in args_src.iter_mut().zip(&ops[..n_ops]) {
            *a = vals[o as usize].0;
        }
        let dtype_of = |o: u32| vals[o as usize].1;
        // (kernel, result type, whether it computes from the output index).
        let (kernel, dtype, generator) = match ins.node {
            Node::Input(s) => {
                let src = input_src(&mut plan, &mut cols, s as usize)?;
                let dtype = plan.inputs[s as usize].dtype;
                check_type(ins, dtype)?;
                vals.push((src, dtype));
                continue;
            }
            Node::Scalar(s) => {
                let v = scalar(args, s)?;
                check_type(ins, v.dtype())?;
                let cell = scalar_cell(v);
                vals.push((Src::Uniform(cell.as_ptr().cast()), v.dtype()));
                plan.cells.push(cell);
                continue;
            }
            Node::Index => {
                let (k, d) = instructions::index()?;
                (k, d, true)
            }
            Node::Random(dist, s) => {
                let seed = scalar(args, s)?;
                let (k, d) = instructions::random(dist, ins.dtype, seed.dtype())?;
                let cell = scalar_cell(seed);
                args_src[0] = Src::Uniform(cell.as_ptr().cast());
                plan.cells.push(cell);
                (k, d, true)
            }
            Node::Unary(op, a) => {
                let (k, d) = instructions::unary(op, dtype_of(a))?;
                (k, d, false)
            }
            Node::Binary(op, a, b) => {
                let (k, d) = instructions::binary(op, dtype_of(a), dtype_of(b))?;
                (k, d, false)
            }
            Node::Cast(to, a) => {
                let (k, d) = instructions::cast(dtype_of(a), to)?;
                (k, d, false)
            }
            Node::Select(c, a, b) => {
                let (k, d) = instructions::select(dtype_of(c), dtype_of(a), dtype_of(b))?;
                (k, d, false)
            }
        };
        check_type(ins, dtype)?;
        let uniform = !generator
            && args_src
                .iter()
                .all(|a| matches!(a, Src::Uniform(_) | Src::None));
        if uniform {
            // Operands the same everywhere: one value, computed now.
            let mut cell: Cell = Box::new([0; 2]);
            let a = args_src.map(|a| plan.arg(a, std::ptr::null_mut(), 0));
            // SAFETY: each operand is a cell holding a value of the operand type the kernel
            // was compiled for; the output is a fresh cell, with room for any type.
            unsafe { kernel(&a, cell.as_mut_ptr().cast(), 0, 1) };
            vals.push((Src::Uniform(cell.as_ptr().cast()), dtype));
            plan.cells.push(cell);
            continue;
        }
        let dst = if i == last && writes_output(&plan, &args_src) {
            Src::Output
        } else {
            Src::Scratch(cols.take())
        };
        let link = match ins.node {
            Node::Binary(op, _, _) => Some((op, dtype)),
            _ => None,
        };
        plan.steps.push(Step {
            action: Action::Kernel(kernel),
            args: args_src,
            dst,
            link,
        });
        vals.push((dst, dtype));
        // Columns of values read for the last time here are free for later steps (after
        // this step's own column was taken, so that no step writes a column it reads).
        let mut dead = [usize::MAX; 3];
        for (d, &o) in dead.iter_mut().zip(&ops[..n_ops]) {
            if let (Src::Scratch(c), true) = (vals[o as usize].0, last_use[o as usize] == i) {
                *d = c;
            }
        }
        for (j, &c) in dead.iter().enumerate() {
            if c != usize::MAX && !dead[..j].contains(&c) {
                cols.free.push(c);
            }
        }
    }
    let (result, dtype) = vals[last];
    plan.result = result;
    if let Src::Input(_) = result {
        // A program whose result is an input read in place: copied, to the output directly
        // where that input is not in the output's buffer.
        let mut args_src = [Src::None; ARGS];
        args_src[0] = result;
        let dst = if writes_output(&plan, &args_src) {
            Src::Output
        } else {
            Src::Scratch(cols.take())
        };
        let (kernel, _) = instructions::copy(dtype)?;
        plan.steps.push(Step {
            action: Action::Kernel(kernel),
            args: args_src,
            dst,
            link: None,
        });
        plan.result = dst;
    }
    let widest = vals.iter().map(|v| v.1.size()).max().unwrap_or(1);
    plan.columns = cols.count;
    plan.column_bytes = (BLOCK * widest).next_multiple_of(64);
    Ok(plan)
}

/// Checks an instruction's declared type against what it produces.
fn check_type(ins: &gpuarrays_core::kernel::Instr, got: DType) -> Result<(), CpuError> {
    if got != ins.dtype {
        return Err(invalid(format!(
            "instruction {:?} typed {} but producing {got}",
            ins.node, ins.dtype
        )));
    }
    Ok(())
}

/// Scalar argument `s`.
fn scalar(args: &ElementwiseArgs<'_, CpuBuffer>, s: u32) -> Result<Scalar, CpuError> {
    args.scalars
        .get(s as usize)
        .copied()
        .ok_or_else(|| invalid(format!("scalar slot {s}")))
}

/// Where input `s` is read from: one value (broadcast), in place (contiguous), or a column
/// gathered by a new step.
fn input_src(plan: &mut Plan<'_>, cols: &mut Columns, s: usize) -> Result<Src, CpuError> {
    let inp = plan
        .inputs
        .get(s)
        .ok_or_else(|| invalid(format!("input slot {s}")))?;
    if inp.layout.is_broadcast() {
        let mut cell: Cell = Box::new([0; 2]);
        // SAFETY: the layout was checked; a broadcast layout reads one position for every
        // output, and a cell has room for one value of any type.
        unsafe {
            gather(
                inp.buffer,
                inp.dtype,
                &inp.layout,
                0,
                1,
                cell.as_mut_ptr().cast(),
            )?
        };
        let p = cell.as_ptr().cast::<u8>();
        plan.cells.push(cell);
        return Ok(Src::Uniform(p));
    }
    if inp.contiguous.is_some() {
        return Ok(Src::Input(s));
    }
    let c = cols.take();
    plan.steps.push(Step {
        action: Action::Gather(s),
        args: [Src::None; ARGS],
        dst: Src::Scratch(c),
        link: None,
    });
    Ok(Src::Scratch(c))
}

/// Whether a step reading `args` may write the output in place: the output is contiguous,
/// and no operand is read in place from the output's buffer (core lets an output overlap an
/// input element for element; a kernel's operand slices must not overlap its output).
pub(crate) fn writes_output(plan: &Plan<'_>, args: &[Src]) -> bool {
    plan.output.contiguous.is_some()
        && args.iter().all(|a| match a {
            Src::Input(i) => plan
                .inputs
                .get(*i)
                .is_some_and(|inp| !std::ptr::eq(inp.buffer, plan.output.buffer)),
            _ => true,
        })
}

/// Whether a fused chain reading `args` may write `dst`: any operand in the output's buffer
/// is the output itself, element for element (same first element and type), which a chain
/// allows (it reads a tile before writing it).
pub(crate) fn chain_may_write(plan: &Plan<'_>, args: &[Src], dst: Src) -> bool {
    if dst != Src::Output {
        return true;
    }
    let Some((out, _)) = plan.output.contiguous else {
        return false;
    };
    args.iter().all(|a| match a {
        Src::Input(i) => plan.inputs.get(*i).is_some_and(|inp| {
            !std::ptr::eq(inp.buffer, plan.output.buffer)
                || (inp.dtype == plan.output.dtype
                    && inp.contiguous.is_some_and(|(p, _)| std::ptr::eq(p, out)))
        }),
        _ => true,
    })
}
