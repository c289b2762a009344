//! The vectors of one elementwise dispatch, kept per thread and reused by the next one.
//!
//! [`Program`] has `Vec` fields (it is a backend's compiled-kernel key), and
//! [`crate::kernel::ElementwiseArgs`] borrows its shape, scalars and strides from whoever
//! builds it. Filling fresh vectors for these made 12 of the 43 heap allocations of one
//! `Expr::eval_into` of `x * a + y` (measured on the platform test double, `cargo bench -p
//! gpuarrays-hip --bench host_path`). Here their capacity survives from call to call: the
//! vectors are cleared, refilled and lent to the backend for the call. The operand list
//! itself borrows the call's buffers, so it lives on the stack for the call: the user API of
//! `x * a + y` allocates nothing per call.

use std::cell::Cell;

use crate::kernel::Program;
use crate::scalar::Scalar;

/// Reusable vectors of one dispatch; every user clears what it fills.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The program being lowered.
    pub(crate) program: Program,
    /// Scalar argument values, in slot order.
    pub(crate) scalars: Vec<Scalar>,
    /// The simplified shape.
    pub(crate) shape: Vec<usize>,
    /// One stride vector per operand (the output first); more than the call needs may be
    /// kept from an earlier call with more operands.
    pub(crate) strides: Vec<Vec<isize>>,
}

/// `n` empty stride vectors of `kept` (a scratch's `strides`), reusing the capacity of the
/// last calls' vectors. A function of the field, not of the scratch, so that the shape can
/// be filled while the strides are borrowed.
#[inline]
pub(crate) fn strides_for(kept: &mut Vec<Vec<isize>>, n: usize) -> &mut [Vec<isize>] {
    if kept.len() < n {
        kept.resize_with(n, Vec::new);
    }
    let strides = &mut kept[..n];
    strides.iter_mut().for_each(Vec::clear);
    strides
}

impl Scratch {
    fn clear(&mut self) {
        self.program.inputs.clear();
        self.program.scalars.clear();
        self.program.instrs.clear();
        self.scalars.clear();
        self.shape.clear();
    }
}

thread_local! {
    static SCRATCH: Cell<Option<Box<Scratch>>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's scratch (cleared). A nested call (a backend evaluating an
/// expression inside `f`) or a call while the thread exits gets a fresh one, so `f` always
/// has the scratch to itself.
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut scratch = SCRATCH
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default();
    scratch.clear();
    let result = f(&mut scratch);
    let _ = SCRATCH.try_with(|c| c.set(Some(scratch)));
    result
}
