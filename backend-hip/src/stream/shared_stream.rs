//! `Stream`: a shared handle to one platform stream, with its generation and state.

use super::StreamPriority;
use crate::error::{HipError, Result};
use crate::platform::{
    CaptureMode, DeviceId, GraphHandle, Platform, StreamHandle, WorkStatus, codes,
};
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};

/// Where a stream came from, which decides who destroys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Owned by a [`super::StreamPool`]; destroyed when the pool retires it and the last
    /// reference goes.
    Pooled,
    /// Created explicitly by the user; never pooled; destroyed when the last reference goes.
    Explicit,
    /// A raw handle we did not create; never destroyed by us.
    Borrowed,
}

const VALID: u8 = 0;
const UNUSABLE: u8 = 1;
const DESTROYED: u8 = 2;

pub(crate) struct StreamInner {
    pub handle: StreamHandle,
    pub device: DeviceId,
    pub priority: Option<StreamPriority>,
    pub origin: Origin,
    pub runtime_id: u64,
    generation: AtomicU64,
    state: AtomicU8,
    /// Held by anyone enqueueing on a stream they do not own, and by `begin_capture`, so a
    /// foreign enqueue never lands inside a capture started through this API.
    foreign: Mutex<()>,
    capturing: AtomicBool,
    pub platform: Arc<dyn Platform>,
    /// The owning pool's "alive" counter, decremented when the stream is destroyed.
    pub alive: Option<Arc<AtomicUsize>>,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if let Some(alive) = &self.alive {
            alive.fetch_sub(1, Ordering::Relaxed);
        }
        if self.origin == Origin::Borrowed || self.state.load(Ordering::Acquire) == DESTROYED {
            return;
        }
        if let Err(e) = self.platform.destroy_stream(self.handle) {
            tracing::debug!(stream = %self.handle, error = %e, "destroying stream failed");
        }
    }
}

/// A shared handle to one platform stream. Cloning is cheap; the stream is destroyed when the
/// last clone of an explicit stream goes, or when its pool retires a pooled one and the last
/// clone goes (records such as [`super::LastUse`] keep the handle valid until then).
#[derive(Clone)]
pub struct Stream(pub(crate) Arc<StreamInner>);

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("handle", &self.0.handle)
            .field("device", &self.0.device)
            .field("origin", &self.0.origin)
            .field("generation", &self.generation())
            .finish()
    }
}

impl Stream {
    pub(crate) fn new(
        platform: Arc<dyn Platform>,
        handle: StreamHandle,
        device: DeviceId,
        priority: Option<StreamPriority>,
        origin: Origin,
        runtime_id: u64,
        alive: Option<Arc<AtomicUsize>>,
    ) -> Stream {
        Stream(Arc::new(StreamInner {
            handle,
            device,
            priority,
            origin,
            runtime_id,
            generation: AtomicU64::new(1),
            state: AtomicU8::new(VALID),
            foreign: Mutex::new(()),
            capturing: AtomicBool::new(false),
            platform,
            alive,
        }))
    }

