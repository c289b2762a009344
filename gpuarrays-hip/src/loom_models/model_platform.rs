//! `ModelPlatform`: the smallest platform the models need, on loom's lock, with the test
//! double's race detector.
//!
//! Work never completes by itself: a stream with work enqueued since its last synchronize
//! is busy, an event is complete once the host synchronised past its record. So the models
//! explore the host side (interleavings of threads) against the most pessimistic device,
//! and the race detector flags any access not ordered after another stream's conflicting
//! access by device-side waits or host observation.

use crate::error::{HipError, Result};
use crate::platform::test_double::race::{Clock, RaceDetector};
use crate::platform::{
    BlasHandle, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DeviceProperties,
    DevicePtr, EventHandle, FftPlanDesc, FftPlanHandle, FftPlanInfo, FunctionHandle,
    GemmStridedBatched, GraphExecHandle, GraphHandle, LaunchConfig, MemInfo, ModuleHandle,
    Platform, PlatformKind, PriorityRange, StreamHandle, WorkStatus, codes,
};
use crate::platform::{
    BlasLibrary, CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, FftLibrary,
    GraphCapture, KernelModules, PeerAccess,
};
use crate::sync::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;

mod model_work;

#[derive(Default)]
struct MStream {
    uid: u64,
    seq: u64,
    clock: Clock,
    busy: bool,
}

#[derive(Default)]
struct MEvent {
    clock: Clock,
    recorded: Option<(u64, u64)>,
}

#[derive(Default)]
struct State {
    next: u64,
    streams: HashMap<u64, MStream>,
    events: HashMap<u64, MEvent>,
    allocs: BTreeMap<u64, usize>,
    races: RaceDetector,
}

impl State {
    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next * 0x100
    }

    /// One operation on `stream`: its sequence number and clock after it.
    fn op(&mut self, stream: StreamHandle) -> Result<(u64, u64, Clock)> {
        let host = self.races.host_clock().clone();
        let s = self
            .streams
            .get_mut(&stream.0)
            .ok_or_else(|| HipError::TestDouble(format!("model: no stream {stream}")))?;
        s.seq += 1;
        s.clock.set(s.uid, s.seq);
        s.clock.join(&host);
        s.busy = true;
        Ok((s.uid, s.seq, s.clock.clone()))
    }

    fn touch(
        &mut self,
        stream: StreamHandle,
        ptr: DevicePtr,
        write: bool,
        what: &'static str,
    ) -> Result<()> {
        let (uid, seq, clock) = self.op(stream)?;
        let base = self
            .allocs
            .range(..=ptr.0)
            .next_back()
            .map(|(b, _)| *b)
            .ok_or_else(|| HipError::TestDouble(format!("model: {what} of unallocated {ptr}")))?;
        self.races
            .access(uid, stream.0, seq, &clock, base, write, what);
        Ok(())
    }
}

/// See the module documentation.
pub(crate) struct ModelPlatform {
    state: Mutex<State>,
}

impl std::fmt::Debug for ModelPlatform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModelPlatform")
    }
}

impl ModelPlatform {
    pub fn new() -> ModelPlatform {
        let mut state = State::default();
        state.races.enabled = true;
        ModelPlatform {
            state: Mutex::new(state),
        }
    }

    /// A kernel on `stream` that reads (or writes) the allocation holding `ptr`.
    pub fn kernel(&self, stream: &crate::Stream, ptr: DevicePtr, write: bool) -> Result<()> {
        self.state
            .lock()
            .touch(stream.handle(), ptr, write, "kernel")
    }

    /// Work on `stream` that touches no buffer (it keeps the stream busy).
    pub fn work(&self, stream: &crate::Stream) -> Result<()> {
        self.state.lock().op(stream.handle()).map(drop)
    }

    /// Whether `stream` has work its last synchronize did not cover.
    pub fn is_busy(&self, stream: StreamHandle) -> bool {
        self.state
            .lock()
            .streams
            .get(&stream.0)
            .is_some_and(|s| s.busy)
    }

    /// The races found.
    pub fn races(&self) -> Vec<String> {
        self.state.lock().races.races()
    }
}

fn not_modelled(what: &str) -> HipError {
    HipError::TestDouble(format!("model platform: {what} is not modelled"))
}

