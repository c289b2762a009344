//! What the test double records: the stream-ordered operations it saw (the log tests inspect,
//! and the content of captured graphs), how a piece of work completes, and its records of
//! each stream, piece of work, event, BLAS handle, allocation and instantiated graph
//! ([`super::state::State`] holds them by handle).

use super::race::Clock;
use crate::platform::{
    BlasHandle, BlasMath, BlasType, CaptureMode, CommHandle, DeviceId, DevicePtr, EventHandle,
    StreamHandle,
};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How a piece of work completes once it may start (the work before it on its stream, and
/// any event it waits for, have completed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// When the test calls [`super::FakePlatform::complete`] (or a synchronize waits for it).
    Manual,
    /// After the stream has been queried this many more times (or at a synchronize).
    AfterQueries(u32),
    /// This long after it started.
    After(Duration),
}

/// A stream-ordered operation the double saw, in order, with the `stream` it was enqueued
/// on. Operations enqueued on a capturing stream go into the graph instead of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeOp {
    /// `alloc_async`, which returned `ptr`.
    Alloc {
        stream: StreamHandle,
        ptr: DevicePtr,
    },
    /// `free_async`.
    Free {
        stream: StreamHandle,
        ptr: DevicePtr,
    },
    /// `record_event`.
    Record {
        stream: StreamHandle,
        event: EventHandle,
    },
    /// `stream_wait_event`.
    Wait {
        stream: StreamHandle,
        event: EventHandle,
    },
    /// A copy or memset.
    Copy { stream: StreamHandle },
    /// `launch_kernel`.
    Launch { stream: StreamHandle },
    /// `fft_execute` of `plan`.
    Fft { stream: StreamHandle, plan: u64 },
    /// `blas_gemm` with `handle`, of `dtype` elements, at the precision `math` asked for.
    Gemm {
        stream: StreamHandle,
        handle: BlasHandle,
        dtype: BlasType,
        math: BlasMath,
    },
    /// `launch_graph`.
    LaunchGraph { stream: StreamHandle },
    /// `copy_peer_async` (a copy between the memory of two devices, or within one).
    PeerCopy { stream: StreamHandle },
    /// `collective` of the communicator `comm`.
    Collective {
        stream: StreamHandle,
        comm: CommHandle,
    },
}

impl FakeOp {
    /// The stream the operation was enqueued on.
    pub fn stream(&self) -> StreamHandle {
        match self {
            FakeOp::Alloc { stream, .. }
            | FakeOp::Free { stream, .. }
            | FakeOp::Record { stream, .. }
            | FakeOp::Wait { stream, .. }
            | FakeOp::Copy { stream }
            | FakeOp::Launch { stream }
            | FakeOp::Fft { stream, .. }
            | FakeOp::Gemm { stream, .. }
            | FakeOp::LaunchGraph { stream }
            | FakeOp::PeerCopy { stream }
            | FakeOp::Collective { stream, .. } => *stream,
        }
    }
}

#[derive(Debug)]
pub(super) struct Capture {
    pub ops: Vec<FakeOp>,
    pub mode: CaptureMode,
    pub thread: std::thread::ThreadId,
    /// Why the capture was invalidated (ending it then fails), if it was.
    pub invalidated: Option<&'static str>,
}

#[derive(Debug)]
pub(super) struct FakeStream {
    /// Never reused (handle values are): the key of clocks and work.
    pub uid: u64,
    pub handle: u64,
    pub device: DeviceId,
    pub priority: i32,
    /// The error a test put the stream in ([`super::FakePlatform::set_stream_error`]).
    pub error: Option<i32>,
    /// Work not yet completed, oldest first.
    pub pending: VecDeque<u64>,
    /// When the last completed piece of work completed.
    pub last_done_at: Instant,
    pub capture: Option<Capture>,
    /// Operations enqueued so far (the race detector's sequence numbers).
    pub seq: u64,
    /// What is known to precede the stream's next operation.
    pub clock: Clock,
}

#[derive(Debug)]
pub(super) struct Work {
    pub stream: u64,
    pub completion: Completion,
    /// Manual work the test released.
    pub released: bool,
    pub enqueued: Instant,
    /// Work on another stream that must complete first (an event wait): (stream uid, work id).
    pub dep: Option<(u64, u64)>,
}

#[derive(Debug, Default)]
pub(super) struct FakeEvent {
    pub device: DeviceId,
    /// The work whose completion the last record marks (None: nothing was pending).
    pub waits_for: Option<(u64, u64)>,
    /// What preceded the last record (for the race detector).
    pub clock: Clock,
    /// Created with timing; the host time of its last record.
    pub timing: bool,
    pub recorded_at: Option<Instant>,
}

/// A BLAS handle of the double.
#[derive(Debug)]
pub(super) struct FakeBlas {
    pub device: DeviceId,
    /// Device memory it holds (its workspace), counted in the device's use.
    pub bytes: usize,
}

#[derive(Debug)]
pub(super) struct FakeAlloc {
    pub device: DeviceId,
    pub data: Vec<u8>,
    /// Allocated inside a graph capture: a graph allocation. Work outside the graph may touch
    /// it only once `graph_ran` (as on a device, where its memory exists only from the
    /// graph's launch until it is freed).
    pub in_graph: bool,
    /// Its graph has run and did not free it: it is live outside the graph until freed.
    pub graph_ran: bool,
}

/// An instantiated graph.
#[derive(Debug)]
pub(super) struct FakeExec {
    pub ops: Vec<FakeOp>,
    /// The allocations its last launch made and left unfreed (it may not be launched again
    /// while one of them is still allocated).
    pub left_unfreed: Vec<u64>,
}

/// What became of an operation handed to [`super::state::State::enqueue_after`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Queued {
    /// It went into the stream's capture.
    Captured,
    /// It completed at once (instant work with nothing before it), or there is no such
    /// stream.
    Completed,
    /// It is the piece of work with this id, not yet completed.
    Pending(u64),
}
