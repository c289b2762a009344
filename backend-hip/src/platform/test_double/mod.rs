//! `FakePlatform`: a **test double** of the platform layer. In-process, device memory is host
//! memory, kernels do not run, and faults can be injected: slow or failing stream creation,
//! streams in an error state, streams destroyed behind the pool's back, out-of-memory, and
//! "busy" work that completes only when the test says so or after a number of queries.
//!
//! It exists so that CI (no GPU) exercises the host-side logic above the platform layer; the
//! same tests run against the real platform where a GPU is present.

mod blas;
mod state;

pub use state::{Completion, FakeOp};

use super::{
    BlasHandle, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DeviceProperties,
    DevicePtr, EventHandle, FunctionHandle, GemmStridedBatched, GraphExecHandle, GraphHandle,
    LaunchConfig, MemInfo, ModuleHandle, Platform, PlatformKind, PriorityRange, StreamHandle,
    WorkStatus, codes,
};
use crate::error::{HipError, Result};
use parking_lot::{Condvar, Mutex};
use state::{FakeAlloc, FakeEvent, FakeStream, State, StreamLife, Work};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Shape of the simulated machine.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// Number of devices.
    pub devices: usize,
    /// Device memory per device, in bytes (allocations beyond it fail with out-of-memory).
    pub memory_per_device: usize,
    /// Reported warp size.
    pub warp_size: u32,
    /// Reported architecture.
    pub arch: String,
    /// Stream priority range.
    pub priority_range: PriorityRange,
    /// Reject enqueue operations from a thread not bound to the stream's device (as real
    /// contexts would), to catch multi-device mistakes.
    pub strict_binding: bool,
    /// How long a synchronize waits for manual work before failing instead of deadlocking.
    pub sync_timeout: Duration,
    /// Whether the simulated BLAS library is installed (`false`: `blas_create` fails with
    /// `LibraryNotFound`, as on a machine without cuBLAS/rocBLAS).
    pub blas_available: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            devices: 1,
            memory_per_device: 1 << 30,
            warp_size: 32,
            arch: "fake_arch".into(),
            priority_range: PriorityRange {
                least: 0,
                greatest: -5,
            },
            strict_binding: true,
            sync_timeout: Duration::from_secs(10),
            blas_available: true,
        }
    }
}

#[derive(Debug, Default)]
struct Faults {
    create_delay: Duration,
    fail_creations: u32,
    fail_allocs: u32,
}

/// Counters of what the double has seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeStats {
    /// Streams created.
    pub streams_created: usize,
    /// Streams destroyed through `destroy_stream`.
    pub streams_destroyed: usize,
    /// Streams that exist (created, not destroyed, not destroyed behind the pool's back).
    pub streams_alive: usize,
    /// Largest number of `create_stream` calls running at once.
    pub max_concurrent_creations: usize,
    /// `query_stream` calls.
    pub stream_queries: usize,
    /// `destroy_stream` calls on a handle that did not exist (double destroys).
    pub invalid_destroys: usize,
    /// `free_async` calls on an address that was not allocated (double frees).
    pub invalid_frees: usize,
}

/// The test double. See the module documentation.
#[derive(Debug)]
pub struct FakePlatform {
    config: FakeConfig,
    state: Mutex<State>,
    changed: Condvar,
    faults: Mutex<Faults>,
    creating: AtomicUsize,
    max_creating: AtomicUsize,
    queries: AtomicUsize,
    created: AtomicUsize,
    destroyed: AtomicUsize,
    invalid_destroys: AtomicUsize,
    invalid_frees: AtomicUsize,
}

fn api(call: &'static str, code: i32, message: &str) -> HipError {
    HipError::Api {
        platform: PlatformKind::TestDouble,
        call,
        code,
        name: format!("fake error {code}"),
        message: message.to_string(),
    }
}

impl Default for FakePlatform {
    fn default() -> Self {
        Self::new(FakeConfig::default())
    }
}

impl FakePlatform {
    /// A double with the given machine shape.
    pub fn new(config: FakeConfig) -> Self {
        FakePlatform {
            config,
            state: Mutex::new(State {
                next_addr: 0x7f00_0000_0000,
                ..State::default()
            }),
            changed: Condvar::new(),
            faults: Mutex::new(Faults::default()),
            creating: AtomicUsize::new(0),
            max_creating: AtomicUsize::new(0),
            queries: AtomicUsize::new(0),
            created: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
            invalid_destroys: AtomicUsize::new(0),
            invalid_frees: AtomicUsize::new(0),
        }
    }

    // ---- fault injection ----

