//! The calling thread's host capture: which backend it records for, the buffers its work
//! touches, and the operations recorded so far.
//!
//! One capture at a time per thread. It is found in two places: [`note_buffer`], called by
//! every [`DataRef::read`] while a capture runs, keeps a handle to each buffer borrowed on
//! this thread (so the graph can keep it alive and find it again at each launch), and
//! [`with_recording`], called by every backend call core makes
//! ([`super::dispatch`]), appends the call's description instead of running it.
//!
//! Why buffers are found through `DataRef::read`: a backend call receives plain buffer
//! references (`&B::Buffer`), but a graph must own what it replays on. Every reference
//! core hands a backend comes from a read guard of the buffer's `DataRef`, whose address is
//! stable for the buffer's life; the recording maps that address back to the handle.

use std::any::{Any, TypeId};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use super::recorded_op::RecordedOp;
use crate::backend::Backend;
use crate::data_ref::DataRef;
use crate::error::{Error, Result};

thread_local! {
    /// Whether a host capture runs on this thread: the one test on the path of every
    /// buffer borrow, so it is a plain flag.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// The running capture.
    static CAPTURE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// The running capture: the device it records for, and its [`Recording`] (of the backend's
/// buffer type).
struct Active {
    device: u64,
    recording: Box<dyn Any>,
}

/// What a host capture has recorded so far.
pub(super) struct Recording<Buf: 'static> {
    /// The device recorded for ([`crate::DeviceInfo::id`]) and its backend's type: calls on
    /// any other backend run eagerly, as they would while a GPU stream captures.
    device: u64,
    backend: TypeId,
    backend_name: &'static str,
    /// Every buffer borrowed on this thread since the capture began, kept alive until it
    /// ends; the graph keeps those its operations use.
    pub(super) buffers: Vec<DataRef<Buf>>,
    /// Buffer address → position in `buffers`.
    by_address: HashMap<usize, usize>,
    /// The [`DataRef::id`]s of `buffers`.
    noted: HashSet<usize>,
    /// Buffers allocated during the capture, with their sizes in bytes: once nothing but
    /// the recording holds one, a later allocation of the same size gets it ([`alloc`]).
    allocated: Vec<(DataRef<Buf>, usize)>,
    pub(super) ops: Vec<RecordedOp>,
}

impl<Buf: Send + Sync + 'static> Recording<Buf> {
    /// The position of the buffer at `buffer` in [`Self::buffers`], or a refusal naming
    /// `op` for memory that was not borrowed through a `DataRef` (which the graph could not
    /// keep alive).
    pub(super) fn position(&self, buffer: &Buf, op: &str) -> Result<usize> {
        let address = buffer as *const Buf as usize;
        self.by_address
            .get(&address)
            .copied()
            .ok_or_else(|| Error::NotCapturable {
                what: op.to_string(),
                backend: self.backend_name.into(),
                reason: "it uses memory that no array owns, which a graph cannot keep alive; \
                         run it outside the capture"
                    .into(),
            })
    }
}

/// Notes a buffer borrowed on this thread (see the module documentation). Cheap when no
/// capture runs: one thread-local flag.
#[cfg(not(loom))]
pub(crate) fn note_buffer<Buf: Send + Sync + 'static>(data: &DataRef<Buf>, buffer: &Buf) {
    if !ACTIVE.with(Cell::get) {
        return;
    }
    CAPTURE.with(|c| {
        // A borrow in progress means this runs inside the recorder itself, which borrows
        // no buffers: nothing to note.
        let Ok(mut c) = c.try_borrow_mut() else {
            return;
        };
        let Some(rec) = (c.as_mut()).and_then(|a| a.recording.downcast_mut::<Recording<Buf>>())
        else {
            return;
        };
        let address = buffer as *const Buf as usize;
        if !rec.by_address.contains_key(&address) {
            rec.by_address.insert(address, rec.buffers.len());
            rec.noted.insert(data.id());
            rec.buffers.push(data.clone());
        }
    });
}

/// Runs `f` on the calling thread's recording if it records for `backend`; `None` (and `f`
/// not run) otherwise.
pub(super) fn with_recording<B: Backend, R>(
    backend: &B,
    f: impl FnOnce(&mut Recording<B::Buffer>) -> R,
) -> Option<R> {
    if !ACTIVE.with(Cell::get) {
        return None;
    }
    CAPTURE.with(|c| {
        let mut c = c.try_borrow_mut().ok()?;
        let rec = c
            .as_mut()?
            .recording
            .downcast_mut::<Recording<B::Buffer>>()?;
        if rec.device != backend.device().id || rec.backend != TypeId::of::<B>() {
            return None;
        }
        Some(f(rec))
    })
}

