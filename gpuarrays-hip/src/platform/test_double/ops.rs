//! What the test double records and how its work completes: the stream-ordered operations
//! it saw (the log tests inspect, and the content of captured graphs), and the completion
//! rule of a piece of work.

use crate::platform::{
    BlasHandle, BlasMath, BlasType, DevicePtr, EventHandle, FunctionHandle, StreamHandle,
};
use std::time::Duration;

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
    /// `fft_execute`.
    Fft {
        /// The stream.
        stream: StreamHandle,
        /// The plan.
        plan: u64,
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
            | FakeOp::Fft { stream, .. }
            | FakeOp::Gemm { stream, .. }
            | FakeOp::LaunchGraph { stream, .. } => *stream,
        }
    }
}
