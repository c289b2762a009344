//! Choosing a platform: automatic (AMD if libamdhip64 loads and has devices, else NVIDIA), or
//! forced with `GPUARRAYS_HIP_PLATFORM=amd|nvidia`.

use super::{Platform, PlatformKind, amd::AmdPlatform, nvidia::NvidiaPlatform};
use crate::error::{HipError, Result};
use std::sync::Arc;

/// The environment variable that forces a platform.
pub const PLATFORM_ENV: &str = "GPUARRAYS_HIP_PLATFORM";

/// Create the platform chosen by [`PLATFORM_ENV`] or automatically.
pub fn select_platform() -> Result<Arc<dyn Platform>> {
    select_platform_named(std::env::var(PLATFORM_ENV).ok().as_deref())
}

/// Create the platform named `choice` ("amd", "nvidia", "auto"; `None` means automatic).
pub fn select_platform_named(choice: Option<&str>) -> Result<Arc<dyn Platform>> {
    match choice.map(|v| v.trim().to_ascii_lowercase()) {
        None => select_auto(),
        Some(v) => match v.as_str() {
            "amd" | "rocm" => Ok(Arc::new(AmdPlatform::new()?)),
            "nvidia" | "cuda" => Ok(Arc::new(NvidiaPlatform::new()?)),
            "" | "auto" => select_auto(),
            _ => Err(HipError::InvalidConfig {
                var: PLATFORM_ENV,
                value: v,
                expected: "amd, nvidia or auto",
            }),
        },
    }
}

fn select_auto() -> Result<Arc<dyn Platform>> {
    let mut reasons = Vec::new();
    match AmdPlatform::new() {
        Ok(p) => match p.device_count() {
            Ok(n) if n > 0 => return Ok(Arc::new(p)),
            Ok(_) => reasons.push(HipError::NoDevice {
                platform: PlatformKind::Amd,
            }),
            Err(e) => reasons.push(e),
        },
        Err(e) => reasons.push(e),
    }
    match NvidiaPlatform::new() {
        Ok(p) => match p.device_count() {
            Ok(n) if n > 0 => return Ok(Arc::new(p)),
            Ok(_) => reasons.push(HipError::NoDevice {
                platform: PlatformKind::Nvidia,
            }),
            Err(e) => reasons.push(e),
        },
        Err(e) => reasons.push(e),
    }
    tracing::debug!(?reasons, "no HIP platform usable");
    Err(HipError::NoPlatform { reasons })
}
