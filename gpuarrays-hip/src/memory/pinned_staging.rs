//! `PinnedStaging`: the page-locked host chunks that large copies between a device and
//! pageable host memory are staged through, kept per device.
//!
//! Why: a DMA engine can only reach page-locked memory, so a copy from or to an ordinary
//! `Vec` is staged through pinned buffers either way; the driver does it with one CPU thread,
//! the staged copy of [`crate::device`] (`staged_copy.rs`, where the measured why is) through
//! these chunks with several ([`super::CopyWorkers`]).
//!
//! A set (its chunks and one event per chunk) is leased by one copy at a time. At most
//! [`StagingConfig::max_sets`] exist per device. A copy that finds none free takes the
//! driver's path rather than wait: if fewer than `max_sets` exist, a new one is pinned on a
//! background thread for the copies after it (pinning costs milliseconds and locks host
//! RAM). Sets are kept once made, and freed with the device's state or by
//! [`PinnedStaging::release_idle`].

use crate::error::{HipError, Result};
use crate::platform::{DeviceId, EventHandle, Platform};
use crate::sync::Mutex;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `GPUARRAYS_HOST_STAGING`: `off`, `on`, or settings such as
/// `chunk=8M,slots=3,threads=8,min=4M,sets=2,stream=auto`.
pub const HOST_STAGING_ENV: &str = "GPUARRAYS_HOST_STAGING";

/// How large host copies are staged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagingConfig {
    /// Whether copies are staged at all (else every copy is the driver's pageable copy).
    pub enabled: bool,
    /// Copies of fewer bytes take the driver's path (default 1 MiB: from there up both
    /// directions were faster staged on the H200 machine; at 256 KiB host-to-device was
    /// 0.90–0.94× the driver's, docs/results/hip-host-copies.md).
    pub min_bytes: usize,
    /// Bytes per pinned chunk (default 8 MiB).
    pub chunk_bytes: usize,
    /// Chunks per set: how many DMAs may be in flight while the host copies (default 3).
    pub slots: usize,
    /// Host threads per copy, the caller included (default: the available parallelism, at
    /// most 8).
    pub threads: usize,
    /// Sets per device: how many threads may stage at once (default 2).
    pub max_sets: usize,
    /// When the host copies use non-temporal (streaming) stores on x86-64 (default
    /// [`Streaming::Auto`]).
    pub streaming_stores: Streaming,
}

/// Whether the host half of a staged copy writes with non-temporal (streaming) stores, which
/// send whole cache lines to memory without reading them first and without keeping them in
/// the caches (x86-64 `movntdq`; elsewhere plain copies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streaming {
    /// Never.
    Off,
    /// Always.
    On,
    /// Where they were faster on the H200 machine (calls G and H of
    /// docs/results/hip-host-copies.md, alternated runs):
    /// - host→device under 64 MiB. The destination is a pinned slot that only the DMA engine
    ///   reads. From 1 to 16 MiB these copies were 1.35–2.6× faster; at 256 MiB streaming
    ///   was 0.7× as fast.
    /// - device→host from 256 MiB. The user's buffer is then larger than the host's caches:
    ///   the 1 GiB copy took 24.5–25.9 ms against 28.9–38.1 ms, and 256 MiB was even. At
    ///   64 MiB the buffer still fits the caches, and plain stores were 1.3× faster
    ///   (1.42 against 1.89 ms); at 8–16 MiB, 1.2–1.5×.
    Auto,
}

/// [`Streaming::Auto`] streams host→device copies smaller than this.
const STREAM_TO_DEVICE_BELOW: usize = 64 << 20;
/// [`Streaming::Auto`] streams device→host copies at least this large.
const STREAM_TO_HOST_FROM: usize = 256 << 20;

impl Streaming {
    /// Whether a copy of `bytes` in this direction streams.
    pub fn applies(self, to_device: bool, bytes: usize) -> bool {
        match self {
            Streaming::Off => false,
            Streaming::On => true,
            Streaming::Auto if to_device => bytes < STREAM_TO_DEVICE_BELOW,
            Streaming::Auto => bytes >= STREAM_TO_HOST_FROM,
        }
    }
}

impl Default for StagingConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        StagingConfig {
            enabled: true,
            min_bytes: 1 << 20,
            chunk_bytes: 8 << 20,
            slots: 3,
            threads: cores.clamp(1, 8),
            max_sets: 2,
            streaming_stores: Streaming::Auto,
        }
    }
}

