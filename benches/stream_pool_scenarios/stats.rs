//! Process and device figures printed alongside the timings.

use gpuarrays::hip::HipBackend;
use gpuarrays::hip::platform::DeviceId;

/// Resident set size of this process in MiB (Linux `/proc/self/statm`).
pub fn rss_mib() -> f64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN);
    pages * 4096.0 / (1024.0 * 1024.0)
}

/// (device memory used MiB, streams alive, idle pooled streams, streams created).
pub fn device(hip: &HipBackend) -> (f64, usize, usize, usize) {
    let mem = hip
        .runtime()
        .platform()
        .mem_info(DeviceId(0))
        .map(|m| (m.total - m.free) as f64 / (1024.0 * 1024.0))
        .unwrap_or(f64::NAN);
    let pools = hip.runtime().stream_stats();
    let alive = pools.iter().map(|p| p.alive).sum();
    let idle = pools.iter().map(|p| p.idle).sum();
    let created = pools.iter().map(|p| p.created).sum();
    (mem, alive, idle, created)
}
