//! The test double's bookkeeping: streams, queued work, events, memory, graphs, and the
//! operation log that tests inspect.

use crate::platform::{
    BlasHandle, BlasMath, BlasType, DeviceId, DevicePtr, EventHandle, FunctionHandle, StreamHandle,
    codes,
};
use std::collections::{BTreeMap, HashMap};

/// How a piece of held work completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// When the test calls [`super::FakePlatform::complete`] (or a synchronize waits for it).
    Manual,
    /// After the stream has been queried this many more times (or at a synchronize).
    AfterQueries(u32),
}

/// A stream-ordered operation the double saw, in order. Operations enqueued on a capturing
/// stream go into the graph instead of this log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeOp {
    /// `alloc_async`.
    Alloc {
        /// The stream.
        stream: StreamHandle,
        /// The address returned.
        ptr: DevicePtr,
        /// Size in bytes.
        bytes: usize,
    },
    /// `free_async`.
    Free {
        /// The stream.
        stream: StreamHandle,
        /// The address freed.
        ptr: DevicePtr,
    },
    /// `record_event`.
    Record {
        /// The stream.
        stream: StreamHandle,
        /// The event.
        event: EventHandle,
    },
    /// `stream_wait_event`.
    Wait {
        /// The waiting stream.
        stream: StreamHandle,
        /// The event waited for.
        event: EventHandle,
    },
    /// A copy or memset.
    Copy {
        /// The stream.
        stream: StreamHandle,
        /// Bytes moved.
        bytes: usize,
    },
    /// `launch_kernel`.
    Launch {
        /// The stream.
        stream: StreamHandle,
        /// The kernel.
        function: FunctionHandle,
    },
    /// `blas_gemm`.
    Gemm {
        /// The stream.
        stream: StreamHandle,
        /// The BLAS handle.
        handle: BlasHandle,
        /// The element type.
        dtype: BlasType,
        /// The precision asked for.
        math: BlasMath,
    },
    /// `launch_graph`.
    LaunchGraph {
        /// The stream.
        stream: StreamHandle,
        /// How many operations the graph holds.
        nodes: usize,
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
            | FakeOp::Copy { stream, .. }
            | FakeOp::Launch { stream, .. }
            | FakeOp::Gemm { stream, .. }
            | FakeOp::LaunchGraph { stream, .. } => *stream,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreamLife {
    Live,
    Errored(i32),
    /// Destroyed behind the pool's back (by "the user").
    Gone,
}

#[derive(Debug)]
pub(super) struct FakeStream {
    pub device: DeviceId,
    pub priority: i32,
    pub life: StreamLife,
    pub pending: Vec<u64>,
    pub capture: Option<Vec<FakeOp>>,
}

#[derive(Debug)]
pub(super) struct Work {
    pub completion: Completion,
    pub done: bool,
}

#[derive(Debug)]
pub(super) struct FakeEvent {
    pub device: DeviceId,
    pub waits_for: Vec<u64>,
    /// Created with timing; the host time of its last record.
    pub timing: bool,
    pub recorded_at: Option<std::time::Instant>,
}

/// A BLAS handle of the double.
#[derive(Debug)]
pub(super) struct FakeBlas {
    pub device: DeviceId,
    /// Products run with it.
    pub uses: usize,
}

#[derive(Debug)]
pub(super) struct FakeAlloc {
    pub device: DeviceId,
    pub data: Vec<u8>,
    /// Allocated inside a graph capture (freed by the graph itself).
    pub in_graph: bool,
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub next_handle: u64,
    pub next_addr: u64,
    pub streams: HashMap<u64, FakeStream>,
    pub work: HashMap<u64, Work>,
    pub events: HashMap<u64, FakeEvent>,
    pub allocs: BTreeMap<u64, FakeAlloc>,
    pub used: HashMap<DeviceId, usize>,
    pub modules: HashMap<u64, String>,
    pub functions: HashMap<u64, String>,
    pub graphs: HashMap<u64, Vec<FakeOp>>,
    pub execs: HashMap<u64, Vec<FakeOp>>,
    pub log: Vec<FakeOp>,
    pub bound: HashMap<std::thread::ThreadId, DeviceId>,
    pub blas: HashMap<u64, FakeBlas>,
    pub blas_created: usize,
    pub blas_destroyed: usize,
}

impl State {
    pub fn handle(&mut self) -> u64 {
        self.next_handle += 1;
        0x1000 + self.next_handle * 0x10
    }

    /// Check that `stream` can take work; returns its device.
    pub fn usable(&self, stream: StreamHandle) -> Result<DeviceId, i32> {
        match self.streams.get(&stream.0) {
            None => Err(codes::INVALID_HANDLE),
            Some(s) => match s.life {
                StreamLife::Live => Ok(s.device),
                StreamLife::Errored(code) => Err(code),
                StreamLife::Gone => Err(codes::INVALID_HANDLE),
            },
        }
    }

    /// Record an operation: into the capture if the stream captures, else into the log.
    pub fn enqueue(&mut self, op: FakeOp) -> bool {
        let stream = op.stream();
        if let Some(s) = self.streams.get_mut(&stream.0)
            && let Some(graph) = s.capture.as_mut()
        {
            graph.push(op);
            return true;
        }
        self.log.push(op);
        false
    }

    /// Drop completed work ids from a stream's pending list; count one query if asked.
    pub fn settle(&mut self, stream: u64, count_query: bool) {
        let Some(s) = self.streams.get_mut(&stream) else {
            return;
        };
        let work = &mut self.work;
        s.pending.retain(|id| {
            let Some(w) = work.get_mut(id) else {
                return false;
            };
            if count_query && let Completion::AfterQueries(n) = &mut w.completion {
                if *n <= 1 {
                    w.done = true;
                } else {
                    *n -= 1;
                }
            }
            !w.done
        });
    }

    pub fn all_done(&self, ids: &[u64]) -> bool {
        ids.iter()
            .all(|id| self.work.get(id).is_none_or(|w| w.done))
    }

    /// Complete queued work that finishes by itself (everything but manual holds).
    pub fn finish_automatic(&mut self, ids: &[u64]) {
        for id in ids {
            if let Some(w) = self.work.get_mut(id)
                && matches!(w.completion, Completion::AfterQueries(_))
            {
                w.done = true;
            }
        }
    }
}