    /// Every stream creation sleeps this long first (outside any lock of the double).
    pub fn set_stream_creation_delay(&self, delay: Duration) {
        self.faults.lock().create_delay = delay;
    }
    /// The next `n` stream creations fail.
    pub fn fail_next_stream_creations(&self, n: u32) {
        self.faults.lock().fail_creations = n;
    }
    /// The next `n` allocations fail with out-of-memory.
    pub fn fail_next_allocs(&self, n: u32) {
        self.faults.lock().fail_allocs = n;
    }
    /// Put a stream into an error state (as after a failed kernel).
    pub fn set_stream_error(&self, stream: StreamHandle, code: i32) {
        if let Some(s) = self.state.lock().streams.get_mut(&stream.0) {
            s.life = StreamLife::Errored(code);
        }
    }
    /// Destroy a stream behind the pool's back: it stops existing, queries report an invalid
    /// handle, and a later `destroy_stream` of it counts as an invalid destroy.
    pub fn destroy_behind_back(&self, stream: StreamHandle) {
        if let Some(s) = self.state.lock().streams.get_mut(&stream.0) {
            s.life = StreamLife::Gone;
        }
    }
    /// Queue work on `stream` that completes as `completion` says. Returns its id.
    pub fn hold(&self, stream: StreamHandle, completion: Completion) -> u64 {
        let mut st = self.state.lock();
        let id = st.handle();
        st.work.insert(
            id,
            Work {
                completion,
                done: false,
            },
        );
        if let Some(s) = st.streams.get_mut(&stream.0) {
            s.pending.push(id);
        }
        id
    }
    /// Complete held work.
    pub fn complete(&self, work: u64) {
        if let Some(w) = self.state.lock().work.get_mut(&work) {
            w.done = true;
        }
        self.changed.notify_all();
    }
    /// Complete all held work.
    pub fn complete_all(&self) {
        for w in self.state.lock().work.values_mut() {
            w.done = true;
        }
        self.changed.notify_all();
    }

    // ---- inspection ----

    /// Counters.
    pub fn stats(&self) -> FakeStats {
        let st = self.state.lock();
        let alive = st
            .streams
            .values()
            .filter(|s| s.life != StreamLife::Gone)
            .count();
        FakeStats {
            streams_created: self.created.load(Ordering::SeqCst),
            streams_destroyed: self.destroyed.load(Ordering::SeqCst),
            streams_alive: alive,
            max_concurrent_creations: self.max_creating.load(Ordering::SeqCst),
            stream_queries: self.queries.load(Ordering::SeqCst),
            invalid_destroys: self.invalid_destroys.load(Ordering::SeqCst),
            invalid_frees: self.invalid_frees.load(Ordering::SeqCst),
        }
    }
    /// The stream-ordered operations seen so far (not those captured into graphs).
    pub fn log(&self) -> Vec<FakeOp> {
        self.state.lock().log.clone()
    }
    /// The operations captured into a graph.
    pub fn graph_ops(&self, graph: GraphHandle) -> Vec<FakeOp> {
        self.state
            .lock()
            .graphs
            .get(&graph.0)
            .cloned()
            .unwrap_or_default()
    }
    /// The numeric priority a stream was created with.
    pub fn stream_priority(&self, stream: StreamHandle) -> Option<i32> {
        self.state.lock().streams.get(&stream.0).map(|s| s.priority)
    }
    /// Bytes currently allocated on `device`.
    pub fn allocated_bytes(&self, device: DeviceId) -> usize {
        self.state.lock().used.get(&device).copied().unwrap_or(0)
    }
    /// Whether `ptr` is a live allocation.
    pub fn is_allocated(&self, ptr: DevicePtr) -> bool {
        self.state.lock().allocs.contains_key(&ptr.0)
    }

    fn check_device(&self, device: DeviceId) -> Result<()> {
        if device.0 < self.config.devices {
            Ok(())
        } else {
            Err(HipError::InvalidDevice {
                platform: PlatformKind::TestDouble,
                device,
                count: self.config.devices,
            })
        }
    }

    /// Check that the stream takes work and that this thread is bound to its device.
    fn enqueue_check(&self, st: &State, call: &'static str, stream: StreamHandle) -> Result<()> {
        let device = st
            .usable(stream)
            .map_err(|code| api(call, code, "stream is unusable"))?;
        if self.config.strict_binding {
            let bound = st.bound.get(&std::thread::current().id()).copied();
            if bound != Some(device) {
                return Err(api(
                    call,
                    codes::INVALID_HANDLE,
                    &format!("thread bound to {bound:?}, stream belongs to device {device}"),
                ));
            }
        }
        Ok(())
    }

    fn wait_for(&self, call: &'static str, ids: Vec<u64>) -> Result<()> {
        let mut st = self.state.lock();
        st.finish_automatic(&ids);
        let deadline = std::time::Instant::now() + self.config.sync_timeout;
        while !st.all_done(&ids) {
            if self.changed.wait_until(&mut st, deadline).timed_out() {
                return Err(HipError::TestDouble(format!(
                    "{call}: held work was not completed within {:?} (would deadlock)",
                    self.config.sync_timeout
                )));
            }
        }
        Ok(())
    }

    fn access(&self, st: &mut State, ptr: DevicePtr, bytes: usize) -> Result<(u64, usize)> {
        let (&base, alloc) = st
            .allocs
            .range(..=ptr.0)
            .next_back()
            .ok_or_else(|| api("memory access", codes::ILLEGAL_ADDRESS, "no allocation"))?;
        let off = (ptr.0 - base) as usize;
        if off + bytes > alloc.data.len() {
            return Err(api(
                "memory access",
                codes::ILLEGAL_ADDRESS,
                "out of bounds",
            ));
        }
        Ok((base, off))
    }
}

mod platform_impl;
