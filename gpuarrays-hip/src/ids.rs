//! The two names every layer of the crate speaks of, errors included: which platform
//! ([`PlatformKind`]) and which device of it ([`DeviceId`]).
//!
//! A leaf: it imports nothing from the crate, so [`crate::error`] can name platforms and
//! devices while sitting below [`crate::platform`], which returns its errors.

use std::fmt;

/// Which implementation of [`crate::platform::Platform`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlatformKind {
    /// ROCm: libamdhip64 + hiprtc.
    Amd,
    /// CUDA driver API + NVRTC (HIP's NVIDIA mapping).
    Nvidia,
    /// The in-process test double.
    TestDouble,
}

impl fmt::Display for PlatformKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlatformKind::Amd => "HIP/AMD",
            PlatformKind::Nvidia => "HIP/NVIDIA",
            PlatformKind::TestDouble => "HIP/test-double",
        })
    }
}

/// A device ordinal within one platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DeviceId(pub usize);

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
