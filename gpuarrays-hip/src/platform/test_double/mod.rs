//! `FakePlatform`: a **test double** of the platform layer that behaves like a GPU where it
//! matters to the runtime above it. In-process; device memory is host memory; copies and
//! memsets move real bytes, kernels do not compute.
//!
//! Like a GPU:
//! - work takes time: kernels and copies take [`FakeConfig::kernel_time`] /
//!   [`FakeConfig::copy_time`] once the work before them on their stream has completed, and
//!   tests can queue work that completes when they say ([`FakePlatform::hold`]);
//! - an event wait makes the waiting stream busy until the event's work has completed;
//! - stream handle values are reused after a stream is destroyed (as the CUDA driver does);
//! - enqueueing from a thread not bound to the stream's device fails (as real contexts do);
//! - graph capture rules: synchronising the device, or a stream that is capturing, and host
//!   copies on a capturing stream fail and invalidate the capture, as on CUDA/HIP;
//! - graph memory as CUDA's stream-ordered allocator has it (`work_impl.rs`), and a capture
//!   begun in global or thread-local mode is ended only by the thread that began it;
//! - a race detector (`race`) flags a write or free of memory not ordered after another
//!   stream's use that may still be in flight ([`FakePlatform::races`]);
//! - copies to and from page-locked host memory ([`Platform::host_alloc_pinned`]) complete
//!   when their work does, and misuses are flagged ([`FakePlatform::pinned_violations`];
//!   `pinned.rs` says how);
//! - peer copies between devices, direct or (access not enabled) staged through the host
//!   ([`FakePlatform::peer_enabled`], [`FakeStats::staged_peer_copies`]), and a collective
//!   library whose collectives complete only once every rank has enqueued its part
//!   (`collectives.rs` and `collective_ops.rs` say how).
//!
//! Faults to inject: slow or failing stream creation, streams in an error state, streams
//! destroyed behind the pool's back, out-of-memory (device or pinned host memory; FFT plans
//! and BLAS handles hold device memory of their own), failing event records, gated kernel
//! compilation (to hold a thread between ordering an operation and enqueueing it).
//!
//! It exists so that CI (no GPU) exercises the host-side logic above the platform layer; the
//! same tests run against the real platform where a GPU is present.

mod blas;
mod collective_ops;
mod collective_records;
mod collectives;
mod faults;
mod fft;
mod multi_device;
mod pinned;
mod platform_impl;
pub(crate) mod race;
mod records;
mod state;
mod work_impl;

pub use fft::FakeFftStats;
pub use pinned::PINNED_FILL;

pub use state::{Completion, FakeOp};

use super::{
    CaptureMode, DeviceId, DevicePtr, EventHandle, GraphExecHandle, GraphHandle, Platform,
    PlatformKind, StreamHandle, codes,
};
use crate::error::{HipError, Result};
use parking_lot::{Condvar, Mutex};
use state::{FakeAlloc, FakeEvent, Queued, State};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a host wait (a synchronize, a held compilation) waits for work a test holds before
/// failing instead of deadlocking.
const SYNC_TIMEOUT: Duration = Duration::from_secs(10);

/// Shape of the simulated machine.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// Number of devices.
    pub devices: usize,
    /// Device memory per device, in bytes (allocations beyond it fail with out-of-memory).
    pub memory_per_device: usize,
    /// How long a kernel runs once it may start (zero: completes at once).
    pub kernel_time: Duration,
    /// How long a copy or memset runs once it may start.
    pub copy_time: Duration,
    /// Run the race detector ([`FakePlatform::races`]).
    pub detect_races: bool,
    /// Keep the log of operations ([`FakePlatform::log`]); long soak runs turn it off.
    pub keep_log: bool,
    /// Whether the simulated BLAS library is installed (`false`: `blas_create` fails with
    /// `LibraryNotFound`, as on a machine without cuBLAS/rocBLAS).
    pub blas_available: bool,
    /// Whether every pair of distinct devices reaches each other's memory directly (NVLink or
    /// PCIe peer-to-peer). `false`: [`crate::platform::PeerAccess::can_access_peer`] says no
    /// and `enable_peer_access` fails as the driver's "peer access unsupported" does; peer
    /// copies still work, staged through the host ([`FakeStats::staged_peer_copies`]).
    pub peer_access: bool,
    /// Whether the simulated collective library (NCCL/RCCL) is installed (`false`: every
    /// [`crate::platform::CollectiveLibrary`] method fails with `LibraryNotFound`, as on a
    /// machine without NCCL/RCCL).
    pub collectives_available: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            devices: 1,
            memory_per_device: 1 << 30,
            kernel_time: Duration::ZERO,
            copy_time: Duration::ZERO,
            detect_races: true,
            keep_log: true,
            blas_available: true,
            peer_access: true,
            collectives_available: true,
        }
    }
}

