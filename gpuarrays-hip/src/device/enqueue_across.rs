//! The ordering protocol for one operation that spans two devices: it reads a buffer of one
//! device and writes a buffer of another (a peer copy).
//!
//! Each buffer's uses are streams of its own device, and events of one device are recorded
//! only on that device's streams, so each side is ordered by its own device's rules and the
//! two sides meet through one event each way (a stream may wait for another device's event):
//! 1. both use records are locked, in address order (the protocol's one lock order);
//! 2. the source side's stream `a` (the calling thread's stream on the source's device) is
//!    ordered after the source's last write, and the destination side's stream `b` after the
//!    destination's last write and reads, each with its own device's events;
//! 3. an event recorded on `a` is waited for by `b`; the work is enqueued on `b`;
//! 4. an event recorded on `b` after the work is waited for by `a`, so that `a` — the stream
//!    recorded as the source's reader — covers the work: a later write or free of the source
//!    waits for `a`, hence for the copy, with no record naming a foreign device's stream;
//! 5. the uses are recorded (read on `a`, write on `b`) and the records unlocked.
//!
//! Cost: two event records and two device-side waits per operation beyond the work itself;
//! `a` is the caller's own stream, so what it waits for is what the caller asked for.

use super::{DeviceBuffer, DeviceState};
use crate::error::{HipError, Result};
use crate::stream::{OwnerToken, Stream, Waited};
use std::sync::Arc;

/// The source side of an operation across devices: a buffer read on `stream`, a stream of
/// the buffer's device.
#[derive(Debug, Clone, Copy)]
pub struct SourceSide<'a> {
    /// The buffer read.
    pub buffer: &'a DeviceBuffer,
    /// The calling thread's stream on the buffer's device.
    pub stream: &'a Stream,
}

/// The destination side: a buffer written by work enqueued on `stream`, a stream of the
/// buffer's device.
#[derive(Debug, Clone, Copy)]
pub struct DestinationSide<'a> {
    /// The buffer written.
    pub buffer: &'a DeviceBuffer,
    /// The stream the work runs on.
    pub stream: &'a Stream,
}

fn check_side(buffer: &DeviceBuffer, stream: &Stream, what: &str) -> Result<()> {
    stream.check_valid()?;
    if buffer.device() != stream.device() {
        return Err(HipError::InvalidArgument(format!(
            "the {what} buffer of device {} was given a stream of device {}",
            buffer.device(),
            stream.device()
        )));
    }
    if !stream.usable_by(OwnerToken::current()) {
        return Err(HipError::InvalidArgument(
            "work enqueued on a pooled stream another thread holds: each thread uses its own \
             stream"
                .into(),
        ));
    }
    super::refuse_capture(stream, "an operation across two devices")
}

/// Order, enqueue with `launch` (on the destination's stream, with the destination's device
/// bound) and record one operation from `src` to `dst`, buffers of two different devices of
/// one runtime. See the module documentation.
pub fn enqueue_across<R>(
    src: SourceSide<'_>,
    dst: DestinationSide<'_>,
    launch: impl FnOnce(&Stream) -> Result<R>,
) -> Result<R> {
    check_side(src.buffer, src.stream, "source")?;
    check_side(dst.buffer, dst.stream, "destination")?;
    let (a_state, b_state): (&Arc<DeviceState>, &Arc<DeviceState>) =
        (src.buffer.device_state(), dst.buffer.device_state());
    if a_state.id() == b_state.id() {
        return Err(HipError::InvalidArgument(
            "both buffers are on one device: use the device's own copy".into(),
        ));
    }
    let platform = a_state.platform();
    let (src_key, dst_key) = (
        Arc::as_ptr(src.buffer.uses_record()) as usize,
        Arc::as_ptr(dst.buffer.uses_record()) as usize,
    );
    // One lock order for every operation: by the record's address.
    let (mut src_uses, mut dst_uses) = if src_key < dst_key {
        let s = src.buffer.uses_lock();
        (s, dst.buffer.uses_lock())
    } else {
        let d = dst.buffer.uses_lock();
        (src.buffer.uses_lock(), d)
    };
    platform.bind_device(a_state.id())?;
    src_uses.order_read(src.stream, a_state.events(), &mut Waited::new())?;
    let ready = a_state.events().get()?;
    let recorded = platform.record_event(ready, src.stream.handle());
    let result = recorded.and_then(|()| {
        platform.bind_device(b_state.id())?;
        dst_uses.order_write(dst.stream, b_state.events(), &mut Waited::new())?;
        platform.stream_wait_event(dst.stream.handle(), ready)?;
        let out = launch(dst.stream);
        // Recorded also when `launch` failed part-way: what it enqueued may touch both.
        dst_uses.record_write(dst.stream);
        let done = b_state.events().get()?;
        let joined = platform
            .record_event(done, dst.stream.handle())
            .and_then(|()| platform.bind_device(a_state.id()))
            .and_then(|()| platform.stream_wait_event(src.stream.handle(), done));
        b_state.events().put(done);
        if let Err(e) = joined {
            // `a` does not cover the work, so a later free of the source would not wait for
            // it: wait for it here before reporting.
            if let Err(wait) = dst.stream.synchronize() {
                tracing::debug!(error = %wait, "waiting for a copy across devices failed");
            }
            return Err(e);
        }
        src_uses.record_read(src.stream);
        out
    });
    a_state.events().put(ready);
    // Leave the thread bound to the source's device, as it was when called.
    platform.bind_device(a_state.id())?;
    result
}
