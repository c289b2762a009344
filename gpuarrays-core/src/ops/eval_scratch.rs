//! The vectors of one elementwise dispatch, kept per thread and reused by the next one.
//!
//! [`Program`] and [`crate::kernel::ElementwiseArgs`] are public types with `Vec` fields
//! (every backend reads them); filling fresh ones made 12 of the 43 heap allocations of one
//! `Expr::eval_into` of `x * a + y` (measured on the platform test double, `cargo bench -p
//! gpuarrays-hip --bench host_path`). Here their capacity survives from call to call: the
//! vectors are cleared, refilled, lent to the backend for the call and taken back. The
//! operand list (`Vec<Operand<'_, Buf>>`, which borrows the call's buffers) is kept empty,
//! as a list of a lifetime-free operand type of the same layout, and re-typed each call
//! (`eval::recycle`): the user API of `x * a + y` allocates nothing per call.

use std::cell::Cell;

use crate::kernel::{Operand, Program};
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
    /// Spare stride vectors (cleared), one per operand of the last call.
    pub(crate) strides: Vec<Vec<isize>>,
    /// The operand list's allocation (empty): a dispatch borrows its buffers, so the list is
    /// re-typed to the call's lifetime and back (`eval::recycle`), not kept filled.
    pub(crate) operands: Vec<Operand<'static, ()>>,
}

impl Scratch {
    /// An empty stride vector, reusing a spare one's capacity where there is one.
    #[inline]
    pub(crate) fn take_strides(&mut self) -> Vec<isize> {
        self.strides.pop().unwrap_or_default()
    }

    /// Gives a stride vector back for the next call.
    #[inline]
    pub(crate) fn give_strides(&mut self, mut v: Vec<isize>) {
        v.clear();
        self.strides.push(v);
    }

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