impl StagingConfig {
    /// The defaults, changed by a `GPUARRAYS_HOST_STAGING` value (see [`HOST_STAGING_ENV`]).
    pub fn parse(value: &str) -> Result<StagingConfig> {
        let bad = || HipError::InvalidConfig {
            var: HOST_STAGING_ENV,
            value: value.to_string(),
            expected: "off, on, or comma-separated chunk=SIZE, slots=N, threads=N, min=SIZE, \
                       sets=N, stream=auto|on|off (SIZE in bytes or with a K/M/G suffix; N ≥ 1)",
        };
        let mut c = StagingConfig::default();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.to_ascii_lowercase().as_str() {
                "on" | "1" | "true" => c.enabled = true,
                "off" | "0" | "false" => c.enabled = false,
                kv => {
                    let (key, v) = kv.split_once('=').ok_or_else(bad)?;
                    if key.trim() == "stream" {
                        c.streaming_stores = match v.trim() {
                            "on" | "1" | "true" => Streaming::On,
                            "off" | "0" | "false" => Streaming::Off,
                            "auto" => Streaming::Auto,
                            _ => return Err(bad()),
                        };
                        continue;
                    }
                    let n = parse_size(v.trim()).filter(|&n| n > 0).ok_or_else(bad)?;
                    match key.trim() {
                        "chunk" => c.chunk_bytes = n,
                        "slots" => c.slots = n,
                        "threads" => c.threads = n,
                        "min" => c.min_bytes = n,
                        "sets" => c.max_sets = n,
                        _ => return Err(bad()),
                    }
                }
            }
        }
        Ok(c)
    }

    /// Whether a copy of `bytes` is staged.
    pub fn stages(&self, bytes: usize) -> bool {
        self.enabled && bytes >= self.min_bytes
    }
}

fn parse_size(v: &str) -> Option<usize> {
    let (digits, unit) = match v.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => v.split_at(i),
        None => (v, ""),
    };
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return None,
    };
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

/// One lease's worth of staging: `slots` pinned chunks and an event per chunk.
#[derive(Debug)]
pub struct StagingSet {
    chunks: Vec<usize>,
    events: Vec<EventHandle>,
    chunk_bytes: usize,
}

impl StagingSet {
    /// Bytes per chunk.
    pub fn chunk_bytes(&self) -> usize {
        self.chunk_bytes
    }
    /// Chunk `i`'s memory, `chunk_bytes` long.
    pub fn chunk(&self, i: usize) -> *mut u8 {
        self.chunks[i] as *mut u8
    }
    /// The event recorded after chunk `i`'s last copy.
    pub fn event(&self, i: usize) -> EventHandle {
        self.events[i]
    }
    /// Number of chunks.
    pub fn slots(&self) -> usize {
        self.chunks.len()
    }
}

#[derive(Debug, Default)]
struct Sets {
    idle: Vec<StagingSet>,
    /// Sets that exist (idle, leased, or being made).
    live: usize,
    /// A set is being made in the background.
    making: bool,
    /// After a failed attempt, no background attempt before this.
    retry_after: Option<Instant>,
}

/// How long after a failed attempt to pin a set the next background attempt may start.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The staging sets of one device.
#[derive(Debug)]
pub struct PinnedStaging {
    platform: Arc<dyn Platform>,
    device: DeviceId,
    config: StagingConfig,
    sets: Mutex<Sets>,
}

impl PinnedStaging {
    /// No sets yet; they are made when staged copies first ask for one.
    pub fn new(platform: Arc<dyn Platform>, device: DeviceId, config: StagingConfig) -> Self {
        PinnedStaging {
            platform,
            device,
            config,
            sets: Mutex::new(Sets::default()),
        }
    }

    /// The settings.
    pub fn config(&self) -> &StagingConfig {
        &self.config
    }

    /// A free set, or `None`: the copy then takes the driver's path.
    ///
    /// When every set is leased and fewer than `max_sets` exist, a new set is pinned on a
    /// background thread and this copy does not wait for it. Pinning a set of 3 × 8 MiB took
    /// 10.9–20.1 ms on the H200 machine (docs/results/hip-host-copies.md), as long
    /// as the driver's copy of about 100–300 MiB, so waiting would make the first copies of a
    /// short program slower than no staging at all. [`PinnedStaging::prepare`] pins one up
    /// front instead.
    pub fn lease(self: &Arc<Self>) -> Option<StagingSet> {
        let mut sets = self.sets.lock();
        if let Some(set) = sets.idle.pop() {
            return Some(set);
        }
        let backing_off = sets.retry_after.is_some_and(|t| Instant::now() < t);
        if sets.live >= self.config.max_sets || sets.making || backing_off {
            return None;
        }
        sets.live += 1;
        sets.making = true;
        drop(sets);
        let this = self.clone();
        let spawned = std::thread::Builder::new()
            .name("gpuarrays-pin".into())
            .spawn(move || {
                if let Err(e) = this.settle(this.make(), true) {
                    tracing::debug!(device = %this.device, error = %e, "no pinned staging set; copies use the driver's pageable copy");
                }
            });
        if let Err(e) = spawned {
            let mut sets = self.sets.lock();
            sets.making = false;
            sets.live -= 1;
            tracing::debug!(device = %self.device, error = %e, "no thread to pin a staging set");
        }
        None
    }

