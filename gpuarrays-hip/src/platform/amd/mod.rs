//! The AMD platform: libamdhip64 + hiprtc (ROCm), loaded at run time through a hand-written
//! FFI table ([`ffi`], which says why no crate is used).

mod compile;
pub mod ffi;
mod multi_device;
mod platform_impl;
pub mod rocblas;
pub mod rocfft;
mod work_impl;

use crate::error::{HipError, Result};
use crate::platform::loader::{
    LoadedLibrary, SymbolTable, open_first, versioned_names, with_env_dirs,
};
use crate::platform::nccl_api::NcclLibrary;
use crate::platform::{DeviceId, PlatformKind};
use ffi::{HIP, HIPRTC, HipFns, RtcFns};

const HIP_HINT: &str = "install ROCm (libamdhip64; on Debian `apt-get install libamdhip64-5`) or set ROCM_PATH, or set GPUARRAYS_HIP_PLATFORM=nvidia on an NVIDIA machine";
const RTC_HINT: &str = "install hiprtc (ROCm 6+: libhiprtc; ROCm 5.x: it is part of libamdhip64, and Debian's libhiprtc-builtins5 provides its headers)";

/// Where the AMD platform found its libraries and what it resolved, without initialising HIP.
#[derive(Debug)]
pub struct AmdLibraries {
    /// libamdhip64 as loaded.
    pub hip: LoadedLibrary,
    /// The resolved HIP functions.
    pub hip_fns: HipFns,
    /// Where hiprtc was found (a libhiprtc file, or libamdhip64 itself), or why not.
    pub rtc: std::result::Result<(String, RtcFns, Option<LoadedLibrary>), HipError>,
}

/// The library names tried for libamdhip64, in order.
pub fn hip_candidates() -> Vec<String> {
    let mut names = with_env_dirs(
        &["ROCM_PATH", "HIP_PATH"],
        &versioned_names("amdhip64", &["7", "6", "5"]),
    );
    names.extend(
        versioned_names("amdhip64", &["7", "6", "5"])
            .iter()
            .map(|n| format!("/opt/rocm/lib/{n}")),
    );
    names
}

/// The library names tried for a separate libhiprtc, in order.
pub fn rtc_candidates() -> Vec<String> {
    let mut names = with_env_dirs(
        &["ROCM_PATH", "HIP_PATH"],
        &versioned_names("hiprtc", &["7", "6", "5"]),
    );
    names.extend(
        versioned_names("hiprtc", &["7", "6", "5"])
            .iter()
            .map(|n| format!("/opt/rocm/lib/{n}")),
    );
    names
}

/// Open libamdhip64 and hiprtc and resolve every symbol the platform uses.
pub fn load_libraries() -> Result<AmdLibraries> {
    let hip = open_first(
        PlatformKind::Amd,
        "ROCm's HIP runtime (libamdhip64)",
        "ROCm",
        &hip_candidates(),
        HIP_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Amd,
        "ROCm's HIP runtime (libamdhip64)",
        &hip,
        &HIP,
        HIP_HINT,
    )?;
    let hip_fns = HipFns::from_table(&table).ok_or_else(|| HipError::MissingSymbols {
        platform: PlatformKind::Amd,
        library: "ROCm's HIP runtime (libamdhip64)",
        path: hip.path.clone(),
        missing: vec!["(table)".into()],
        hint: HIP_HINT,
    })?;
    let rtc = load_rtc(&hip);
    Ok(AmdLibraries { hip, hip_fns, rtc })
}

fn load_rtc(
    hip: &LoadedLibrary,
) -> std::result::Result<(String, RtcFns, Option<LoadedLibrary>), HipError> {
    let (lib, owned) = match open_first(
        PlatformKind::Amd,
        "ROCm's hiprtc (libhiprtc)",
        "ROCm's hiprtc",
        &rtc_candidates(),
        RTC_HINT,
    ) {
        Ok(l) => {
            let t = SymbolTable::resolve(
                PlatformKind::Amd,
                "ROCm's hiprtc (libhiprtc)",
                &l,
                &HIPRTC,
                RTC_HINT,
            )?;
            (t, Some(l))
        }
        // ROCm 5.x: hiprtc lives in libamdhip64.
        Err(_) => (
            SymbolTable::resolve(
                PlatformKind::Amd,
                "hiprtc (in libamdhip64)",
                hip,
                &HIPRTC,
                RTC_HINT,
            )?,
            None,
        ),
    };
    let path = owned
        .as_ref()
        .map_or_else(|| hip.path.clone(), |l| l.path.clone());
    let fns = RtcFns::from_table(&lib).ok_or_else(|| HipError::MissingSymbols {
        platform: PlatformKind::Amd,
        library: "hiprtc",
        path: path.clone(),
        missing: vec!["(table)".into()],
        hint: RTC_HINT,
    })?;
    Ok((path, fns, owned))
}