impl Platform for ModelPlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::TestDouble
    }
    fn device_count(&self) -> Result<usize> {
        Ok(1)
    }
    fn device_properties(&self, _device: DeviceId) -> Result<DeviceProperties> {
        Ok(DeviceProperties {
            name: "model".into(),
            arch: "model".into(),
            warp_size: 32,
            multiprocessor_count: 1,
            total_memory: 1 << 30,
            max_threads_per_block: 1024,
            max_shared_memory_per_block: 48 << 10,
        })
    }
    fn bind_device(&self, _device: DeviceId) -> Result<()> {
        Ok(())
    }
    fn mem_info(&self, _device: DeviceId) -> Result<MemInfo> {
        Ok(MemInfo {
            free: 1 << 30,
            total: 1 << 30,
        })
    }
    fn synchronize_device(&self, _device: DeviceId) -> Result<()> {
        let mut st = self.state.lock();
        let seen: Vec<(u64, u64)> = st.streams.values().map(|s| (s.uid, s.seq)).collect();
        for s in st.streams.values_mut() {
            s.busy = false;
        }
        for (uid, seq) in seen {
            st.races.observe(uid, seq);
        }
        Ok(())
    }
    fn stream_priority_range(&self, _device: DeviceId) -> Result<PriorityRange> {
        Ok(PriorityRange {
            least: 0,
            greatest: -1,
        })
    }
    fn create_stream(&self, _device: DeviceId, _priority: i32) -> Result<StreamHandle> {
        let mut st = self.state.lock();
        let h = st.id();
        st.streams.insert(
            h,
            MStream {
                uid: h,
                ..MStream::default()
            },
        );
        Ok(StreamHandle(h))
    }
    fn destroy_stream(&self, stream: StreamHandle) -> Result<()> {
        match self.state.lock().streams.remove(&stream.0) {
            Some(_) => Ok(()),
            None => Err(HipError::TestDouble(format!(
                "model: destroy of {stream}, which does not exist (a double destroy)"
            ))),
        }
    }
    fn query_stream(&self, stream: StreamHandle) -> WorkStatus {
        let mut st = self.state.lock();
        let Some(s) = st.streams.get(&stream.0) else {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        };
        if s.busy {
            return WorkStatus::Busy;
        }
        let (uid, seq) = (s.uid, s.seq);
        st.races.observe(uid, seq);
        WorkStatus::Ready
    }
    fn synchronize_stream(&self, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        let s = st
            .streams
            .get_mut(&stream.0)
            .ok_or_else(|| HipError::TestDouble(format!("model: no stream {stream}")))?;
        s.busy = false;
        let (uid, seq) = (s.uid, s.seq);
        st.races.observe(uid, seq);
        Ok(())
    }
    fn create_event(&self, _device: DeviceId) -> Result<EventHandle> {
        let mut st = self.state.lock();
        let h = st.id();
        st.events.insert(h, MEvent::default());
        Ok(EventHandle(h))
    }
    fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        let s = st
            .streams
            .get(&stream.0)
            .ok_or_else(|| HipError::TestDouble(format!("model: no stream {stream}")))?;
        let (clock, at) = (s.clock.clone(), (s.uid, s.seq));
        let e = st
            .events
            .get_mut(&event.0)
            .ok_or_else(|| HipError::TestDouble(format!("model: no event {event}")))?;
        e.clock = clock;
        e.recorded = Some(at);
        Ok(())
    }
    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        let mut st = self.state.lock();
        let clock = st
            .events
            .get(&event.0)
            .map(|e| e.clock.clone())
            .ok_or_else(|| HipError::TestDouble(format!("model: no event {event}")))?;
        st.op(stream)?;
        if let Some(s) = st.streams.get_mut(&stream.0) {
            s.clock.join(&clock);
        }
        Ok(())
    }
    fn query_event(&self, event: EventHandle) -> WorkStatus {
        let mut st = self.state.lock();
        let Some(e) = st.events.get(&event.0) else {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        };
        let done = match e.recorded {
            None => true,
            Some((uid, seq)) => st.races.host_clock().get(uid) >= seq,
        };
        if done {
            let clock = e.clock.clone();
            st.races.observe_clock(&clock);
            WorkStatus::Ready
        } else {
            WorkStatus::Busy
        }
    }
    fn synchronize_event(&self, event: EventHandle) -> Result<()> {
        let mut st = self.state.lock();
        let clock = st
            .events
            .get(&event.0)
            .map(|e| e.clock.clone())
            .ok_or_else(|| HipError::TestDouble(format!("model: no event {event}")))?;
        st.races.observe_clock(&clock);
        Ok(())
    }
    fn destroy_event(&self, event: EventHandle) -> Result<()> {
        self.state.lock().events.remove(&event.0);
        Ok(())
    }
    fn alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr> {
        let mut st = self.state.lock();
        let base = 0x7f00_0000_0000 + st.id() * 0x1_0000;
        st.allocs.insert(base, bytes);
        st.touch(stream, DevicePtr(base), true, "allocation")?;
        Ok(DevicePtr(base))
    }
    fn free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        st.touch(stream, ptr, true, "free")?;
        st.races.forget(ptr.0);
        st.allocs.remove(&ptr.0);
        Ok(())
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        _src: *const c_void,
        _bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        self.state.lock().touch(stream, dst, true, "copy")
    }
    unsafe fn copy_dtoh_async(
        &self,
        _dst: *mut c_void,
        src: DevicePtr,
        _bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        self.state.lock().touch(stream, src, false, "copy")
    }
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        _bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        st.touch(stream, src, false, "copy")?;
        st.touch(stream, dst, true, "copy")
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        _value: u8,
        _bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        self.state.lock().touch(stream, dst, true, "memset")
    }
    fn host_alloc_pinned(&self, _device: DeviceId, _bytes: usize) -> Result<*mut u8> {
        Err(not_modelled("pinned host memory"))
    }
    unsafe fn host_free_pinned(&self, _device: DeviceId, _ptr: *mut u8) -> Result<()> {
        Err(not_modelled("pinned host memory"))
    }
    fn create_timing_event(&self, _device: DeviceId) -> Result<EventHandle> {
        Err(not_modelled("timing events"))
    }
    fn event_elapsed_ms(&self, _start: EventHandle, _end: EventHandle) -> Result<f32> {
        Err(not_modelled("timing events"))
    }
}
