//! `DeviceState`: everything the runtime keeps per device (multi-GPU: nothing is shared
//! between devices): properties, one stream pool per priority, events, the memory pool.

use super::DeviceBuffer;
use crate::error::Result;
use crate::memory::{MemoryPool, PinnedStaging, StagingConfig};
use crate::platform::{DeviceId, DeviceProperties, Platform, PriorityRange};
use crate::stream::{
    CaptureEndListener, EventPool, Stream, StreamPool, StreamPriority, StreamRegistry,
    on_capture_end, streams_to_synchronize, thread_stream,
};
use std::sync::{Arc, Weak};

/// Per-device runtime state.
pub struct DeviceState {
    id: DeviceId,
    runtime_id: u64,
    properties: DeviceProperties,
    priority_range: PriorityRange,
    platform: Arc<dyn Platform>,
    pools: [Arc<StreamPool>; 3],
    events: Arc<EventPool>,
    memory: Arc<MemoryPool>,
    /// Pinned chunks for large copies to and from pageable host memory.
    staging: Arc<PinnedStaging>,
    /// Whether the platform checks ordering (the test double): operations then declare
    /// their operands' roles to it.
    checks_ordering: bool,
}

impl std::fmt::Debug for DeviceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceState")
            .field("id", &self.id)
            .field("properties", &self.properties)
            .finish_non_exhaustive()
    }
}

/// What a device's state is built from.
pub(crate) struct DeviceSetup {
    pub platform: Arc<dyn Platform>,
    pub registry: Arc<StreamRegistry>,
    pub runtime_id: u64,
    pub id: DeviceId,
    pub max_idle_streams: usize,
    pub pooling: bool,
    pub max_cached_bytes: usize,
    pub staging: StagingConfig,
}

impl DeviceState {
    pub(crate) fn new(s: DeviceSetup) -> Result<Arc<DeviceState>> {
        let properties = s.platform.device_properties(s.id)?;
        let priority_range = s.platform.stream_priority_range(s.id)?;
        let pool = |p: StreamPriority| {
            Arc::new(StreamPool::new(
                s.platform.clone(),
                s.registry.clone(),
                s.runtime_id,
                s.id,
                p,
                p.numeric(priority_range),
                s.max_idle_streams,
                s.pooling,
            ))
        };
        let pools = StreamPriority::ALL.map(pool);
        let events = Arc::new(EventPool::new(s.platform.clone(), s.id));
        let memory = Arc::new(MemoryPool::new(
            s.platform.clone(),
            events.clone(),
            s.id,
            s.runtime_id,
            properties.total_memory,
            s.max_cached_bytes,
        ));
        // Frees that waited for a capture on this device are done when it ends.
        let listener: Weak<dyn CaptureEndListener> = Arc::downgrade(&memory) as _;
        on_capture_end(s.runtime_id, s.id, listener);
        let weak_pools: Vec<_> = pools.iter().map(Arc::downgrade).collect();
        memory.release_hooks().register(
            "idle streams",
            Arc::new(move |_device| {
                let released: usize = weak_pools
                    .iter()
                    .filter_map(|p| p.upgrade())
                    .map(|p| p.release_idle())
                    .sum();
                tracing::debug!(released, "released idle streams on memory pressure");
                0
            }),
        );
        tracing::debug!(device = %s.id, name = %properties.name, arch = %properties.arch, "device ready");
        Ok(Arc::new(DeviceState {
            checks_ordering: s.platform.checks_ordering(),
            staging: Arc::new(PinnedStaging::new(s.platform.clone(), s.id, s.staging)),
            id: s.id,
            runtime_id: s.runtime_id,
            properties,
            priority_range,
            platform: s.platform,
            pools,
            events,
            memory,
        }))
    }

    /// The device ordinal.
    pub fn id(&self) -> DeviceId {
        self.id
    }
    /// Name, arch, warp size, ...
    pub fn properties(&self) -> &DeviceProperties {
        &self.properties
    }
    /// Numeric stream priority range.
    pub fn priority_range(&self) -> PriorityRange {
        self.priority_range
    }
    /// The platform.
    pub fn platform(&self) -> &Arc<dyn Platform> {
        &self.platform
    }
    /// The stream pool of one priority.
    pub fn pool(&self, priority: StreamPriority) -> &Arc<StreamPool> {
        &self.pools[priority.index()]
    }
    /// All stream pools (Low, Normal, High).
    pub fn pools(&self) -> &[Arc<StreamPool>; 3] {
        &self.pools
    }
    /// Recycled events.
    pub fn events(&self) -> &Arc<EventPool> {
        &self.events
    }
    /// The memory pool.
    pub fn memory(&self) -> &Arc<MemoryPool> {
        &self.memory
    }

    /// The pinned staging of large host copies.
    pub fn staging(&self) -> &Arc<PinnedStaging> {
        &self.staging
    }

    /// Whether operations declare their operands' roles to the platform.
    pub(crate) fn checks_ordering(&self) -> bool {
        self.checks_ordering
    }

    /// The calling thread's stream on this device (its `with_stream` override, or its pooled
    /// stream for the current priority, taken at first use). Binds the device.
    pub fn thread_stream(&self) -> Result<Stream> {
        self.platform.bind_device(self.id)?;
        thread_stream(self.runtime_id, self.id, |p| self.pools[p.index()].clone())
    }

    /// Block until all work the calling thread enqueued on this device has completed: on its
    /// streams of every priority (also those of ended `with_priority` scopes, until they
    /// change hands), and on the explicit streams of its `with_stream` scopes (active or
    /// ended). Every stream is waited for; the first error is returned.
    pub fn synchronize_thread(&self) -> Result<()> {
        self.platform.bind_device(self.id)?;
        let mut first_error = None;
        for s in streams_to_synchronize(self.runtime_id, self.id) {
            if let Err(e) = s.synchronize() {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Allocate `bytes` on the calling thread's stream.
    pub fn alloc(self: &Arc<Self>, bytes: usize) -> Result<DeviceBuffer> {
        let stream = self.thread_stream()?;
        self.alloc_on(bytes, &stream)
    }

    /// Allocate `bytes` ordered on `stream`.
    pub fn alloc_on(self: &Arc<Self>, bytes: usize, stream: &Stream) -> Result<DeviceBuffer> {
        let a = self.memory.alloc(bytes, stream)?;
        Ok(DeviceBuffer::new(a, self.clone(), stream))
    }
}