    /// The raw platform handle.
    pub fn handle(&self) -> StreamHandle {
        self.0.handle
    }
    /// The device the stream belongs to.
    pub fn device(&self) -> DeviceId {
        self.0.device
    }
    /// The pool priority (None for a borrowed raw handle).
    pub fn priority(&self) -> Option<StreamPriority> {
        self.0.priority
    }
    /// Bumped each time a pooled stream changes hands (goes to another thread).
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }
    /// Whether the stream belongs to a pool (a thread's default or priority stream).
    pub fn is_pooled(&self) -> bool {
        self.0.origin == Origin::Pooled
    }
    /// Whether two values are the same stream object.
    pub fn same_as(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// Whether the stream was destroyed (through [`Stream::destroy`] or behind our back).
    pub fn is_destroyed(&self) -> bool {
        self.0.state.load(Ordering::Acquire) == DESTROYED
    }
    /// Whether the stream is usable (not destroyed, no error seen).
    pub fn is_valid(&self) -> bool {
        self.0.state.load(Ordering::Acquire) == VALID
    }

    /// Whether all queued work completed. An error marks the stream unusable.
    pub fn query(&self) -> WorkStatus {
        if !self.is_valid() {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        }
        let status = self.0.platform.query_stream(self.0.handle);
        if let WorkStatus::Error(code) = status {
            self.mark_failed(code);
        }
        status
    }

    /// Block until all queued work completed.
    pub fn synchronize(&self) -> Result<()> {
        self.check_valid()?;
        self.0.platform.synchronize_stream(self.0.handle)
    }

    /// Wait for this stream's work, then destroy it now. A pooled stream is dropped from its
    /// pool; its generation is bumped so that records of it know the work has completed.
    pub fn destroy(self) -> Result<()> {
        if self.0.origin == Origin::Borrowed {
            return Err(HipError::InvalidArgument(
                "a borrowed raw stream handle is destroyed by whoever created it".into(),
            ));
        }
        let _guard = self.0.foreign.lock();
        if self.0.state.swap(DESTROYED, Ordering::AcqRel) == DESTROYED {
            return Ok(());
        }
        let sync = self.0.platform.synchronize_stream(self.0.handle);
        self.0.generation.fetch_add(1, Ordering::AcqRel);
        self.0.platform.destroy_stream(self.0.handle)?;
        sync
    }

    /// Begin a graph capture on this stream (work enqueued on it is recorded, not run).
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        self.check_valid()?;
        let _guard = self.0.foreign.lock();
        self.0.platform.begin_capture(self.0.handle, mode)?;
        self.0.capturing.store(true, Ordering::Release);
        Ok(())
    }

    /// End the capture and return the graph.
    pub fn end_capture(&self) -> Result<GraphHandle> {
        let _guard = self.0.foreign.lock();
        let graph = self.0.platform.end_capture(self.0.handle);
        self.0.capturing.store(false, Ordering::Release);
        graph
    }

    /// Whether the stream is capturing (through this API or behind its back).
    pub fn is_capturing(&self) -> Result<bool> {
        if self.0.capturing.load(Ordering::Acquire) {
            return Ok(true);
        }
        self.0.platform.is_capturing(self.0.handle)
    }

    /// Enqueue `f` on a stream the caller does not own. Runs `f` only if the generation still
    /// equals `expected` (when given) and the stream is not capturing; returns `Ok(None)` when
    /// the stream changed hands in the meantime.
    pub(crate) fn enqueue_foreign<R>(
        &self,
        expected: Option<u64>,
        what: &'static str,
        f: impl FnOnce(StreamHandle) -> Result<R>,
    ) -> Result<Option<R>> {
        let _guard = self.0.foreign.lock();
        if expected.is_some_and(|g| g != self.generation()) || !self.is_valid() {
            return Ok(None);
        }
        if self.is_capturing()? {
            return Err(HipError::StreamCapturing {
                stream: self.0.handle.0,
                what,
            });
        }
        self.0.platform.bind_device(self.0.device)?;
        f(self.0.handle).map(Some)
    }

    pub(crate) fn check_valid(&self) -> Result<()> {
        match self.0.state.load(Ordering::Acquire) {
            VALID => Ok(()),
            s => Err(HipError::StreamUnusable {
                device: self.0.device,
                stream: self.0.handle.0,
                reason: if s == DESTROYED {
                    "it was destroyed".into()
                } else {
                    "it reported an error".into()
                },
            }),
        }
    }

    /// Record that a query failed: destroyed behind our back, or in an error state.
    pub(crate) fn mark_failed(&self, code: i32) {
        let gone = code == codes::INVALID_HANDLE || code == codes::CONTEXT_IS_DESTROYED;
        let new = if gone { DESTROYED } else { UNUSABLE };
        let _ = self
            .0
            .state
            .compare_exchange(VALID, new, Ordering::AcqRel, Ordering::Acquire);
        tracing::warn!(stream = %self.0.handle, device = %self.0.device, code, gone,
            "stream is unusable; it will not be handed out again");
    }

    /// Hand the stream to a new owner.
    pub(crate) fn bump_generation(&self) {
        self.0.generation.fetch_add(1, Ordering::AcqRel);
    }
}
