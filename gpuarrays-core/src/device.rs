//! Which device an array lives on.

use std::fmt;

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
