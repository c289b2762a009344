//! `Stream`: a shared handle to one platform stream, with its generation, its state, and who
//! may use it.
//!
//! - A pooled stream has one owner at a time ([`OwnerToken`]): the thread it was handed to.
//!   Only the owner releases it or destroys it; a `with_stream` scope on another thread
//!   cannot use it (the pool's promise: threads alive at the same time never share one).
//! - Any stream counts the `with_stream` scopes using it; [`Stream::destroy`] refuses while
//!   one is active, and a scope that starts after a destroy finds the stream unusable, so no
//!   thread enqueues on a handle that was destroyed (and perhaps reused by the driver).
//! - Identity is the object ([`Stream::same_as`]), never the raw handle value.

use super::capture::{ActiveCapture, notify_capture_end};
use super::owner::OwnerToken;
use super::{GraphRecording, StreamPriority};
use crate::error::{HipError, Result};
use crate::platform::{
    CaptureMode, DeviceId, GraphHandle, Platform, StreamHandle, WorkStatus, codes,
};
use crate::sync::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Mutex};
use std::sync::Arc;
use std::sync::atomic::Ordering;

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

/// In `StreamInner::users`: set by a successful destroy; the low bits count `with_stream`
/// scopes.
const DESTROY_BIT: u64 = 1 << 63;

