//! Where gpuarrays' work shows in a profiler: a `tracing` span around every call of a
//! kernel family (`kernel`, with the family and the element type) and around the operations
//! that core composes of several kernels (`op`, with its name), so `argsort` shows as one
//! range holding its elementwise, sort and gather calls.
//!
//! Spans cost a few nanoseconds when no subscriber listens (the callsite's interest is
//! cached). The facade's `profiling` module turns them into NVTX / roctx ranges for Nsight
//! Systems and rocprof; any `tracing` subscriber sees them too (target `gpuarrays::kernel`
//! and `gpuarrays::op`, level INFO).

use tracing::span::EnteredSpan;

use crate::dtype::DType;

/// Enters the span of one kernel-family call on elements of `dtype`.
#[inline]
pub(crate) fn kernel(family: &'static str, dtype: DType) -> EnteredSpan {
    tracing::info_span!(target: "gpuarrays::kernel", "kernel", family, dtype = dtype.name())
        .entered()
}

/// Enters the span of an operation composed of several kernels.
#[inline]
pub(crate) fn operation(name: &'static str) -> EnteredSpan {
    tracing::info_span!(target: "gpuarrays::op", "op", name).entered()
}

/// A profiler that shows nested named ranges on a thread's timeline (NVTX for Nsight,
/// roctx for rocprof, a recorder in tests). The facade's `profiling::RangeLayer` pushes a
/// range when a span is entered and pops it when the span is exited, so pushes and pops of
/// one thread always nest.
pub trait RangeSink: Send + Sync + 'static {
    /// A short name for diagnostics ("nvtx", "roctx").
    fn name(&self) -> &'static str;
    /// Opens a range named `label` on the calling thread.
    fn push(&self, label: &std::ffi::CStr);
    /// Closes the calling thread's innermost range.
    fn pop(&self);
}
