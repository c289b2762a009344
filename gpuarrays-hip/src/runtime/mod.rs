//! `HipRuntime`: one platform plus per-device state, and its configuration
//! ([`RuntimeConfig`], with the [`KernelPolicy`]), the one place the crate reads its
//! environment variables ([`config`]; the list is there).

pub mod config;
pub mod peer_links;
pub mod policy;

pub use config::{
    DEFAULT_FFT_PLAN_LIMITS, FFT_PLAN_CACHE_ENV, KERNEL_CACHE_ENV, MAX_IDLE_STREAMS_ENV,
    RuntimeConfig, STREAM_POOL_ENV, parse_fft_plan_limits,
};
pub use peer_links::{PeerLinks, PeerRoute};
pub use policy::KernelPolicy;

use crate::device::{DeviceSetup, DeviceState};
use crate::error::{HipError, Result};
use crate::platform::{DeviceId, Platform, StreamHandle, select_platform};
use crate::stream::{Origin, Stream, StreamPoolStats, StreamPriority, StreamRegistry};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One platform and the state of each of its devices.
pub struct HipRuntime {
    id: u64,
    platform: Arc<dyn Platform>,
    config: RuntimeConfig,
    registry: Arc<StreamRegistry>,
    devices: Vec<Arc<DeviceState>>,
    peers: PeerLinks,
}

impl std::fmt::Debug for HipRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HipRuntime")
            .field("platform", &self.platform.kind())
            .field("devices", &self.devices)
            .finish_non_exhaustive()
    }
}

impl HipRuntime {
    /// A runtime over `platform` with every device's state set up.
    pub fn new(platform: Arc<dyn Platform>, config: RuntimeConfig) -> Result<Arc<HipRuntime>> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let count = platform.device_count()?;
        if count == 0 {
            return Err(HipError::NoDevice {
                platform: platform.kind(),
            });
        }
        let registry = Arc::new(StreamRegistry::default());
        let devices = (0..count)
            .map(|d| {
                DeviceState::new(DeviceSetup {
                    platform: platform.clone(),
                    registry: registry.clone(),
                    runtime_id: id,
                    id: DeviceId(d),
                    max_idle_streams: config.max_idle_streams,
                    pooling: config.pooling,
                    max_cached_bytes: config.max_cached_bytes,
                    staging: config.staging,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(HipRuntime {
            id,
            platform,
            config,
            registry,
            devices,
            peers: PeerLinks::default(),
        }))
    }

    /// How work on `device` reaches `peer`'s memory (directly or through the host), decided
    /// and enabled the first time the pair is asked for ([`PeerLinks`]).
    pub fn peer_route(&self, device: DeviceId, peer: DeviceId) -> PeerRoute {
        self.peers.route(&*self.platform, device, peer)
    }

    /// The platform chosen by `GPUARRAYS_HIP_PLATFORM` (or automatically), configured from
    /// the environment.
    pub fn from_env() -> Result<Arc<HipRuntime>> {
        HipRuntime::new(select_platform()?, RuntimeConfig::from_env()?)
    }

    /// The process-wide runtime, created from the environment at first success (a failure is
    /// returned and retried on the next call, never cached).
    pub fn global() -> Result<Arc<HipRuntime>> {
        static GLOBAL: parking_lot::Mutex<Option<Arc<HipRuntime>>> = parking_lot::Mutex::new(None);
        let mut g = GLOBAL.lock();
        if let Some(rt) = g.as_ref() {
            return Ok(rt.clone());
        }
        let rt = HipRuntime::from_env()?;
        *g = Some(rt.clone());
        Ok(rt)
    }

    /// The platform.
    pub fn platform(&self) -> &Arc<dyn Platform> {
        &self.platform
    }
    /// The configuration.
    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }
    /// Number of devices.
    pub fn device_count(&self) -> usize {
        self.devices.len()
    }
    /// The state of one device.
    pub fn device(&self, device: DeviceId) -> Result<&Arc<DeviceState>> {
        self.devices.get(device.0).ok_or(HipError::InvalidDevice {
            platform: self.platform.kind(),
            device,
            count: self.devices.len(),
        })
    }

    /// The calling thread's stream on `device` (see [`DeviceState::thread_stream`]).
    pub fn stream(&self, device: DeviceId) -> Result<Stream> {
        self.device(device)?.thread_stream()
    }

    /// Create an explicit stream: never pooled, destroyed when its last clone goes. Use it
    /// for work handed between threads.
    pub fn create_stream(&self, device: DeviceId, priority: StreamPriority) -> Result<Stream> {
        let d = self.device(device)?;
        let handle = self
            .platform
            .create_stream(device, priority.numeric(d.priority_range()))?;
        Ok(Stream::new(
            self.platform.clone(),
            handle,
            device,
            Some(priority),
            Origin::Explicit,
            self.id,
            None,
        ))
    }

    /// Wrap a raw stream handle. The raw handle of a pooled stream gives the pool's object
    /// (so the wrapper sees recycling); any other handle gives a borrowed stream that this
    /// crate never destroys.
    pub fn wrap_stream(&self, device: DeviceId, raw: StreamHandle) -> Result<Stream> {
        self.device(device)?;
        if let Some(s) = self.registry.lookup(raw) {
            return Ok(s);
        }
        Ok(Stream::new(
            self.platform.clone(),
            raw,
            device,
            None,
            Origin::Borrowed,
            self.id,
            None,
        ))
    }

    /// Change the idle-stream cap of every pool.
    pub fn set_max_idle_streams(&self, max: usize) {
        for d in &self.devices {
            for p in d.pools() {
                p.set_max_idle(max);
            }
        }
    }

    /// Counters of every stream pool.
    pub fn stream_stats(&self) -> Vec<StreamPoolStats> {
        self.devices
            .iter()
            .flat_map(|d| d.pools().iter().map(|p| p.stats()))
            .collect()
    }
}
