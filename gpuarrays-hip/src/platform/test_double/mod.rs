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
//! - graph capture rules: synchronising the device, or a stream that is capturing, and host
//!   copies on a capturing stream fail and invalidate the capture, as on CUDA/HIP;
//! - a race detector (`race`) flags a write or free of memory not ordered after another
//!   stream's use that may still be in flight ([`FakePlatform::races`]);
//! - copies to and from page-locked host memory complete when their work does (below).
//!
//! Pinned memory ([`Platform::host_alloc_pinned`]) is page-aligned memory the double owns
//! (filled with [`PINNED_FILL`]). Copies to or from pageable host memory move their bytes at
//! enqueue, as the driver's staging makes them look; copies that use pinned memory are DMAs
//! on a real GPU, so the double delivers a device-to-host copy's bytes into pinned memory
//! only when the host sees the copy's work complete (a query or synchronize covering it),
//! checks when a host-to-device copy completes that its pinned source was not overwritten
//! meanwhile, and flags freeing pinned memory a queued copy still uses
//! ([`FakePlatform::pinned_violations`]). That catches a staging pipeline that reads a slot
//! before its copy completed (it sees stale bytes) or refills or frees a slot too early.
//!
//! - graph memory as CUDA's stream-ordered allocator has it: an allocation made on a
//!   capturing stream belongs to the graph; work outside the graph may touch it only once the
//!   graph has run and not freed it (else the address is illegal), and a graph whose previous
//!   launch left allocations unfreed cannot be launched again; a capture begun in global or
//!   thread-local mode is ended only by the thread that began it.
//!
//! Faults to inject: slow or failing stream creation, streams in an error state, streams
//! destroyed behind the pool's back, out-of-memory (device or pinned host memory; FFT plans
//! and BLAS handles hold device memory of their own), failing event records, slow or gated
//! kernel compilation (to hold a thread between ordering an operation and enqueueing it).
//!
//! It exists so that CI (no GPU) exercises the host-side logic above the platform layer; the
//! same tests run against the real platform where a GPU is present.

mod blas;
mod events;
mod faults;
mod fft;
mod graphs;
mod memory_ops;
mod ops;
mod pinned;
pub(crate) mod race;
mod records;
mod state;

pub use fft::{FakeFftStats, fake_work_bytes};
pub use pinned::PINNED_FILL;

pub use state::{Completion, FakeOp};

use super::{
    BlasHandle, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DeviceProperties,
    DevicePtr, EventHandle, FftPlanDesc, FftPlanHandle, FftPlanInfo, FunctionHandle,
    GemmStridedBatched, GraphExecHandle, GraphHandle, LaunchConfig, MemInfo, ModuleHandle,
    Platform, PlatformKind, PriorityRange, StreamHandle, WorkStatus, codes,
};
use super::{BlasLibrary, FftLibrary, GraphCapture, KernelModules};
use crate::error::{HipError, Result};
use faults::Faults;
use parking_lot::{Condvar, Mutex};
use state::{Capture, FakeAlloc, FakeEvent, FakeExec, State, StreamLife};
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
    /// How long a kernel runs once it may start (zero: completes at once).
    pub kernel_time: Duration,
    /// How long a copy or memset runs once it may start.
    pub copy_time: Duration,
    /// Reuse the handle values of destroyed streams for new ones (as the CUDA driver does).
    pub reuse_stream_handles: bool,
    /// Run the race detector ([`FakePlatform::races`]).
    pub detect_races: bool,
    /// Keep the log of operations ([`FakePlatform::log`]); long soak runs turn it off.
    pub keep_log: bool,
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
            kernel_time: Duration::ZERO,
            copy_time: Duration::ZERO,
            reuse_stream_handles: true,
            detect_races: true,
            keep_log: true,
            blas_available: true,
        }
    }
}

/// A gate that holds compilations until opened.
#[derive(Debug, Default)]
struct Gate {
    closed: Mutex<bool>,
    opened: Condvar,
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
    /// `synchronize_device` calls.
    pub device_synchronizations: usize,
    /// Captures invalidated by an operation not permitted during them.
    pub invalidated_captures: usize,
}

