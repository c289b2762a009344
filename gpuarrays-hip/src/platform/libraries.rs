//! The vendor libraries a platform opens at first use: BLAS (cuBLAS on NVIDIA, rocBLAS on
//! AMD) and FFT (cuFFT on NVIDIA, rocFFT on AMD).
//!
//! Each is a trait of its own because each is a separate library with its own handles,
//! loaded only when the first product or transform needs it, and used by one layer only
//! (`blas/` and `fft/`).

use super::{
    BlasHandle, DeviceId, DevicePtr, FftPlanDesc, FftPlanHandle, FftPlanInfo, GemmStridedBatched,
    StreamHandle,
};
use crate::error::Result;

/// The vendor BLAS (cuBLAS on NVIDIA, rocBLAS on AMD), loaded at first use; a supertrait of
/// [`super::Platform`].
pub trait BlasLibrary {
    /// The BLAS library's name and version (e.g. "cuBLAS 13.0.0"), loading it if needed. A
    /// missing library or symbol is [`crate::HipError::LibraryNotFound`] /
    /// [`crate::HipError::MissingSymbols`] saying what to install.
    fn blas_version(&self) -> Result<String>;
    /// Create a BLAS handle bound to `device`.
    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle>;
    /// Destroy a handle created on `device` (the platform binds `device` first). The caller
    /// must not use the handle afterwards.
    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()>;
    /// Set `handle`'s stream to `stream` and precision to `gemm.math`, then enqueue the
    /// product `gemm` on it. The calling thread must be bound to the handle's device.
    ///
    /// # Safety
    /// Every matrix `gemm` describes (pointers, leading dimensions, strides, batch) must lie
    /// inside live device allocations of the handle's device until the product has run, and
    /// the handle must not be used by another thread at the same time.
    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()>;
}

/// The vendor FFT (cuFFT on NVIDIA, rocFFT on AMD); a supertrait of [`super::Platform`].
pub trait FftLibrary {
    /// Create a plan for `desc` on `device`, holding no work area of its own (cuFFT's
    /// auto-allocation off; rocFFT gets one at each execution). Binds `device`.
    fn fft_plan_create(&self, device: DeviceId, desc: &FftPlanDesc) -> Result<FftPlanInfo>;
    /// Destroy a plan created on `device`, with `device` current during the call; the calling
    /// thread's binding is restored afterwards.
    fn fft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()>;
    /// Run `plan` (made for `desc`) on `stream`, with `work` (at least the plan's
    /// `work_bytes`) as its work area; both are set at every call.
    ///
    /// # Safety
    /// `input` and `output` must be device allocations laid out as `desc` says (the same
    /// pointer iff `desc.in_place`), `work` an allocation of at least `work_bytes` bytes (or
    /// anything when 0), all on the stream's device and alive until the transform has run;
    /// the plan must not be used by another thread during the call.
    #[allow(clippy::too_many_arguments)]
    unsafe fn fft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
}
