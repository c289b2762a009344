//! cuFFT on the NVIDIA platform, through cudarc's `cufft::sys` with raw handles.
//!
//! libcufft is opened the first time an FFT is planned (so a machine without it runs
//! everything else), exactly as cudarc will open it (`cudarc::get_lib_name_candidates`),
//! and every symbol below is resolved by our own loader first: a missing library or an old
//! one is a typed error ([`HipError::LibraryNotFound`] / [`HipError::MissingSymbols`]), never
//! cudarc's panic. Every call runs under `catch_unwind` (`guarded`).
//!
//! Plans are made with `cufftCreate` + `cufftSetAutoAllocation(plan, 0)` +
//! `cufftMakePlanMany64`, so a plan holds its tables but no work area; each execution sets
//! the stream (`cufftSetStream`) and the caller's work area (`cufftSetWorkArea`) before
//! `cufftExec*`. Oldest supported: CUDA 12.0's cuFFT 11.0 (every symbol below exists there).

use std::ffi::c_void;

use cudarc::cufft::sys as cufft;
use gpuarrays_core::kernel::{FftDirection, FftKind};

use super::{NvidiaPlatform, cu, cu_call, guarded};
use crate::error::{HipError, Result, codes};
use crate::platform::loader::{LoadedLibrary, SymbolSpec, SymbolTable, open_first};
use crate::platform::{DeviceId, DevicePtr, FftPlanDesc, FftPlanHandle, FftPlanInfo, Platform};
use crate::platform::{PlatformKind, StreamHandle};

/// cuFFT symbols (cudarc's names).
pub const CUFFT: SymbolSpec = SymbolSpec {
    required: &[
        "cufftGetVersion",
        "cufftCreate",
        "cufftDestroy",
        "cufftSetAutoAllocation",
        "cufftMakePlanMany64",
        "cufftSetStream",
        "cufftSetWorkArea",
        "cufftExecC2C",
        "cufftExecZ2Z",
        "cufftExecR2C",
        "cufftExecD2Z",
        "cufftExecC2R",
        "cufftExecZ2D",
    ],
    optional: &[],
};

const CUFFT_HINT: &str =
    "install CUDA's cuFFT (libcufft.so, CUDA 12 or newer) and put its directory on LD_LIBRARY_PATH";

/// Open libcufft as cudarc will and resolve every cuFFT symbol.
pub fn preflight_cufft() -> Result<(LoadedLibrary, SymbolTable)> {
    let lib = open_first(
        PlatformKind::Nvidia,
        "CUDA's cuFFT (libcufft)",
        "CUDA's cuFFT",
        &super::symbols::cudarc_candidates(&["cufft"]),
        CUFFT_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Nvidia,
        "CUDA's cuFFT (libcufft)",
        &lib,
        &CUFFT,
        CUFFT_HINT,
    )?;
    Ok((lib, table))
}

/// Run a cuFFT call and check its result. `CUFFT_ALLOC_FAILED` is reported with the
/// out-of-memory code, so callers can release idle plans and retry.
fn cufft_call(call: &'static str, f: impl FnOnce() -> cufft::cufftResult) -> Result<()> {
    let r = guarded(call, f)?;
    if r == cufft::cufftResult::CUFFT_SUCCESS {
        return Ok(());
    }
    let code = if r == cufft::cufftResult::CUFFT_ALLOC_FAILED {
        codes::OUT_OF_MEMORY
    } else {
        r as i32
    };
    Err(HipError::Api {
        platform: PlatformKind::Nvidia,
        call,
        code,
        name: format!("{r:?}"),
        message: "cuFFT reported an error".into(),
    })
}

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

fn plan_type(desc: &FftPlanDesc) -> cufft::cufftType {
    use cufft::cufftType::*;
    match (desc.kind, desc.double) {
        (FftKind::C2C, false) => CUFFT_C2C,
        (FftKind::C2C, true) => CUFFT_Z2Z,
        (FftKind::R2C, false) => CUFFT_R2C,
        (FftKind::R2C, true) => CUFFT_D2Z,
        (FftKind::C2R, false) => CUFFT_C2R,
        (FftKind::C2R, true) => CUFFT_Z2D,
    }
}