/// The test double. See the module documentation.
#[derive(Debug)]
pub struct FakePlatform {
    config: FakeConfig,
    state: Mutex<State>,
    changed: Condvar,
    faults: Mutex<Faults>,
    gate: Gate,
    compiling: AtomicUsize,
    creating: AtomicUsize,
    max_creating: AtomicUsize,
    queries: AtomicUsize,
    created: AtomicUsize,
    destroyed: AtomicUsize,
    invalid_destroys: AtomicUsize,
    invalid_frees: AtomicUsize,
    device_syncs: AtomicUsize,
    invalidated: AtomicUsize,
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
            ..State::default()
        };
        state.races.enabled = config.detect_races;
        FakePlatform {
            config,
            state: Mutex::new(state),
            changed: Condvar::new(),
            faults: Mutex::new(Faults::default()),
            gate: Gate::default(),
            compiling: AtomicUsize::new(0),
            creating: AtomicUsize::new(0),
            max_creating: AtomicUsize::new(0),
            queries: AtomicUsize::new(0),
            created: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
            invalid_destroys: AtomicUsize::new(0),
            invalid_frees: AtomicUsize::new(0),
            device_syncs: AtomicUsize::new(0),
            invalidated: AtomicUsize::new(0),
            fft: Mutex::new(fft::FakeFft::default()),
        }
    }

    /// The machine shape.
    pub fn config(&self) -> &FakeConfig {
        &self.config
    }

    // ---- inspection ----

    /// Counters.
    pub fn stats(&self) -> FakeStats {
        let st = self.state.lock();
        FakeStats {
            streams_created: self.created.load(Ordering::SeqCst),
            streams_destroyed: self.destroyed.load(Ordering::SeqCst),
            streams_alive: st.handles.len(),
            max_concurrent_creations: self.max_creating.load(Ordering::SeqCst),
            stream_queries: self.queries.load(Ordering::SeqCst),
            invalid_destroys: self.invalid_destroys.load(Ordering::SeqCst),
            invalid_frees: self.invalid_frees.load(Ordering::SeqCst),
            device_synchronizations: self.device_syncs.load(Ordering::SeqCst),
            invalidated_captures: self.invalidated.load(Ordering::SeqCst),
        }
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
        self.state
            .lock()
            .graphs
            .get(&graph.0)
            .cloned()
            .unwrap_or_default()
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

    /// Fail (and invalidate the capture) if `stream` is capturing: `call` is not permitted
    /// during a capture.
    fn refuse_during_capture(
        &self,
        st: &mut State,
        call: &'static str,
        stream: StreamHandle,
    ) -> Result<()> {
        if st.capturing(stream) {
            st.invalidate_capture(stream, call);
            self.invalidated.fetch_add(1, Ordering::SeqCst);
            return Err(api(
                call,
                codes::STREAM_CAPTURE_UNSUPPORTED,
                "operation not permitted when stream is capturing",
            ));
        }
        Ok(())
    }

    /// Block until every piece of work in `ids` (stream uid, work id) has completed.
    fn wait_for(&self, call: &'static str, ids: Vec<(u64, u64)>) -> Result<()> {
        let mut st = self.state.lock();
        st.finish_query_counted(&ids);
        let deadline = std::time::Instant::now() + self.config.sync_timeout;
        loop {
            let mut all = true;
            for &w in &ids {
                if !st.is_done(w) {
                    all = false;
                    break;
                }
            }
            if all {
                return Ok(());
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(HipError::TestDouble(format!(
                    "{call}: held work was not completed within {:?} (would deadlock)",
                    self.config.sync_timeout
                )));
            }
            let next = st
                .next_deadline()
                .unwrap_or(now + Duration::from_millis(1))
                .clamp(now, deadline)
                .min(now + Duration::from_millis(5));
            self.changed
                .wait_until(&mut st, next.max(now + Duration::from_micros(50)));
        }
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
        let graph_only = st
            .allocs
            .get(&base)
            .is_some_and(|a| a.in_graph && !a.graph_ran);
        if graph_only && !st.capturing(stream) {
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
        let Some(s) = st.stream(stream) else {
            return;
        };
        let (uid, seq, clock) = (s.uid, s.seq, s.clock.clone());
        st.races
            .access(uid, stream.0, seq, &clock, base, write, what);
    }

    /// The allocation holding `addr`, if any.
    fn allocation_of(st: &State, addr: u64) -> Option<u64> {
        let (&base, a) = st.allocs.range(..=addr).next_back()?;
        (addr < base + a.data.len().max(1) as u64).then_some(base)
    }
}

mod platform_impl;
mod work_impl;
