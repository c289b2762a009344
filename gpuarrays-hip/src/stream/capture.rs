//! Graph captures begun through [`Stream::begin_capture`](super::Stream::begin_capture):
//! each is an [`ActiveCapture`] held by its stream, with an id unique in the process and a
//! token that counts it among the running captures while it lives.
//!
//! **Why a count.** Synchronising a device while one of its streams captures invalidates the
//! capture, so the runtime synchronises a device (the out-of-memory retry) only while no
//! capture runs ([`captures_active`]). The count must follow each capture's real life: one
//! capture that stayed counted after it was gone would stop every later synchronisation in
//! the process. So the token is dropped — and the capture stops counting — when the capture
//! ends through `end_capture` (successfully or not, unless the platform says it goes on, as
//! after an end on the wrong thread), when its stream is destroyed or dropped (the capture is
//! ended first and its graph discarded), and as soon as the platform reports that the stream
//! no longer captures (a capture ended behind the stream's back, through the raw platform).
//! An invalidated capture counts until it is ended: the platform keeps it open until then.
//!
//! **Why an id.** Memory allocated while a stream captures belongs to that capture
//! (`crate::memory`): it is freed inside the graph only while that same capture runs on
//! that stream, never in another capture that happens to run there later.
//!
//! **Capture-end listeners.** A free whose buffer was last used inside a capture has to wait
//! until the capture ends; memory pools register here ([`on_capture_end`]) to be told when a
//! capture on one of their device's streams ends, and do those frees then.

use super::GraphRecording;
use crate::platform::DeviceId;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// Captures begun through [`super::Stream::begin_capture`] and not yet over, in the process.
static ACTIVE_CAPTURES: AtomicUsize = AtomicUsize::new(0);

/// The next capture's id (0 is never used).
static NEXT_CAPTURE_ID: AtomicU64 = AtomicU64::new(1);

/// Whether a graph capture begun through this crate is running anywhere in the process.
pub(crate) fn captures_active() -> bool {
    ACTIVE_CAPTURES.load(Ordering::Acquire) > 0
}

/// How many graph captures begun through [`super::Stream::begin_capture`] are running in
/// the process (for tests and diagnostics). While any runs, nothing in this crate
/// synchronises a device.
pub fn active_captures() -> usize {
    ACTIVE_CAPTURES.load(Ordering::Acquire)
}

/// One running capture, held by its stream; dropping it stops counting the capture.
#[derive(Debug)]
pub(crate) struct ActiveCapture {
    id: u64,
    /// What a user capture (`HipBackend::capture_graph`) records; `None` for a capture of
    /// the stream API alone.
    recording: Option<Arc<GraphRecording>>,
}

impl ActiveCapture {
    /// A capture about to begin, counted from now on (before the platform begins it, so no
    /// device synchronisation can start in between).
    pub(crate) fn start(recording: Option<Arc<GraphRecording>>) -> ActiveCapture {
        ACTIVE_CAPTURES.fetch_add(1, Ordering::AcqRel);
        ActiveCapture {
            id: NEXT_CAPTURE_ID.fetch_add(1, Ordering::Relaxed),
            recording,
        }
    }

    /// The user capture's recording, if this is one.
    pub(crate) fn recording(&self) -> Option<&Arc<GraphRecording>> {
        self.recording.as_ref()
    }

    /// Its id, unique in the process.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for ActiveCapture {
    fn drop(&mut self) {
        ACTIVE_CAPTURES.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Told when a capture begun through this crate on a stream of its device ends.
pub(crate) trait CaptureEndListener: Send + Sync {
    /// A capture on one of the device's streams ended. Called on the thread that ended it,
    /// with no lock of the stream held.
    fn capture_ended(&self);
}

type Listener = (u64, DeviceId, Weak<dyn CaptureEndListener>);

/// Every listener, with the runtime and device it listens to. A plain lock: it is held only
/// to copy or change the list, never across a call out (nor any of loom's switch points).
static LISTENERS: parking_lot::Mutex<Vec<Listener>> = parking_lot::Mutex::new(Vec::new());

/// Call `listener` whenever a capture on a stream of (`runtime_id`, `device`) ends, until it
/// is dropped.
pub(crate) fn on_capture_end(
    runtime_id: u64,
    device: DeviceId,
    listener: Weak<dyn CaptureEndListener>,
) {
    let mut all = LISTENERS.lock();
    all.retain(|l| l.2.strong_count() > 0);
    all.push((runtime_id, device, listener));
}

/// Tell the listeners of (`runtime_id`, `device`) that a capture ended (outside the list's
/// lock).
pub(crate) fn notify_capture_end(runtime_id: u64, device: DeviceId) {
    let listeners: Vec<_> = LISTENERS
        .lock()
        .iter()
        .filter(|l| l.0 == runtime_id && l.1 == device)
        .filter_map(|l| l.2.upgrade())
        .collect();
    for l in listeners {
        l.capture_ended();
    }
}