pub(crate) struct StreamInner {
    pub handle: StreamHandle,
    pub device: DeviceId,
    pub priority: Option<StreamPriority>,
    pub origin: Origin,
    pub runtime_id: u64,
    generation: AtomicU64,
    state: AtomicU8,
    /// The owner token of the thread holding a pooled stream (0: the pool holds it).
    owner: AtomicU64,
    /// `with_stream` scopes using the stream, and [`DESTROY_BIT`].
    users: AtomicU64,
    /// Held by anyone enqueueing on a stream they do not own, and by `begin_capture`, so a
    /// foreign enqueue never lands inside a capture started through this API.
    foreign: Mutex<()>,
    /// Whether `capture` holds a capture (read without its lock).
    capturing: AtomicBool,
    /// The capture begun through [`Stream::begin_capture`] and not over yet.
    capture: Mutex<Option<ActiveCapture>>,
    pub platform: Arc<dyn Platform>,
    /// The owning pool's "alive" counter, decremented when the stream is destroyed.
    pub alive: Option<Arc<AtomicUsize>>,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if let Some(alive) = &self.alive {
            alive.fetch_sub(1, Ordering::Relaxed);
        }
        if let Some(capture) = self.capture.get_mut().take() {
            // Nobody can end this capture any more: end it (its graph is discarded; a capture
            // begun on another thread cannot be ended from here, which is logged), and stop
            // counting it either way — the stream it ran on is going.
            match self.platform.end_capture(self.handle) {
                Ok(graph) => {
                    if let Err(e) = self.platform.destroy_graph(graph) {
                        tracing::debug!(stream = %self.handle, error = %e, "destroying the graph of an abandoned capture failed");
                    }
                }
                Err(e) => {
                    tracing::warn!(stream = %self.handle, error = %e, "a stream was dropped while capturing and its capture could not be ended")
                }
            }
            drop(capture);
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
/// clone goes (records such as [`super::Use`] keep the handle valid until then).
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
            owner: AtomicU64::new(0),
            users: AtomicU64::new(0),
            foreign: Mutex::new(()),
            capturing: AtomicBool::new(false),
            capture: Mutex::new(None),
            platform,
            alive,
        }))
    }

    /// The raw platform handle.
    #[inline]
    pub fn handle(&self) -> StreamHandle {
        self.0.handle
    }
    /// The device the stream belongs to.
    #[inline]
    pub fn device(&self) -> DeviceId {
        self.0.device
    }
    /// The pool priority (None for a borrowed raw handle).
    pub fn priority(&self) -> Option<StreamPriority> {
        self.0.priority
    }
    /// Bumped each time a pooled stream changes hands (goes to another thread).
    #[inline]
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }
    /// Whether the stream belongs to a pool (a thread's default or priority stream).
    pub fn is_pooled(&self) -> bool {
        self.0.origin == Origin::Pooled
    }
    /// Whether two values are the same stream object.
    #[inline]
    pub fn same_as(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// Whether the stream was destroyed (through [`Stream::destroy`] or behind our back).
    pub fn is_destroyed(&self) -> bool {
        self.0.state.load(Ordering::Acquire) == DESTROYED
    }
    /// Whether the stream is usable (not destroyed, no error seen).
    #[inline]
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
        if self.0.capturing.load(Ordering::Acquire) {
            // The platform would end the capture as invalid: refuse before it can.
            return Err(HipError::StreamCapturing {
                stream: self.0.handle.0,
                what: "a synchronisation",
            });
        }
        self.0.platform.synchronize_stream(self.0.handle)
    }

    /// Wait for this stream's work, then destroy it now. A pooled stream is dropped from its
    /// pool; its generation is bumped so that records of it know the work has completed.
    ///
    /// Refused (an error, nothing destroyed) for a borrowed raw handle (its creator destroys
    /// it), for a pooled stream held by another thread or idle in its pool (it belongs to
    /// them), for any stream a `with_stream` scope is using, and for a stream capturing a
    /// graph begun through [`Stream::begin_capture`] (end the capture first).
    pub fn destroy(self) -> Result<()> {
        if self.0.origin == Origin::Borrowed {
            return Err(HipError::InvalidArgument(
                "a borrowed raw stream handle is destroyed by whoever created it".into(),
            ));
        }
        if self.0.origin == Origin::Pooled {
            let me = OwnerToken::current().map_or(0, OwnerToken::get);
            if self.0.owner.load(Ordering::Acquire) != me {
                return Err(HipError::InvalidArgument(
                    "this pooled stream belongs to another thread (or to the pool): only the \
                     thread holding it may destroy it; create an explicit stream \
                     (HipRuntime::create_stream) to share or destroy one"
                        .into(),
                ));
            }
        }
        let _guard = self.0.foreign.lock();
        if self.0.capturing.load(Ordering::Acquire) {
            return Err(HipError::InvalidArgument(format!(
                "stream {:#x} is capturing a graph: end the capture (Stream::end_capture) before \
                 destroying the stream",
                self.0.handle.0
            )));
        }
        if let Err(users) =
            self.0
                .users
                .compare_exchange(0, DESTROY_BIT, Ordering::AcqRel, Ordering::Acquire)
        {
            if users & DESTROY_BIT != 0 {
                return Ok(());
            }
            return Err(HipError::InvalidArgument(format!(
                "the stream is in use by {users} with_stream scope(s); destroy it after they end"
            )));
        }
        if self.0.state.swap(DESTROYED, Ordering::AcqRel) == DESTROYED {
            return Ok(());
        }
        let sync = self.0.platform.synchronize_stream(self.0.handle);
        self.0.generation.fetch_add(1, Ordering::AcqRel);
        self.0.platform.destroy_stream(self.0.handle)?;
        sync
    }

    /// Begin a graph capture on this stream (work enqueued on it is recorded, not run).
    /// While it runs, nothing in this crate synchronises the device; it counts as running
    /// (see `stream/capture.rs`) until it ends, or its stream is destroyed or dropped.
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        self.begin(mode, None)
    }

    /// Begin a user capture (`HipBackend::capture_graph`): relaxed mode, so that the
    /// capturing thread may allocate memory that outlives the graph's launches (see
    /// `crate::memory`), and `recording` learns every buffer the captured work touches.
    pub(crate) fn begin_recording(&self, recording: Arc<GraphRecording>) -> Result<()> {
        self.begin(CaptureMode::Relaxed, Some(recording))
    }

    fn begin(&self, mode: CaptureMode, recording: Option<Arc<GraphRecording>>) -> Result<()> {
        self.check_valid()?;
        let _guard = self.0.foreign.lock();
        if self.0.capturing.load(Ordering::Acquire) {
            return Err(HipError::StreamCapturing {
                stream: self.0.handle.0,
                what: "a capture begun inside a running capture",
            });
        }
        // Counted first, so that no device synchronisation starts between the platform's
        // begin and the count; a failed begin drops it uncounted.
        let capture = ActiveCapture::start(recording);
        self.0.platform.begin_capture(self.0.handle, mode)?;
        *self.0.capture.lock() = Some(capture);
        self.0.capturing.store(true, Ordering::Release);
        Ok(())
    }

    /// End the capture and return the graph. On the wrong thread (a global or thread-local
    /// capture ends on the thread that began it) the platform refuses; whether the capture
    /// goes on is the platform's answer afterwards (CUDA driver 580 ends it). Once it is
    /// over, whether or not the platform could make a graph of it (an invalidated or
    /// wrongly ended capture), it stops counting and the frees that waited for it are done.
    pub fn end_capture(&self) -> Result<GraphHandle> {
        let (graph, ended) = {
            let _guard = self.0.foreign.lock();
            let graph = self.0.platform.end_capture(self.0.handle);
            let goes_on =
                graph.is_err() && matches!(self.0.platform.is_capturing(self.0.handle), Ok(true));
            let ended = if goes_on { None } else { self.forget_capture() };
            (graph, ended)
        };
        if ended.is_some() {
            drop(ended);
            // Outside the stream's lock: the listeners' frees may enqueue on this stream.
            notify_capture_end(self.0.runtime_id, self.0.device);
        }
        graph
    }

    /// Whether the stream is capturing (through this API or behind its back). A capture
    /// begun through [`Stream::begin_capture`] that the platform no longer reports (ended
    /// through the raw platform, or its stream gone) stops counting here.
    pub fn is_capturing(&self) -> Result<bool> {
        // Our flag first: `begin_capture` sets it after the platform began, so a capture
        // being begun meanwhile is never taken for one that ended.
        let ours = self.0.capturing.load(Ordering::Acquire);
        let platform = self.0.platform.is_capturing(self.0.handle);
        if ours && !matches!(platform, Ok(true)) {
            drop(self.forget_capture());
        }
        platform
    }

    /// The id of the capture begun through [`Stream::begin_capture`] that the stream runs,
    /// if any (see `stream/capture.rs`).
    pub(crate) fn capture_id(&self) -> Option<u64> {
        if !self.0.capturing.load(Ordering::Acquire) {
            return None;
        }
        self.0.capture.lock().as_ref().map(ActiveCapture::id)
    }

    /// The recording of the user capture the stream runs, if any (one atomic load when the
    /// stream does not capture).
    pub(crate) fn recording(&self) -> Option<Arc<GraphRecording>> {
        if !self.0.capturing.load(Ordering::Acquire) {
            return None;
        }
        self.0
            .capture
            .lock()
            .as_ref()
            .and_then(|c| c.recording().cloned())
    }

    /// Take the stream's capture out (the caller drops it, which stops counting it).
    fn forget_capture(&self) -> Option<ActiveCapture> {
        self.0.capturing.store(false, Ordering::Release);
        self.0.capture.lock().take()
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

    /// The pool drops this stream as unusable (it reported an error, or was destroyed behind
    /// the pool's back). Its uses so far are over: an errored stream runs nothing more (what
    /// ran before the error is waited for while its handle still answers), and a destroyed
    /// stream's queued work is the driver's to finish. So its generation moves on, as when a
    /// stream changes hands: buffers it touched are written, read and freed again without
    /// waiting for it or being charged its error (else every later write of them failed).
    pub(crate) fn retire_unusable(&self) {
        let _guard = self.0.foreign.lock();
        if !self.is_destroyed()
            && let Err(e) = self.0.platform.synchronize_stream(self.0.handle)
        {
            tracing::debug!(stream = %self.0.handle, error = %e, "waiting for an unusable stream's work failed (it runs nothing more)");
        }
        self.bump_generation();
    }

    /// Hand the stream to a new owner.
    pub(crate) fn bump_generation(&self) {
        self.0.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// The owner of a pooled stream (None: the pool, or not a pooled stream).
    pub fn owner(&self) -> Option<OwnerToken> {
        match self.0.owner.load(Ordering::Acquire) {
            0 => None,
            t => Some(OwnerToken(t)),
        }
    }

    /// Record who holds a pooled stream now (None: back in the pool).
    pub(crate) fn set_owner(&self, owner: Option<OwnerToken>) {
        self.0
            .owner
            .store(owner.map_or(0, OwnerToken::get), Ordering::Release);
    }

    /// Whether `owner` may enqueue on this stream as its own: any thread for explicit and
    /// borrowed streams, only the holder for a pooled one.
    #[inline]
    pub(crate) fn usable_by(&self, owner: Option<OwnerToken>) -> bool {
        self.0.origin != Origin::Pooled
            || owner.is_some_and(|o| self.0.owner.load(Ordering::Acquire) == o.get())
    }

    /// A `with_stream` scope starts using the stream. False if it was destroyed (the scope
    /// must not use it); either way, end the scope with [`Stream::end_scope`].
    pub(crate) fn begin_scope(&self) -> bool {
        self.0.users.fetch_add(1, Ordering::AcqRel) & DESTROY_BIT == 0
    }

    /// A `with_stream` scope ends.
    pub(crate) fn end_scope(&self) {
        self.0.users.fetch_sub(1, Ordering::AcqRel);
    }

    /// The runtime that made this stream object.
    pub(crate) fn runtime_id(&self) -> u64 {
        self.0.runtime_id
    }
}
