//! What the platform layer needs to know about one FFT plan: [`FftPlanDesc`], the plan's
//! description in the terms cuFFT's `cufftMakePlanMany64` and rocFFT's plan description
//! share, and the handles of a created plan.

use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind};

/// One batched transform, as a plan is made for it. Data pointers are not part of it: a
/// plan runs on any buffers laid out as described (offsets are applied to the pointers).
///
/// Layout (as `gpuarrays_core::kernel::fft`): element `x` (row-major over the embed) of
/// transform `b` is at element `b·dist + stride·linear(x)` of an operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FftPlanDesc {
    pub kind: FftKind,
    /// Forward or inverse (R2C is always forward, C2R inverse).
    pub direction: FftDirection,
    /// Double precision (f64/c64) rather than single.
    pub double: bool,
    /// Logical lengths, slowest axis first (1 to 3).
    pub lengths: Vec<usize>,
    /// Physical shape of one input transform (the half spectrum for C2R).
    pub input_embed: Vec<usize>,
    /// Physical shape of one output transform (the half spectrum for R2C).
    pub output_embed: Vec<usize>,
    pub batch: usize,
    pub input_stride: usize,
    pub input_dist: usize,
    pub output_stride: usize,
    pub output_dist: usize,
    /// Input and output are the same elements.
    pub in_place: bool,
}

impl FftPlanDesc {
    /// The plan description of a (validated) kernel description.
    pub fn from_args<Buf>(a: &FftArgs<'_, Buf>) -> FftPlanDesc {
        FftPlanDesc {
            kind: a.kind,
            direction: a.direction,
            double: a.real == gpuarrays_core::DType::F64,
            lengths: a.lengths.clone(),
            input_embed: a.input_embed(),
            output_embed: a.output_embed(),
            batch: a.batch,
            input_stride: a.input_layout.stride,
            input_dist: a.input_layout.dist,
            output_stride: a.output_layout.stride,
            output_dist: a.output_layout.dist,
            in_place: a.in_place(),
        }
    }

    /// Bytes of one input element.
    pub fn input_element_bytes(&self) -> usize {
        let real = if self.double { 8 } else { 4 };
        if self.kind == FftKind::R2C {
            real
        } else {
            2 * real
        }
    }

    /// Bytes of one output element.
    pub fn output_element_bytes(&self) -> usize {
        let real = if self.double { 8 } else { 4 };
        if self.kind == FftKind::C2R {
            real
        } else {
            2 * real
        }
    }
}

/// A created plan: the library's handle(s) as integers (cuFFT: `plan` is the
/// `cufftHandle`; rocFFT: `plan` is the `rocfft_plan`, `aux` its `rocfft_execution_info`).
/// Carries no ownership: whoever created it destroys it with `fft_plan_destroy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FftPlanHandle {
    pub plan: u64,
    pub aux: u64,
}

/// What `fft_plan_create` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FftPlanInfo {
    pub handle: FftPlanHandle,
    /// Bytes of work area each execution needs (the caller passes it; the plan holds none).
    pub work_bytes: usize,
}