    /// Make sure a set is pinned, so the next staged copy need not take the driver's path:
    /// waits for one being made in the background, or pins one now (if fewer than
    /// `max_sets` exist). Returns the error of a failed attempt.
    pub fn prepare(&self) -> Result<()> {
        loop {
            {
                let mut sets = self.sets.lock();
                if !sets.idle.is_empty() || (sets.live >= self.config.max_sets && !sets.making) {
                    return Ok(());
                }
                if !sets.making {
                    sets.live += 1;
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        self.settle(self.make(), false)
    }

    /// Record the outcome of making a set that `live` already counts: keep it idle, or
    /// uncount it (and, for a background attempt, back off before the next one).
    fn settle(&self, made: Result<StagingSet>, in_background: bool) -> Result<()> {
        let mut sets = self.sets.lock();
        if in_background {
            sets.making = false;
        }
        match made {
            Ok(set) => {
                sets.idle.push(set);
                Ok(())
            }
            Err(e) => {
                sets.live -= 1;
                if in_background {
                    sets.retry_after = Some(Instant::now() + RETRY_AFTER);
                }
                Err(e)
            }
        }
    }

    /// Give a set back after every copy that used it has completed.
    pub fn give_back(&self, set: StagingSet) {
        self.sets.lock().idle.push(set);
    }

    /// Forget a set that a failed stream may still write into: it is never reused or freed
    /// (freeing memory a DMA still targets would corrupt whatever reuses it). Only after an
    /// error that left the stream unable to synchronise.
    pub fn abandon(&self, set: StagingSet) {
        tracing::warn!(device = %self.device, bytes = set.chunk_bytes * set.slots(), "a pinned staging set is abandoned after a failed copy (its memory stays locked until exit)");
        self.sets.lock().live -= 1;
        std::mem::forget(set);
    }

    /// Free the idle sets; returns the bytes of pinned memory released.
    pub fn release_idle(&self) -> usize {
        let idle = {
            let mut sets = self.sets.lock();
            sets.live -= sets.idle.len();
            std::mem::take(&mut sets.idle)
        };
        idle.into_iter().map(|s| self.free(s)).sum()
    }

    fn make(&self) -> Result<StagingSet> {
        let mut set = StagingSet {
            chunks: Vec::with_capacity(self.config.slots),
            events: Vec::with_capacity(self.config.slots),
            chunk_bytes: self.config.chunk_bytes,
        };
        for _ in 0..self.config.slots.max(1) {
            let made = self
                .platform
                .host_alloc_pinned(self.device, self.config.chunk_bytes)
                .and_then(|chunk| {
                    set.chunks.push(chunk as usize);
                    self.platform.create_event(self.device)
                });
            match made {
                Ok(event) => set.events.push(event),
                Err(e) => {
                    self.free(set);
                    return Err(e);
                }
            }
        }
        Ok(set)
    }

    /// Free a set's chunks and events (none is in use); returns its bytes.
    fn free(&self, set: StagingSet) -> usize {
        let bytes = set.chunk_bytes * set.chunks.len();
        for &chunk in &set.chunks {
            // SAFETY: each chunk came from host_alloc_pinned and is freed once here; the set
            // is idle, so no copy using it is queued.
            if let Err(e) = unsafe {
                self.platform
                    .host_free_pinned(self.device, chunk as *mut u8)
            } {
                tracing::warn!(device = %self.device, error = %e, "freeing a pinned staging chunk failed");
            }
        }
        for &event in &set.events {
            if let Err(e) = self.platform.destroy_event(event) {
                tracing::warn!(device = %self.device, error = %e, "destroying a staging event failed");
            }
        }
        bytes
    }
}

impl Drop for PinnedStaging {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.sets.get_mut().idle);
        for set in idle {
            self.free(set);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_bad_values_say_what_is_expected() {
        let c = StagingConfig::parse("chunk=16M, slots=4,threads=12,min=1m,sets=3").unwrap();
        assert_eq!(
            (c.chunk_bytes, c.slots, c.threads, c.min_bytes, c.max_sets),
            (16 << 20, 4, 12, 1 << 20, 3)
        );
        assert!(c.enabled);
        assert!(!StagingConfig::parse("off").unwrap().enabled);
        assert_eq!(
            StagingConfig::parse("stream=on").unwrap().streaming_stores,
            Streaming::On
        );
        assert_eq!(
            StagingConfig::parse("stream=off").unwrap().streaming_stores,
            Streaming::Off
        );
        let auto = StagingConfig::default().streaming_stores;
        assert!(auto.applies(true, 1 << 20) && !auto.applies(true, 64 << 20));
        assert!(!auto.applies(false, 64 << 20) && auto.applies(false, 256 << 20));
        assert_eq!(
            StagingConfig::parse("chunk=65536").unwrap().chunk_bytes,
            65536
        );
        assert_eq!(StagingConfig::parse("min=2G").unwrap().min_bytes, 2 << 30);
        for bad in [
            "chunk=0",
            "slots=-1",
            "chunk=8X",
            "speed=3",
            "fast",
            "stream=fast",
        ] {
            let e = StagingConfig::parse(bad).unwrap_err().to_string();
            assert!(
                e.contains(HOST_STAGING_ENV) && e.contains("chunk=SIZE"),
                "{bad}: {e}"
            );
        }
        let c = StagingConfig::default();
        assert!(c.stages(c.min_bytes) && !c.stages(c.min_bytes - 1));
    }
}