impl NvidiaPlatform {
    /// libcufft, loaded and checked at first use.
    fn cufft_ready(&self) -> Result<()> {
        self.cufft
            .get_or_init(|| preflight_cufft().map(|(lib, _)| lib))
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    pub(super) fn cufft_plan_create(
        &self,
        device: DeviceId,
        desc: &FftPlanDesc,
    ) -> Result<FftPlanInfo> {
        self.cufft_ready()?;
        self.bind_device(device)?;
        let mut plan: cufft::cufftHandle = 0;
        // SAFETY: `plan` is a valid out-pointer; the device's context is current.
        cufft_call("cufftCreate", || unsafe { cufft::cufftCreate(&mut plan) })?;
        let made = (|| {
            // SAFETY: `plan` was just created.
            cufft_call("cufftSetAutoAllocation", || unsafe {
                cufft::cufftSetAutoAllocation(plan, 0)
            })?;
            let (mut n, mut inembed, mut onembed) = (
                i64s(&desc.lengths),
                i64s(&desc.input_embed()),
                i64s(&desc.output_embed()),
            );
            let mut work = 0usize;
            // SAFETY: the three arrays hold `rank` values each and outlive the call;
            // `work` is a valid out-pointer.
            cufft_call("cufftMakePlanMany64", || unsafe {
                cufft::cufftMakePlanMany64(
                    plan,
                    n.len() as i32,
                    n.as_mut_ptr(),
                    inembed.as_mut_ptr(),
                    desc.input_stride as i64,
                    desc.input_dist as i64,
                    onembed.as_mut_ptr(),
                    desc.output_stride as i64,
                    desc.output_dist as i64,
                    plan_type(desc),
                    desc.batch as i64,
                    &mut work,
                )
            })?;
            Ok(work)
        })();
        match made {
            Ok(work_bytes) => Ok(FftPlanInfo {
                handle: FftPlanHandle {
                    plan: plan as u32 as u64,
                    aux: 0,
                },
                work_bytes,
            }),
            Err(e) => {
                // SAFETY: destroys the half-made plan created above.
                let _ = cufft_call("cufftDestroy", || unsafe { cufft::cufftDestroy(plan) });
                Err(e)
            }
        }
    }

    pub(super) fn cufft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()> {
        self.cufft_ready()?;
        let mut previous: cu::CUcontext = std::ptr::null_mut();
        // SAFETY: `previous` is a valid out-pointer.
        cu_call("cuCtxGetCurrent", || unsafe {
            cu::cuCtxGetCurrent(&mut previous)
        })?;
        self.bind_device(device)?;
        // SAFETY: the caller passes a plan it created on `device` and no longer uses; that
        // device's context is current.
        let destroyed = cufft_call("cufftDestroy", || unsafe {
            cufft::cufftDestroy(plan.plan as u32 as cufft::cufftHandle)
        });
        if !previous.is_null() {
            // SAFETY: `previous` was the current context a moment ago (a retained primary
            // context of this platform, or the caller's own).
            cu_call("cuCtxSetCurrent", || unsafe {
                cu::cuCtxSetCurrent(previous)
            })?;
        }
        destroyed
    }

    /// # Safety
    /// As [`crate::platform::FftLibrary::fft_execute`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn cufft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        self.cufft_ready()?;
        let h = plan.plan as u32 as cufft::cufftHandle;
        let s = stream.0 as usize as cufft::cudaStream_t;
        // SAFETY: `h` is a live plan used by this thread only; `s` a live stream.
        cufft_call("cufftSetStream", || unsafe { cufft::cufftSetStream(h, s) })?;
        let area = if work_bytes == 0 {
            std::ptr::null_mut()
        } else {
            work.0 as usize as *mut c_void
        };
        // SAFETY: the caller guarantees `work` holds at least the plan's work size.
        cufft_call("cufftSetWorkArea", || unsafe {
            cufft::cufftSetWorkArea(h, area)
        })?;
        let (i, o) = (input.0 as usize, output.0 as usize);
        let dir = match desc.direction {
            FftDirection::Forward => -1,
            FftDirection::Inverse => 1,
        };
        // SAFETY: the caller guarantees both operands are laid out as the plan describes
        // and stay alive until the transform has run on `s`.
        unsafe {
            match (desc.kind, desc.double) {
                (FftKind::C2C, false) => cufft_call("cufftExecC2C", || {
                    cufft::cufftExecC2C(h, i as *mut _, o as *mut _, dir)
                }),
                (FftKind::C2C, true) => cufft_call("cufftExecZ2Z", || {
                    cufft::cufftExecZ2Z(h, i as *mut _, o as *mut _, dir)
                }),
                (FftKind::R2C, false) => cufft_call("cufftExecR2C", || {
                    cufft::cufftExecR2C(h, i as *mut _, o as *mut _)
                }),
                (FftKind::R2C, true) => cufft_call("cufftExecD2Z", || {
                    cufft::cufftExecD2Z(h, i as *mut _, o as *mut _)
                }),
                (FftKind::C2R, false) => cufft_call("cufftExecC2R", || {
                    cufft::cufftExecC2R(h, i as *mut _, o as *mut _)
                }),
                (FftKind::C2R, true) => cufft_call("cufftExecZ2D", || {
                    cufft::cufftExecZ2D(h, i as *mut _, o as *mut _)
                }),
            }
        }
    }
}