/// Counters of what the double has seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeStats {
    /// Streams destroyed through `destroy_stream`.
    pub streams_destroyed: usize,
    /// Largest number of `create_stream` calls running at once.
    pub max_concurrent_creations: usize,
    /// `query_stream` calls.
    pub stream_queries: usize,
    /// `destroy_stream` calls on a handle that did not exist (double destroys).
    pub invalid_destroys: usize,
    /// `synchronize_device` calls.
    pub device_synchronizations: usize,
    /// Captures invalidated by an operation not permitted during them.
    pub invalidated_captures: usize,
    /// `instantiate_graph` calls that made an executable graph.
    pub graph_instantiations: usize,
    /// `update_graph_exec` calls that updated an executable graph in place.
    pub graph_updates: usize,
    /// `enable_peer_access` calls that enabled an ordered pair of devices not enabled before
    /// (enabling a pair again does not count).
    pub peer_enables: usize,
    /// `copy_peer_async` calls between two devices where the stream's device had not enabled
    /// access to the other device's memory: the copy went through the host (the slow path).
    pub staged_peer_copies: usize,
    /// Collective operations completed: one per group operation whose parts agreed (every
    /// rank's part of one all-reduce, …, or one matched send/receive pair); parts that
    /// disagree fail instead and are not counted.
    pub collectives_completed: usize,
}

/// The test double. See the module documentation.
#[derive(Debug)]
pub struct FakePlatform {
    config: FakeConfig,
    state: Mutex<State>,
    /// Notified when held work is released (a synchronize may be waiting for it).
    changed: Condvar,
    /// Whether compilations are held ([`FakePlatform::hold_compiles`]), and its signal.
    compile_gate: (Mutex<bool>, Condvar),
    compiling: AtomicUsize,
    creating: AtomicUsize,
    fft: Mutex<fft::FakeFft>,
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

/// `call` named a handle the double does not know (`what`: "stream", "event", …).
fn no_such(call: &'static str, what: &str) -> HipError {
    api(call, codes::INVALID_HANDLE, &format!("no such {what}"))
}

/// `Ok` if `call` found the record to remove (`removed`), else "no such `what`".
fn removed<T>(removed: Option<T>, call: &'static str, what: &str) -> Result<()> {
    removed.map(drop).ok_or_else(|| no_such(call, what))
}

impl Default for FakePlatform {
    fn default() -> Self {
        Self::new(FakeConfig::default())
    }
}

impl FakePlatform {
    /// A double with the given machine shape.
    pub fn new(config: FakeConfig) -> Self {
        let mut state = State {
            next_addr: 0x7f00_0000_0000,
            keep_log: config.keep_log,
            memory_per_device: config.memory_per_device,
            ..State::default()
        };
        state.races.enabled = config.detect_races;
        FakePlatform {
            config,
            state: Mutex::new(state),
            changed: Condvar::new(),
            compile_gate: Default::default(),
            compiling: AtomicUsize::new(0),
            creating: AtomicUsize::new(0),
            fft: Mutex::new(fft::FakeFft::default()),
        }
    }

    // ---- inspection ----

    /// Counters.
    pub fn stats(&self) -> FakeStats {
        self.state.lock().stats.clone()
    }
    /// The races the detector found so far (empty when every use was ordered). Each entry
    /// names the allocation, the two operations and their streams.
    pub fn races(&self) -> Vec<String> {
        self.state.lock().races.races()
    }
    /// The stream-ordered operations seen so far (not those captured into graphs).
    pub fn log(&self) -> Vec<FakeOp> {
        self.state.lock().log.clone()
    }
    /// The operations captured into a graph.
    pub fn graph_ops(&self, graph: GraphHandle) -> Vec<FakeOp> {
        let st = self.state.lock();
        st.graphs.get(&graph.0).cloned().unwrap_or_default()
    }
    /// The numeric priority a stream was created with.
    pub fn stream_priority(&self, stream: StreamHandle) -> Option<i32> {
        self.state.lock().stream(stream).map(|s| s.priority)
    }
    /// Bytes currently allocated on `device`.
    pub fn allocated_bytes(&self, device: DeviceId) -> usize {
        self.state.lock().used.get(&device).copied().unwrap_or(0)
    }
    /// Whether `ptr` is a live allocation.
    pub fn is_allocated(&self, ptr: DevicePtr) -> bool {
        self.state.lock().allocs.contains_key(&ptr.0)
    }

    // ---- checks and helpers shared by the operations ----

    fn check_device(&self, device: DeviceId) -> Result<()> {
        if device.0 < self.config.devices {
            return Ok(());
        }
        Err(HipError::InvalidDevice {
            platform: PlatformKind::TestDouble,
            device,
            count: self.config.devices,
        })
    }

