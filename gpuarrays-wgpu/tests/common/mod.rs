//! What every wgpu test binary shares: opening a device, or skipping without one.

use gpuarrays_wgpu::{WgpuBackend, WgpuOptions};

/// The device `options` open; `None` (with the reason printed) when no adapter opens, a
/// failure instead when `GPUARRAYS_REQUIRE_WGPU=1` (set by `.ci/run`, which installs Mesa's
/// lavapipe).
pub fn open_or_skip(options: &WgpuOptions) -> Option<WgpuBackend> {
    match WgpuBackend::with_options(options) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_WGPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter opened: {e}"
            );
            eprintln!("skipped: no wgpu adapter ({e})");
            None
        }
    }
}
