//! The last elementwise launch this thread planned, kept so that a loop of one expression
//! skips the planning as well as the kernel lookup.
//!
//! A launch's plan (the [`EwLayout`] with its tiling, the kernel) is a function of the
//! program, the shape, each operand's type, strides and pointer alignment (only the address
//! modulo the 16-byte vector width enters the plan), the grid limit and the device. When all
//! of these equal the last launch's, so does the plan: it is compared by value, so it is never
//! stale. Measured on the platform test double (`cargo bench -p gpuarrays-hip --bench
//! host_path`, callgrind), for `a*x + y` on 1024 f32: `prepare` took ~820 instructions per
//! launch planning each time (the layout alone ~320) and ~620 recalling (the comparison of
//! the program, 160 of them, was made before too, to find the kernel).

use std::cell::RefCell;
use std::sync::Arc;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Program;
use smallvec::SmallVec;

use super::layout::{EwKey, EwLayout, EwOperand, VECTOR_BYTES};
use crate::kernels::cache::Module;
use crate::kernels::device_kernels::DeviceKernels;
use crate::platform::FunctionHandle;

/// What the plan of one operand depends on.
struct OperandInputs {
    dtype: DType,
    /// The address modulo [`VECTOR_BYTES`].
    align: u8,
    strides: SmallVec<[isize; 4]>,
}

impl OperandInputs {
    fn of(o: &EwOperand<'_>) -> Self {
        OperandInputs {
            dtype: o.dtype,
            align: alignment(o),
            strides: SmallVec::from_slice(o.strides),
        }
    }

    fn matches(&self, o: &EwOperand<'_>) -> bool {
        self.dtype == o.dtype && self.align == alignment(o) && self.strides[..] == *o.strides
    }
}

fn alignment(o: &EwOperand<'_>) -> u8 {
    (o.ptr.0 % VECTOR_BYTES as u64) as u8
}

/// What a plan was computed from, besides the program (in the key), as kept.
struct StoredInputs {
    shape: SmallVec<[usize; 4]>,
    /// The inputs, then the output.
    operands: SmallVec<[OperandInputs; 5]>,
    grid_limit: usize,
}

struct Memo {
    device: u64,
    key: EwKey,
    function: FunctionHandle,
    /// Keeps the module (and so `function`) loaded while it is remembered.
    _module: Arc<Module>,
    /// The launch planned with this kernel last, if any.
    plan: Option<StoredInputs>,
}

thread_local! {
    static LAST: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// Whether `stored` (inputs, then the output) matches this launch's operands. Slices and a
/// zip, not a chained iterator: the chain was ~200 instructions for three operands.
fn same_operands(
    stored: &[OperandInputs],
    inputs: &[EwOperand<'_>],
    output: &EwOperand<'_>,
) -> bool {
    match stored.split_last() {
        Some((out, ins)) if ins.len() == inputs.len() => {
            out.matches(output) && ins.iter().zip(inputs).all(|(s, o)| s.matches(o))
        }
        _ => false,
    }
}

/// One launch's plan: the kernel and its layout, the tiling included (made by `prepare`, or
/// recalled whole from here).
pub(super) struct Planned {
    pub(super) function: FunctionHandle,
    pub(super) layout: EwLayout,
}

/// What one launch's plan is computed from.
pub(super) struct Launch<'a> {
    pub(super) program: &'a Program,
    pub(super) shape: &'a [usize],
    pub(super) inputs: &'a [EwOperand<'a>],
    pub(super) output: &'a EwOperand<'a>,
    pub(super) grid_limit: usize,
}

/// The last launch's plan, if `launch`'s inputs are the same.
pub(super) fn recall_plan(dev: &DeviceKernels, launch: &Launch<'_>) -> Option<Planned> {
    LAST.try_with(|m| {
        let memo = m.try_borrow().ok()?;
        let x = memo.as_ref()?;
        let p = x.plan.as_ref()?;
        let same = x.device == dev.id()
            && p.grid_limit == launch.grid_limit
            && p.shape[..] == *launch.shape
            && same_operands(&p.operands, launch.inputs, launch.output)
            && x.key.program == *launch.program;
        same.then(|| Planned {
            function: x.function,
            layout: x.key.layout.copied(),
        })
    })
    .ok()
    .flatten()
}

/// The last launch's kernel, if it was built for this program and layout.
pub(super) fn recall_kernel(
    dev: &DeviceKernels,
    program: &Program,
    layout: &EwLayout,
) -> Option<FunctionHandle> {
    LAST.try_with(|m| match m.try_borrow().ok()?.as_ref() {
        Some(x) if x.device == dev.id() && x.key.layout == *layout && x.key.program == *program => {
            Some(x.function)
        }
        _ => None,
    })
    .ok()
    .flatten()
}

/// Remembers a kernel just looked up (its plan inputs follow with [`remember_plan`]).
pub(super) fn remember_kernel(
    dev: &DeviceKernels,
    key: EwKey,
    function: FunctionHandle,
    module: Arc<Module>,
) {
    let _ = LAST.try_with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            *m = Some(Memo {
                device: dev.id(),
                key,
                function,
                _module: module,
                plan: None,
            });
        }
    });
}

/// Remembers what the plan of the launch just prepared was computed from, if the remembered
/// kernel is the one it uses (it is, unless a nested launch replaced it in between).
pub(super) fn remember_plan(dev: &DeviceKernels, launch: &Launch<'_>, planned: &Planned) {
    let _ = LAST.try_with(|m| {
        let Ok(mut m) = m.try_borrow_mut() else {
            return;
        };
        let Some(x) = m.as_mut() else { return };
        if x.device != dev.id()
            || x.function != planned.function
            || x.key.layout != planned.layout
            || x.key.program != *launch.program
        {
            return;
        }
        x.plan = Some(StoredInputs {
            shape: SmallVec::from_slice(launch.shape),
            operands: launch
                .inputs
                .iter()
                .chain([launch.output])
                .map(OperandInputs::of)
                .collect(),
            grid_limit: launch.grid_limit,
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::DevicePtr;

    fn op(ptr: u64, dtype: DType, strides: &[isize]) -> EwOperand<'_> {
        EwOperand {
            ptr: DevicePtr(ptr),
            dtype,
            strides,
        }
    }

    #[test]
    fn a_plan_is_recalled_only_for_the_same_types_strides_and_alignment() {
        let (unit, bcast) = ([1isize], [0isize]);
        let x = op(0x1000, DType::F32, &unit);
        let z = op(0x2000, DType::F32, &unit);
        let stored: SmallVec<[OperandInputs; 5]> = [x, z].iter().map(OperandInputs::of).collect();
        // Other buffers at the same alignment: the same plan.
        let (x2, z2) = (op(0x9010, DType::F32, &unit), op(0x30, DType::F32, &unit));
        assert!(same_operands(&stored, &[x2], &z2));
        // Anything the plan depends on differs: not recalled.
        let misaligned = op(0x1004, DType::F32, &unit);
        let broadcast = op(0x1000, DType::F32, &bcast);
        let wider = op(0x1000, DType::F64, &unit);
        for other in [misaligned, broadcast, wider] {
            assert!(!same_operands(&stored, &[other], &z), "{other:?}");
            assert!(!same_operands(&stored, &[x], &other), "{other:?}");
        }
        assert!(!same_operands(&stored, &[x, x], &z), "one more input");
        assert!(!same_operands(&stored, &[], &z), "one input fewer");
    }
}