/// The AMD platform. Create with [`AmdPlatform::new`].
#[derive(Debug)]
pub struct AmdPlatform {
    libs: AmdLibraries,
    devices: usize,
    /// rocFFT, loaded at the first FFT (or why it is unusable).
    rocfft: std::sync::OnceLock<std::result::Result<rocfft::Rocfft, HipError>>,
    /// rocBLAS, loaded at the first BLAS call (or why it is unusable).
    rocblas: std::sync::OnceLock<std::result::Result<rocblas::Rocblas, HipError>>,
    /// RCCL, loaded at the first collective call (or why it is unusable).
    rccl: std::sync::OnceLock<std::result::Result<NcclLibrary, HipError>>,
}

// SAFETY: the platform holds library handles and plain function pointers; HIP's API is
// thread-safe, and the per-thread current device is set by each thread through bind_device.
unsafe impl Send for AmdPlatform {}
// SAFETY: as above; no interior mutability.
unsafe impl Sync for AmdPlatform {}

impl AmdPlatform {
    /// Load and resolve the libraries, initialise HIP and count devices.
    pub fn new() -> Result<AmdPlatform> {
        let libs = load_libraries()?;
        let f = libs.hip_fns;
        let mut p = AmdPlatform {
            libs,
            devices: 0,
            rocfft: std::sync::OnceLock::new(),
            rocblas: std::sync::OnceLock::new(),
            rccl: std::sync::OnceLock::new(),
        };
        // SAFETY: hipInit takes flags only.
        p.check("hipInit", unsafe { (f.hipInit)(0) })?;
        let mut n = 0i32;
        // SAFETY: valid out-pointer.
        p.check("hipGetDeviceCount", unsafe {
            (f.hipGetDeviceCount)(&mut n)
        })?;
        p.devices = n.max(0) as usize;
        tracing::debug!(devices = p.devices, lib = %p.libs.hip.path, "AMD platform ready");
        Ok(p)
    }

    pub(crate) fn f(&self) -> &HipFns {
        &self.libs.hip_fns
    }

    /// rocBLAS, loaded once; the error is kept and returned on every later call.
    pub(crate) fn rocblas(&self) -> Result<&rocblas::Rocblas> {
        self.rocblas
            .get_or_init(|| {
                let loaded = rocblas::load_rocblas();
                match &loaded {
                    Ok(r) => tracing::debug!(path = %r.lib.path, "rocBLAS loaded"),
                    Err(e) => tracing::info!(error = %e, "rocBLAS unavailable"),
                }
                loaded
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    pub(crate) fn rtc(&self) -> Result<&RtcFns> {
        self.libs.rtc.as_ref().map(|r| &r.1).map_err(Clone::clone)
    }

    pub(crate) fn check(&self, call: &'static str, code: i32) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        let cstr = |p: *const std::ffi::c_char, d: &str| {
            if p.is_null() {
                d.to_string()
            } else {
                // SAFETY: HIP returns static NUL-terminated strings for error codes.
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            }
        };
        // SAFETY: both take an error code and return a static string.
        let (name, msg) = unsafe {
            (
                (self.f().hipGetErrorName)(code),
                (self.f().hipGetErrorString)(code),
            )
        };
        Err(HipError::Api {
            platform: PlatformKind::Amd,
            call,
            code,
            name: cstr(name, "hipErrorUnknown"),
            message: cstr(msg, "no description"),
        })
    }

    pub(crate) fn check_device(&self, device: DeviceId) -> Result<i32> {
        if device.0 < self.devices {
            Ok(device.0 as i32)
        } else {
            Err(HipError::InvalidDevice {
                platform: PlatformKind::Amd,
                device,
                count: self.devices,
            })
        }
    }
}

/// Find the architecture name ("gfx942") in a raw `hipDeviceProp_t` of any layout: it is the
/// one NUL-terminated string starting with "gfx" (`gcnArchName`); feature suffixes such as
/// ":sramecc+:xnack-" are stripped.
pub fn find_arch(raw: &[u8]) -> Option<String> {
    let mut i = 0;
    while i + 3 <= raw.len() {
        if &raw[i..i + 3] == b"gfx" && (i == 0 || !raw[i - 1].is_ascii_alphanumeric()) {
            let end = raw[i..]
                .iter()
                .position(|&b| b == 0)
                .map_or(raw.len(), |e| i + e);
            let s = String::from_utf8_lossy(&raw[i..end]).into_owned();
            let arch = s.split(':').next().unwrap_or(&s).to_string();
            if arch.len() > 3 && arch[3..].chars().all(|c| c.is_ascii_alphanumeric()) {
                return Some(arch);
            }
        }
        i += 1;
    }
    None
}
