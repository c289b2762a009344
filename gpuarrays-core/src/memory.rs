//! Memory statistics and a memory limit, one API on every backend.
//!
//! A backend counts the bytes its live buffers hold with a [`MemoryTracker`] (arrays and the
//! backend's own temporaries alike, since both come and go through its allocator) and says
//! how much it keeps cached for reuse; [`Backend::memory_stats`](crate::Backend::memory_stats)
//! puts them together. The numbers answer what users of PyTorch's
//! `torch.cuda.memory_allocated` / `max_memory_allocated` / `memory_reserved` and CuPy's
//! memory pool ask: how much do my arrays hold, how much did they hold at most, how much
//! does the allocator keep, and can I cap it.
//!
//! The limit caps the bytes in use: an allocation that would pass it is
//! [`Error::OutOfMemory`] with a hint naming the limit, before the device is asked. It is a
//! per-device budget for cooperative programs (a test that must fit a smaller card, two
//! models sharing one GPU), not a security boundary.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Error;

/// A device's memory at one moment. Every backend of this repository tracks its memory;
/// a backend that does not reports zeros and `tracked == false`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Whether the backend counts its memory (false: every number below is 0 or `None`).
    pub tracked: bool,
    /// Bytes held by live buffers: arrays and the backend's temporaries. Allocators round
    /// requests up (to a size class, a multiple of 4): this counts what they reserved.
    pub in_use_bytes: usize,
    /// The largest `in_use_bytes` since the backend was created or
    /// [`reset_peak_memory`](crate::Backend::reset_peak_memory) was called.
    pub peak_bytes: usize,
    /// Bytes of freed buffers the backend keeps for reuse (released by
    /// [`empty_cache`](crate::Backend::empty_cache)).
    pub cached_bytes: usize,
    /// The cap on `in_use_bytes` set by
    /// [`set_memory_limit`](crate::Backend::set_memory_limit), if any.
    pub limit_bytes: Option<usize>,
}

impl std::fmt::Display for MemoryStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.tracked {
            return write!(f, "not tracked by this backend");
        }
        write!(
            f,
            "{} in use, {} peak, {} cached, limit {}",
            bytes(self.in_use_bytes),
            bytes(self.peak_bytes),
            bytes(self.cached_bytes),
            self.limit_bytes.map_or_else(|| "none".into(), bytes)
        )
    }
}

/// `n` bytes in the largest binary unit that keeps a number ≥ 1.
fn bytes(n: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// No limit.
const UNLIMITED: usize = usize::MAX;

/// Counters of the bytes a backend's live buffers hold, their peak, and the limit. Lock-free:
/// one compare-exchange per allocation, one subtraction per release.
#[derive(Debug)]
pub struct MemoryTracker {
    in_use: AtomicUsize,
    peak: AtomicUsize,
    limit: AtomicUsize,
}

impl Default for MemoryTracker {
    fn default() -> Self {
        Self::new()
    }
}

/// An allocation the limit refused: what was asked, what was in use, the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitExceeded {
    pub requested: usize,
    pub in_use: usize,
    pub limit: usize,
}

impl LimitExceeded {
    /// The out-of-memory error for device `device`, with a hint that names the limit.
    pub fn to_error(self, device: impl Into<String>) -> Error {
        Error::OutOfMemory {
            device: device.into(),
            requested: Some(self.requested),
            free: Some(self.limit.saturating_sub(self.in_use)),
            hint: Some(format!(
                "the memory limit of this device is {} bytes and {} are in use \
                 (set_memory_limit): raise or remove the limit, or free arrays",
                self.limit, self.in_use
            )),
        }
    }
}

impl MemoryTracker {
    /// Nothing in use, no limit.
    pub const fn new() -> Self {
        MemoryTracker {
            in_use: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: AtomicUsize::new(UNLIMITED),
        }
    }

    /// Counts `bytes` more in use, unless that would pass the limit (then nothing changes).
    pub fn reserve(&self, bytes: usize) -> Result<(), LimitExceeded> {
        let limit = self.limit.load(Ordering::Relaxed);
        let mut now = self.in_use.load(Ordering::Relaxed);
        loop {
            let next = now.saturating_add(bytes);
            if next > limit {
                return Err(LimitExceeded {
                    requested: bytes,
                    in_use: now,
                    limit,
                });
            }
            match self
                .in_use
                .compare_exchange_weak(now, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return Ok(());
                }
                Err(seen) => now = seen,
            }
        }
    }

    /// Counts `bytes` fewer in use (saturating: a release never underflows).
    pub fn release(&self, bytes: usize) {
        let _ = self
            .in_use
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_sub(bytes))
            });
    }

    /// Bytes in use now.
    pub fn in_use(&self) -> usize {
        self.in_use.load(Ordering::Relaxed)
    }

    /// Sets (`Some`) or removes (`None`) the limit. Buffers already allocated stay: a limit
    /// below the bytes in use refuses every allocation until enough are freed.
    pub fn set_limit(&self, limit: Option<usize>) {
        self.limit
            .store(limit.unwrap_or(UNLIMITED), Ordering::Relaxed);
    }

    /// The limit, if one is set.
    pub fn limit(&self) -> Option<usize> {
        Some(self.limit.load(Ordering::Relaxed)).filter(|&l| l != UNLIMITED)
    }

    /// Starts the peak again from the bytes in use now.
    pub fn reset_peak(&self) {
        self.peak.store(self.in_use(), Ordering::Relaxed);
    }

    /// The statistics, with `cached_bytes` from the backend's pool.
    pub fn stats(&self, cached_bytes: usize) -> MemoryStats {
        MemoryStats {
            tracked: true,
            in_use_bytes: self.in_use(),
            peak_bytes: self.peak.load(Ordering::Relaxed),
            cached_bytes,
            limit_bytes: self.limit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_peak_and_limit() {
        let t = MemoryTracker::new();
        t.reserve(100).unwrap();
        t.reserve(50).unwrap();
        t.release(100);
        assert_eq!(t.stats(7).in_use_bytes, 50);
        assert_eq!(t.stats(7).peak_bytes, 150);
        assert_eq!(t.stats(7).cached_bytes, 7);
        t.set_limit(Some(120));
        let e = t.reserve(71).unwrap_err();
        assert_eq!((e.requested, e.in_use, e.limit), (71, 50, 120));
        assert_eq!(t.in_use(), 50, "a refused reservation counts nothing");
        t.reserve(70).unwrap();
        t.reset_peak();
        assert_eq!(t.stats(0).peak_bytes, 120);
        t.set_limit(None);
        assert_eq!(t.limit(), None);
        t.release(1000);
        assert_eq!(t.in_use(), 0, "releases saturate");
        let msg = e.to_error("cpu:0").to_string();
        assert!(msg.contains("limit") && msg.contains("120"), "{msg}");
    }

    #[test]
    fn display_is_readable() {
        let s = MemoryStats {
            tracked: true,
            in_use_bytes: 3 << 20,
            peak_bytes: 5 << 30,
            cached_bytes: 512,
            limit_bytes: None,
        };
        assert_eq!(
            s.to_string(),
            "3.0 MiB in use, 5.0 GiB peak, 512 B cached, limit none"
        );
        assert_eq!(
            MemoryStats::default().to_string(),
            "not tracked by this backend"
        );
    }
}