    /// Check that the stream takes work and that this thread is bound to its device; returns
    /// the device.
    fn enqueue_check(
        &self,
        st: &State,
        call: &'static str,
        stream: StreamHandle,
    ) -> Result<DeviceId> {
        let device = st
            .usable(stream)
            .map_err(|code| api(call, code, "stream is unusable"))?;
        let bound = st.bound.get(&std::thread::current().id()).copied();
        if bound != Some(device) {
            return Err(api(
                call,
                codes::INVALID_HANDLE,
                &format!("thread bound to {bound:?}, stream belongs to device {device}"),
            ));
        }
        Ok(device)
    }

    /// Block until every piece of work in `ids` (stream uid, work id) has completed.
    fn wait_for(&self, call: &'static str, ids: Vec<(u64, u64)>) -> Result<()> {
        let mut st = self.state.lock();
        st.finish_query_counted(&ids);
        let deadline = Instant::now() + SYNC_TIMEOUT;
        while !ids.iter().all(|&w| st.is_done(w)) {
            let now = Instant::now();
            if now >= deadline {
                return Err(HipError::TestDouble(format!(
                    "{call}: held work was not completed within {SYNC_TIMEOUT:?} (would deadlock)"
                )));
            }
            // Sleep until the next timed work may complete, or a test releases held work.
            let next = st.next_deadline().unwrap_or(now + Duration::from_millis(1));
            let next = next.clamp(
                now + Duration::from_micros(50),
                now + Duration::from_millis(5),
            );
            self.changed.wait_until(&mut st, next.min(deadline));
        }
        Ok(())
    }

    /// Wait until the work queued so far on the streams `uids` has completed; the host has then
    /// seen it complete.
    fn wait_streams(&self, call: &'static str, uids: Vec<u64>) -> Result<()> {
        let marks: Vec<_> = {
            let st = self.state.lock();
            let streams = uids.iter().filter_map(|uid| st.streams.get(uid));
            streams
                .map(|s| (s.uid, s.seq, s.pending.back().copied()))
                .collect()
        };
        let work = marks
            .iter()
            .filter_map(|&(uid, _, last)| Some((uid, last?)));
        self.wait_for(call, work.collect())?;
        let mut st = self.state.lock();
        for (uid, seq, _) in marks {
            st.settle(uid, false);
            st.races.observe(uid, seq);
        }
        Ok(())
    }

    /// The allocation holding `bytes` at `ptr`: its base address and the offset of `ptr`.
    fn access(&self, st: &mut State, ptr: DevicePtr, bytes: usize) -> Result<(u64, usize)> {
        let illegal = |why| api("memory access", codes::ILLEGAL_ADDRESS, why);
        let (&base, alloc) = st
            .allocs
            .range(..=ptr.0)
            .next_back()
            .ok_or_else(|| illegal("no allocation"))?;
        let off = (ptr.0 - base) as usize;
        if off + bytes > alloc.data.len() {
            return Err(illegal("out of bounds"));
        }
        Ok((base, off))
    }

    /// [`FakePlatform::access`] by an operation enqueued on `stream`, which fails as on a
    /// device if the memory is a graph allocation not live outside its graph (its graph has
    /// not run, or freed it) and the operation is not captured into a graph itself.
    fn access_on(
        &self,
        st: &mut State,
        stream: StreamHandle,
        ptr: DevicePtr,
        bytes: usize,
    ) -> Result<(u64, usize)> {
        let (base, off) = self.access(st, ptr, bytes)?;
        let a = &st.allocs[&base];
        if a.in_graph && !a.graph_ran && !st.capturing(stream) {
            return Err(api(
                "memory access",
                codes::ILLEGAL_ADDRESS,
                &format!(
                    "{ptr} lies in memory allocated inside a graph capture, used outside \
                     the graph before the graph ran (or after it freed it)"
                ),
            ));
        }
        Ok((base, off))
    }

    /// Tell the race detector that the operation just enqueued on `stream` touches the
    /// allocation at `base`.
    fn note(
        &self,
        st: &mut State,
        stream: StreamHandle,
        base: u64,
        write: bool,
        what: &'static str,
    ) {
        if let Some(s) = st
            .handles
            .get(&stream.0)
            .and_then(|uid| st.streams.get(uid))
        {
            st.races
                .access(s.uid, stream.0, s.seq, &s.clock, base, write, what);
        }
    }

    /// The allocation holding `addr`, if any.
    fn allocation_of(st: &State, addr: u64) -> Option<u64> {
        let (&base, a) = st.allocs.range(..=addr).next_back()?;
        (addr < base + a.data.len().max(1) as u64).then_some(base)
    }
}
