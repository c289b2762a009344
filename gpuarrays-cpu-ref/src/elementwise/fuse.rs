//! Replaces runs of consecutive steps that form a chain (each step's value read only by the
//! next step) with one fused kernel from [`super::chain`]'s table, so the running value
//! stays in registers instead of going through a scratch column per instruction.
//!
//! A chain starts at a binary step with a column operand (its head) and continues while the
//! next step is a binary step of the same type that reads the running value once, as its
//! left operand (or either operand of add and mul), and nothing after it reads that value.
//! The longest prefix (up to three links) that the table has is fused. The fused step
//! reads every operand the steps read, at the same output indices, and writes where the
//! last step wrote; the values are those of the steps one at a time (see [`super::chain`]).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::BinaryOp;

use super::chain::{self, Kind, commutative};
use super::kernel::ARGS;
use super::plan::{Action, Plan, Src, Step, chain_may_write};

/// Links per chain at most (the head takes the first operand slot).
const MAX_LINKS: usize = ARGS - 1;

/// Fuses the chains of `plan`'s steps.
pub(crate) fn fuse(plan: &mut Plan<'_>) {
    let steps = std::mem::take(&mut plan.steps);
    let mut fused = Vec::with_capacity(steps.len());
    let mut i = 0;
    while let Some(&step) = steps.get(i) {
        match chain_at(plan, &steps, i) {
            Some((chain, used)) => {
                fused.push(chain);
                i += used;
            }
            None => {
                fused.push(step);
                i += 1;
            }
        }
    }
    plan.steps = fused;
}

fn kind(src: Src) -> Kind {
    match src {
        Src::Uniform(_) => Kind::Uni,
        _ => Kind::Col,
    }
}

/// Whether `src` may be the operand of a link of `op` on `dtype`: one value for min or max
/// must not be NaN (the chain's min and max assume so, see [`super::chain`]).
fn linkable(op: BinaryOp, dtype: DType, src: Src) -> bool {
    let Src::Uniform(p) = src else {
        return true;
    };
    if !matches!(op, BinaryOp::Min | BinaryOp::Max) {
        return true;
    }
    // A uniform operand points at a cell of the plan holding one value of the instruction's
    // operand type, which for min and max is its result type `dtype`.
    match dtype {
        // SAFETY: a cell holding an f32 (above).
        DType::F32 => !unsafe { p.cast::<f32>().read() }.is_nan(),
        // SAFETY: a cell holding an f64 (above).
        DType::F64 => !unsafe { p.cast::<f64>().read() }.is_nan(),
        _ => false,
    }
}

/// The fused step for the longest chain starting at step `i`, and how many steps it
/// replaces (at least two).
fn chain_at(plan: &Plan<'_>, steps: &[Step], i: usize) -> Option<(Step, usize)> {
    let first = steps.get(i)?;
    let (op, dtype) = first.link?;
    let [a, b, ..] = first.args;
    let (head, other) = match (kind(a), kind(b)) {
        (Kind::Col, _) => (a, b),
        (Kind::Uni, Kind::Col) if commutative(op) => (b, a),
        _ => return None,
    };
    if !linkable(op, dtype, other) {
        return None;
    }
    let mut links = [(op, kind(other)); MAX_LINKS];
    let mut operands = [other; MAX_LINKS];
    let mut count = 1;
    let mut acc = first.dst;
    while count < MAX_LINKS {
        let Some(next) = steps.get(i + count) else {
            break;
        };
        let (Some((op, d)), Src::Scratch(column)) = (next.link, acc) else {
            break;
        };
        let [x, y, ..] = next.args;
        let other = if x == acc && y != acc {
            y
        } else if y == acc && x != acc && commutative(op) {
            x
        } else {
            break;
        };
        if d != dtype || !linkable(op, d, other) || read_after(plan, steps, i + count, column) {
            break;
        }
        links[count] = (op, kind(other));
        operands[count] = other;
        acc = next.dst;
        count += 1;
    }
    (2..=count).rev().find_map(|n| {
        let kernel = chain::lookup(dtype, &links[..n])?;
        let dst = steps[i + n - 1].dst;
        let mut args = [Src::None; ARGS];
        args[0] = head;
        args[1..=n].copy_from_slice(&operands[..n]);
        chain_may_write(plan, &args, dst).then_some((
            Step {
                action: Action::Kernel(kernel),
                args,
                dst,
                link: None,
            },
            n,
        ))
    })
}

/// Whether the value in scratch column `column` when step `at` runs is read by a step after
/// `at` or is the plan's result.
fn read_after(plan: &Plan<'_>, steps: &[Step], at: usize, column: usize) -> bool {
    let col = Src::Scratch(column);
    for s in steps.iter().skip(at + 1) {
        if s.args.contains(&col) {
            return true;
        }
        if s.dst == col {
            return false;
        }
    }
    plan.result == col
}