/// A buffer of `bytes` for a new array: `fresh()` outside a capture; inside one, a buffer
/// allocated earlier in the capture whose arrays are all gone, else `fresh()`.
///
/// Why reuse is safe: the recorded calls run in order at each launch, and the dead
/// buffer's last recorded use comes before the allocation (its arrays were dropped before
/// the closure allocated again), so every use of the new array comes after it, in the same
/// order on the same queue. Without it a chain of 100 operations would keep 100
/// temporaries for the graph's life; with it, as eagerly, a few.
pub(crate) fn alloc<B: Backend>(
    backend: &B,
    bytes: usize,
    fresh: impl FnOnce() -> Result<DataRef<B::Buffer>>,
) -> Result<DataRef<B::Buffer>> {
    let reused = with_recording(backend, |rec| {
        let held_by_recording = |d: &DataRef<B::Buffer>| {
            // The entry in `allocated`, and the one in `buffers` if it was borrowed.
            1 + usize::from(rec.noted.contains(&d.id()))
        };
        rec.allocated
            .iter()
            .find(|(d, b)| *b == bytes && d.ref_count() == held_by_recording(d))
            .map(|(d, _)| d.clone())
    });
    match reused {
        Some(Some(d)) => Ok(d),
        Some(None) => {
            let d = fresh()?;
            with_recording(backend, |rec| rec.allocated.push((d.clone(), bytes)));
            Ok(d)
        }
        None => fresh(),
    }
}

/// Whether the calling thread records for `backend`'s device (through `backend` or a
/// backend that wraps it: they share the device).
fn records_device<B: Backend>(backend: &B) -> bool {
    ACTIVE.with(Cell::get)
        && CAPTURE.with(|c| {
            c.try_borrow()
                .ok()
                .and_then(|c| c.as_ref().map(|a| a.device))
                == Some(backend.device().id)
        })
}

/// Fails with [`Error::NotCapturable`] naming `what` if the calling thread records for
/// `backend`'s device: for work that needs the host now (a read, a host write, a
/// synchronisation, a data-dependent size). Backends call it from their own entry points
/// that core does not route (their `synchronize`); it answers for a backend wrapped in
/// another (the facade's `AnyBackend`) as well, since the two share the device.
pub fn refuse_while_recording<B: Backend>(backend: &B, what: &str) -> Result<()> {
    match records_device(backend) {
        true => Err(Error::NotCapturable {
            what: what.to_string(),
            backend: backend.name().to_string(),
            reason: "a graph replays device work only, and this needs the host during the \
                     capture; do it before or after the capture"
                .into(),
        }),
        false => Ok(()),
    }
}

/// The running capture of this thread, ended (taken out of the thread) when dropped: on
/// success, on an error, and on a panic inside the recorded closure alike.
pub(super) struct ActiveCapture<Buf: 'static> {
    _buffer: std::marker::PhantomData<Buf>,
}

impl<Buf: Send + Sync + 'static> ActiveCapture<Buf> {
    /// Begins recording for `backend` on this thread; refused while another capture runs.
    pub(super) fn begin<B: Backend<Buffer = Buf>>(backend: &B) -> Result<Self> {
        if ACTIVE.with(Cell::get) {
            return Err(Error::NotCapturable {
                what: "a capture inside a capture".into(),
                backend: backend.name().into(),
                reason: "this thread is already recording a graph; launch the inner work's \
                         graph inside the outer capture instead"
                    .into(),
            });
        }
        let rec: Recording<Buf> = Recording {
            device: backend.device().id,
            backend: TypeId::of::<B>(),
            backend_name: backend.name(),
            buffers: Vec::new(),
            by_address: HashMap::new(),
            noted: HashSet::new(),
            allocated: Vec::new(),
            ops: Vec::new(),
        };
        CAPTURE.with(|c| {
            *c.borrow_mut() = Some(Active {
                device: backend.device().id,
                recording: Box::new(rec),
            })
        });
        ACTIVE.with(|a| a.set(true));
        Ok(ActiveCapture {
            _buffer: std::marker::PhantomData,
        })
    }

    /// Ends the capture and returns what it recorded.
    pub(super) fn finish(self) -> Result<Recording<Buf>> {
        let rec = take();
        std::mem::forget(self);
        rec.and_then(|a| a.recording.downcast::<Recording<Buf>>().ok())
            .map(|r| *r)
            .ok_or_else(|| Error::invalid_arg("capture", "the host capture was lost"))
    }
}

impl<Buf: 'static> Drop for ActiveCapture<Buf> {
    fn drop(&mut self) {
        // Abandoned (an error or a panic in the closure): the recording and the buffers it
        // kept go; `try_with` because this may run during thread teardown.
        drop(take());
    }
}

/// Takes the running capture out of the thread.
fn take() -> Option<Active> {
    let _ = ACTIVE.try_with(|a| a.set(false));
    CAPTURE
        .try_with(|c| c.try_borrow_mut().ok().and_then(|mut c| c.take()))
        .ok()
        .flatten()
}
