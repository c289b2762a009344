//! The NVIDIA platform: what HIP does on NVIDIA, i.e. the CUDA driver API and NVRTC, through
//! cudarc's `sys` layer with raw handles. Every symbol is resolved by our own preflight
//! ([`symbols`]) before cudarc is touched, and every cudarc call runs under `catch_unwind` so
//! that an unexpected panic in the binding becomes [`HipError::BindingPanicked`].

mod blas;
mod compile;
pub mod cufft;
mod multi_device;
mod platform_impl;
pub mod symbols;
mod work_impl;

use crate::error::{HipError, Result};
use crate::platform::loader::LoadedLibrary;
use crate::platform::nccl_api::NcclLibrary;
use crate::platform::{DeviceId, PlatformKind};
use cudarc::driver::sys as cu;
use std::ffi::CStr;

/// The NVIDIA platform. Create with [`NvidiaPlatform::new`].
#[derive(Debug)]
pub struct NvidiaPlatform {
    /// Keeps libcuda loaded (cudarc holds its own handle to the same file).
    _driver: LoadedLibrary,
    /// NVRTC, or why it is unusable (compilation reports it; everything else works).
    nvrtc: std::result::Result<LoadedLibrary, HipError>,
    /// Primary context of each device, as an address.
    contexts: Vec<usize>,
    /// Whether each device supports stream-ordered allocation.
    pools_supported: Vec<bool>,
    /// cuFFT, loaded at the first FFT (or why it is unusable).
    cufft: std::sync::OnceLock<std::result::Result<LoadedLibrary, HipError>>,
    /// Whether the driver has `cuEventElapsedTime_v2` (device-side timing).
    has_elapsed_time: bool,
    /// cuBLAS, loaded and preflighted at the first BLAS call (or why it is unusable).
    cublas: std::sync::OnceLock<std::result::Result<LoadedLibrary, HipError>>,
    /// NCCL, loaded at the first collective call (or why it is unusable).
    nccl: std::sync::OnceLock<std::result::Result<NcclLibrary, HipError>>,
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Run a cudarc call, turning a panic inside the binding into an error.
pub(crate) fn guarded<T>(call: &'static str, f: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        HipError::BindingPanicked {
            platform: PlatformKind::Nvidia,
            call,
            message: panic_message(p),
        }
    })
}

fn cstr_or(p: *const std::ffi::c_char, fallback: &str) -> String {
    if p.is_null() {
        return fallback.to_string();
    }
    // SAFETY: the driver returns pointers to static NUL-terminated strings for error codes.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The error for a failed driver call.
pub(crate) fn api_error(call: &'static str, r: cu::CUresult) -> HipError {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut msg: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: both out-pointers are valid; the symbols were resolved by the preflight.
    let _ = guarded("cuGetErrorName", || unsafe {
        cu::cuGetErrorName(r, &mut name)
    });
    // SAFETY: as above.
    let _ = guarded("cuGetErrorString", || unsafe {
        cu::cuGetErrorString(r, &mut msg)
    });
    HipError::Api {
        platform: PlatformKind::Nvidia,
        call,
        code: r as i32,
        name: cstr_or(name, "CUDA_ERROR_UNKNOWN"),
        message: cstr_or(msg, "no description"),
    }
}

/// Run a driver call and check its result.
pub(crate) fn cu_call(call: &'static str, f: impl FnOnce() -> cu::CUresult) -> Result<()> {
    let r = guarded(call, f)?;
    if r == cu::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(api_error(call, r))
    }
}

impl NvidiaPlatform {
    /// Load libcuda (and NVRTC), resolve every symbol, initialise the driver and retain each
    /// device's primary context.
    pub fn new() -> Result<NvidiaPlatform> {
        let (driver, table) = symbols::preflight_driver()?;
        let nvrtc = symbols::preflight_nvrtc().map(|(lib, _)| lib);
        if let Err(e) = &nvrtc {
            tracing::info!(error = %e, "NVRTC unavailable: run-time compilation will fail");
        }
        // SAFETY: cuInit has no pointer arguments; the symbol was resolved above.
        cu_call("cuInit", || unsafe { cu::cuInit(0) })?;
        let mut count = 0i32;
        // SAFETY: `count` is a valid out-pointer.
        cu_call("cuDeviceGetCount", || unsafe {
            cu::cuDeviceGetCount(&mut count)
        })?;
        let mut p = NvidiaPlatform {
            _driver: driver,
            nvrtc,
            contexts: Vec::new(),
            pools_supported: Vec::new(),
            cufft: std::sync::OnceLock::new(),
            has_elapsed_time: table.has("cuEventElapsedTime_v2"),
            cublas: std::sync::OnceLock::new(),
            nccl: std::sync::OnceLock::new(),
        };
        for ordinal in 0..count.max(0) {
            let dev = p.cu_device(DeviceId(ordinal as usize))?;
            let mut ctx: cu::CUcontext = std::ptr::null_mut();
            // SAFETY: `ctx` is a valid out-pointer and `dev` a device from cuDeviceGet.
            cu_call("cuDevicePrimaryCtxRetain", || unsafe {
                cu::cuDevicePrimaryCtxRetain(&mut ctx, dev)
            })?;
            p.contexts.push(ctx as usize);
            let pools = p.attribute(
                dev,
                cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            )?;
            p.pools_supported.push(pools != 0);
        }
        tracing::debug!(devices = count, "NVIDIA platform ready");
        Ok(p)
    }

    fn cu_device(&self, device: DeviceId) -> Result<cu::CUdevice> {
        let mut dev: cu::CUdevice = 0;
        // SAFETY: `dev` is a valid out-pointer.
        cu_call("cuDeviceGet", || unsafe {
            cu::cuDeviceGet(&mut dev, device.0 as i32)
        })?;
        Ok(dev)
    }

    fn attribute(&self, dev: cu::CUdevice, attr: cu::CUdevice_attribute) -> Result<i32> {
        let mut v = 0i32;
        // SAFETY: `v` is a valid out-pointer.
        cu_call("cuDeviceGetAttribute", || unsafe {
            cu::cuDeviceGetAttribute(&mut v, attr, dev)
        })?;
        Ok(v)
    }

    fn context(&self, device: DeviceId) -> Result<cu::CUcontext> {
        self.contexts
            .get(device.0)
            .map(|&c| c as cu::CUcontext)
            .ok_or(HipError::InvalidDevice {
                platform: PlatformKind::Nvidia,
                device,
                count: self.contexts.len(),
            })
    }

    fn nvrtc_ready(&self) -> Result<()> {
        self.nvrtc.as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

impl Drop for NvidiaPlatform {
    fn drop(&mut self) {
        for ordinal in 0..self.contexts.len() {
            if let Ok(dev) = self.cu_device(DeviceId(ordinal)) {
                // SAFETY: releases the retain made in `new` for this device.
                let r = cu_call("cuDevicePrimaryCtxRelease_v2", || unsafe {
                    cu::cuDevicePrimaryCtxRelease_v2(dev)
                });
                if let Err(e) = r {
                    tracing::debug!(error = %e, "releasing a primary context failed");
                }
            }
        }
    }
}

pub(crate) fn stream(h: crate::platform::StreamHandle) -> cu::CUstream {
    h.0 as usize as cu::CUstream
}
pub(crate) fn event(h: crate::platform::EventHandle) -> cu::CUevent {
    h.0 as usize as cu::CUevent
}
