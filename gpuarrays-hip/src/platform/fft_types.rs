//! What the platform layer needs to know about one FFT plan: [`FftPlanDesc`], the plan's
//! description in the terms cuFFT's `cufftMakePlanMany64` and rocFFT's plan description
//! share, and the handles of a created plan.

/// One batched transform, as a plan is made for it: core's backend-neutral plan key, which
/// the wgpu backend plans from too, so both agree on what "the same plan" is. Data pointers
/// and offsets are not part of it: a plan runs on any buffers laid out as described
/// (offsets are applied to the pointers).
///
/// Layout (as `gpuarrays_core::kernel::fft`): element `x` (row-major over the embed,
/// [`FftPlanKey::input_embed`](gpuarrays_core::kernel::FftPlanKey::input_embed)) of
/// transform `b` is at element `b·dist + stride·linear(x)` of an operand. Made by
/// [`FftPlanKey::from_args`](gpuarrays_core::kernel::FftPlanKey::from_args).
pub type FftPlanDesc = gpuarrays_core::kernel::FftPlanKey;

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
