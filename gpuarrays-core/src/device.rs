//! Which device an array lives on.

use std::fmt;

use crate::DType;

/// Describes one device of one backend. Two arrays may meet in one operation only if their
/// `DeviceInfo`s have the same `backend` and `id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeviceInfo {
    /// The backend's name, e.g. "cpu", "hip", "wgpu".
    pub backend: &'static str,
    /// A process-unique id of this device handle (different devices, and the same device
    /// opened by two backends, have different ids).
    pub id: u64,
    /// The device's ordinal within its backend.
    pub ordinal: usize,
    /// Human-readable name, e.g. "NVIDIA H200", "llvmpipe", "cpu (16 threads)".
    pub name: String,
    /// Which floating-point precisions the device flushes subnormals to zero in (inputs
    /// read as ±0, results that would be subnormal written as ±0). WGSL permits it, and the
    /// NVIDIA Vulkan driver does it for f32; IEEE-exact backends declare nothing.
    pub flushes_subnormals: SubnormalFlush,
}

/// The precisions in which a device flushes subnormals to zero ([`DeviceInfo::flushes_subnormals`]).
/// The default flushes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SubnormalFlush {
    /// f32 (and the parts of c32, and bf16: its subnormals are f32's, as it has f32's
    /// exponent range, and every backend computes it in f32).
    pub f32: bool,
    /// f64 (and the parts of c64).
    pub f64: bool,
}

impl SubnormalFlush {
    /// Flushes nothing: IEEE subnormals everywhere.
    pub const NONE: SubnormalFlush = SubnormalFlush {
        f32: false,
        f64: false,
    };

    /// Whether any precision is flushed.
    pub fn any(self) -> bool {
        self.f32 || self.f64
    }

    /// Whether elements of `dtype` are flushed: f32/c32/bf16 by `f32`, f64/c64 by `f64`;
    /// never for bool, integer types and f16 (whose subnormals are normal f32 values).
    pub fn applies_to(self, dtype: DType) -> bool {
        match dtype {
            DType::F32 | DType::C32 | DType::BF16 => self.f32,
            DType::F64 | DType::C64 => self.f64,
            _ => false,
        }
    }
}

impl fmt::Display for SubnormalFlush {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.f32, self.f64) {
            (false, false) => f.write_str("no (IEEE subnormals)"),
            (true, false) => f.write_str("f32"),
            (false, true) => f.write_str("f64"),
            (true, true) => f.write_str("f32, f64"),
        }
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} '{}' (device #{})",
            self.backend, self.ordinal, self.name, self.id
        )
    }
}

/// Allocates process-unique device ids for [`DeviceInfo::id`].
pub fn next_device_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
