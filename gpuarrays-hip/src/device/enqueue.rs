//! The ordering protocol: the one way work that touches buffers is enqueued.
//!
//! **The promise.** Any thread may use any buffer; the runtime orders the work. Every
//! stream that may still touch a buffer stays known until that work is complete; reads from
//! many streams do not serialise one another; a write, a free or a reuse of the memory waits
//! for all of them (the buffer's [`BufferUses`]).
//!
//! **The step.** [`DeviceState::enqueue`] takes the caller's stream, the operands with their
//! role (read or write) and a `launch` closure that enqueues the work on the stream:
//! 1. operands are sorted by the address of their use record and deduplicated (a buffer
//!    both read and written is a write) — one global lock order, so two operations locking overlapping operands never
//!    deadlock;
//! 2. each operand's use record is locked;
//! 3. the caller's stream is made to wait, device-side, for what the rules require: a read
//!    for the last write, a write for the last write and every read since (each other stream
//!    once per operation; uses on the caller's own stream and uses whose stream changed hands
//!    need no wait);
//! 4. `launch` enqueues the work;
//! 5. the uses are recorded (also when `launch` failed part-way: what it enqueued may touch
//!    the operands), and the records unlocked.
//!
//! Between 3 and 5 no other thread can order work on these operands, so no use slips
//! between another thread's ordering and its record (the bug of ordering first and
//! enqueueing later: a second thread's ordering would replace the first's record before its
//! kernel existed, and a later free would wait for neither).
//!
//! **What `launch` may do.** Only enqueue on the given stream (kernels, copies, scratch
//! buffers of its own, a blocking read of its own scratch). Everything slow or that could
//! wait for another thread — compiling or looking up kernels, creating FFT plans or BLAS
//! handles, allocating the result — happens *before* `enqueue`, outside the locks, so a
//! 150 ms compilation never holds another thread's operand. A host copy that must finish
//! before returning is enqueued inside and waited for after `enqueue` returns.
//!
//! **Cost.** No allocation (operands and waits live in inline `SmallVec`s), one uncontended
//! lock per operand, and — when the last uses are the caller's own stream, the common case
//! of one thread — no platform call and no change to the records.

use super::{DeviceBuffer, DeviceState};
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::platform::access_declarations::{DeclaredAccess, with_declared};
use crate::stream::{BufferUses, OwnerToken, Stream, Touched, Waited};
use crate::sync::{Mutex, MutexGuard};
use smallvec::SmallVec;
use std::sync::Arc;

/// How an operation uses an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// The operation only reads the buffer.
    Read,
    /// The operation may write the buffer (and read it).
    Write,
}

/// One operand of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    /// The buffer.
    pub buffer: &'a DeviceBuffer,
    /// How the operation uses it.
    pub kind: AccessKind,
}

impl<'a> Access<'a> {
    /// A read of `buffer`.
    pub fn read(buffer: &'a DeviceBuffer) -> Access<'a> {
        Access {
            buffer,
            kind: AccessKind::Read,
        }
    }
    /// A write of `buffer`.
    pub fn write(buffer: &'a DeviceBuffer) -> Access<'a> {
        Access {
            buffer,
            kind: AccessKind::Write,
        }
    }
}

/// One operand as the protocol handles it: lock-order key (the address of its use record),
/// the record, whether it is written, and its memory (for the test double's checks).
type Operand<'a> = (usize, &'a Mutex<BufferUses>, bool, DevicePtr, usize);

/// Operands of one operation, inline up to 8.
type Operands<'a> = SmallVec<[Operand<'a>; 8]>;

impl DeviceState {
    /// Order `accesses` for `stream`, run `launch` to enqueue the work on it, and record the
    /// uses — one step no other thread can slip into. See the module documentation.
    pub fn enqueue<R>(
        &self,
        stream: &Stream,
        accesses: &[Access<'_>],
        launch: impl FnOnce(&Stream) -> Result<R>,
    ) -> Result<R> {
        // Filled by plain pushes, as the backend's operand lists are: with `collect` through
        // iterator adapters, `Backend::elementwise` of `a*x + y` took ~3,000 host
        // instructions of ours instead of ~2,740 (`host_path` bench, callgrind).
        let mut ops: Operands<'_> = SmallVec::new();
        for a in accesses {
            let record = a.buffer.uses_record();
            let key = Arc::as_ptr(record) as usize;
            let write = a.kind == AccessKind::Write;
            ops.push((key, &**record, write, a.buffer.ptr(), a.buffer.len()));
            if a.buffer.device() != stream.device() || a.buffer.device() != self.id() {
                return Err(HipError::InvalidArgument(format!(
                    "a buffer of device {} used on a stream of device {} (runtime device {}); \
                     copy it to the stream's device first",
                    a.buffer.device(),
                    stream.device(),
                    self.id()
                )));
            }
        }
        if let Some(recording) = stream.recording() {
            // A user capture: the graph keeps what its work touches (`stream/recording.rs`).
            for a in accesses {
                let b = a.buffer;
                recording.touch(
                    b.uses_record(),
                    a.kind == AccessKind::Write,
                    b.ptr(),
                    b.len(),
                );
            }
        }
        self.enqueue_ordered(stream, ops, launch)
    }

    /// Launch a graph made by a user capture on `stream`, ordered like one operation over
    /// every buffer its recording touched.
    pub(crate) fn enqueue_recorded<R>(
        &self,
        stream: &Stream,
        touched: &[Touched],
        launch: impl FnOnce(&Stream) -> Result<R>,
    ) -> Result<R> {
        let mut ops: Operands<'_> = SmallVec::new();
        for t in touched {
            ops.push((t.key(), &*t.uses, t.write, t.ptr, t.len));
        }
        self.enqueue_ordered(stream, ops, launch)
    }

    fn enqueue_ordered<R>(
        &self,
        stream: &Stream,
        mut ops: Operands<'_>,
        launch: impl FnOnce(&Stream) -> Result<R>,
    ) -> Result<R> {
        stream.check_valid()?;
        if !stream.usable_by(OwnerToken::current()) {
            return Err(HipError::InvalidArgument(
                "work enqueued on a pooled stream another thread holds (or its pool): each \
                 thread uses its own stream; create an explicit stream to share one"
                    .into(),
            ));
        }
        ops.sort_unstable_by_key(|o| o.0);
        ops.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.2 |= later.2;
            }
            same
        });
        let mut records: SmallVec<[MutexGuard<'_, BufferUses>; 8]> = SmallVec::new();
        for o in &ops {
            records.push(o.1.lock());
        }
        let mut waited = Waited::new();
        for (uses, o) in records.iter().zip(&ops) {
            if o.2 {
                uses.order_write(stream, self.events(), &mut waited)?;
            } else {
                uses.order_read(stream, self.events(), &mut waited)?;
            }
        }
        let result = if self.checks_ordering() {
            let declared: SmallVec<[DeclaredAccess; 8]> = ops
                .iter()
                .map(|o| DeclaredAccess {
                    ptr: o.3,
                    bytes: o.4,
                    write: o.2,
                })
                .collect();
            with_declared(&declared, || launch(stream))
        } else {
            launch(stream)
        };
        for (uses, o) in records.iter_mut().zip(&ops) {
            if o.2 {
                uses.record_write(stream);
            } else {
                uses.record_read(stream);
            }
        }
        drop(records);
        result
    }
}
