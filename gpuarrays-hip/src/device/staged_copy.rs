//! Copies between a [`DeviceBuffer`] and pageable host memory: the driver's copy for small
//! ones, a pipeline through pinned chunks for large ones.
//!
//! **Why a pipeline of our own.** A copy from or to an ordinary `Vec` is staged by the driver
//! through its own pinned buffers with one CPU thread; on the H200 machine 1 GiB took
//! 62–134 ms device→host (8–17 GB/s) and 121–200 ms host→device (5–9 GB/s) that way over
//! the calls of 2026-12-02, in PyTorch, CuPy and here alike, against 53–55 GB/s between the device
//! and pinned memory. The pipeline splits the copy into chunks of a pinned [`StagingSet`]:
//! while the DMA engine moves chunk *i + 1* (and up to `slots − 1` more), several threads
//! ([`CopyWorkers`]) copy chunk *i* between its pinned slot and the user's memory. The
//! measured effect is in docs/results/hip-host-copies.md.
//!
//! **Ordering.** The whole pipeline is one operation of the ordering protocol
//! ([`DeviceState::enqueue`]): the buffer's use record is held while it runs, so another
//! thread's write cannot land between two chunks of a read (a torn read), nor its read
//! between two chunks of a write. Holding it is safe: the pipeline waits only for copies it
//! enqueued itself on the caller's stream and for the copy threads, which take no lock.
//!
//! **Slots.** Device-to-host: chunk *i*'s slot is copied out only after the event recorded
//! behind its DMA completed, and refilled (chunk *i + slots*) only after that copy-out.
//! Host-to-device: a slot is refilled only after the event behind its previous DMA
//! completed. The test double lands copies into pinned memory only when they complete and
//! reports a pinned source overwritten too early, so CI checks both rules.
//!
//! **The first copies.** A copy that finds no free set takes the driver's path; the first
//! one also has a set pinned in the background ([`PinnedStaging::lease`]), so no copy waits
//! the 10–20 ms that pinning takes.
//!
//! **Failures.** If a platform call fails part-way, the caller's stream is synchronised
//! before the set is reused; if even that fails, the set is abandoned (never freed: a DMA
//! may still target it), see [`PinnedStaging::abandon`].

use super::{Access, DeviceBuffer, refuse_capture};
use crate::error::{HipError, Result};
use crate::memory::{CopyWorkers, PinnedStaging, StagingConfig, StagingSet};
use crate::platform::{DevicePtr, Platform};
use crate::stream::Stream;
use std::sync::Arc;

impl DeviceBuffer {
    /// Copy `src` into the buffer from byte `offset` on (ordered on `caller` after every use,
    /// and finished when this returns).
    pub fn copy_from_host_at(&self, caller: &Stream, offset: usize, src: &[u8]) -> Result<()> {
        self.check_range(offset, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        refuse_capture(caller, "a host-to-device copy")?;
        let device = self.device_state();
        let staging = device.staging();
        let set = lease_for(staging, src.len());
        let dst = self.ptr().offset(offset);
        let Some(set) = set else {
            device.enqueue(caller, &[Access::write(self)], |s| {
                // SAFETY: `src` is a live slice of `src.len()` bytes and this function
                // synchronises the stream below, before the borrow ends (a capturing stream,
                // which would run the copy later, was refused above); the destination range
                // was checked against the buffer's length.
                unsafe {
                    device.platform().copy_htod_async(
                        dst,
                        src.as_ptr().cast(),
                        src.len(),
                        s.handle(),
                    )
                }
            })?;
            return caller.synchronize();
        };
        let host = *staging.config();
        let r = device
            .enqueue(caller, &[Access::write(self)], |s| {
                write_chunks(device.platform().as_ref(), &set, dst, src, s, host)
            })
            .and_then(|()| caller.synchronize());
        finish(staging, set, caller, r)
    }

    /// Copy `dst.len()` bytes from byte `offset` of the buffer into `dst` (finished when this
    /// returns).
    pub fn copy_to_host_at(&self, caller: &Stream, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check_range(offset, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        refuse_capture(caller, "a device-to-host copy")?;
        let device = self.device_state();
        let staging = device.staging();
        let set = lease_for(staging, dst.len());
        let src = self.ptr().offset(offset);
        let Some(set) = set else {
            let (ptr, len) = (dst.as_mut_ptr(), dst.len());
            device.enqueue(caller, &[Access::read(self)], |s| {
                // SAFETY: `dst` is a live, exclusively borrowed slice and this function
                // synchronises the stream below, before the borrow ends (a capturing stream
                // was refused above); the source range was checked.
                unsafe {
                    device
                        .platform()
                        .copy_dtoh_async(ptr.cast(), src, len, s.handle())
                }
            })?;
            return caller.synchronize();
        };
        let host = *staging.config();
        // Every chunk's event is waited for inside, so no stream synchronise is needed after.
        let r = device.enqueue(caller, &[Access::read(self)], |s| {
            read_chunks(device.platform().as_ref(), &set, src, dst, s, host)
        });
        finish(staging, set, caller, r)
    }

    fn check_range(&self, offset: usize, n: usize) -> Result<()> {
        if offset.checked_add(n).is_none_or(|end| end > self.len()) {
            return Err(HipError::InvalidArgument(format!(
                "{n} bytes from byte {offset} do not fit a buffer of {} bytes",
                self.len()
            )));
        }
        Ok(())
    }
}

/// A set for a copy of `bytes`, if the copy is staged and one is free (see
/// [`PinnedStaging::lease`]).
fn lease_for(staging: &Arc<PinnedStaging>, bytes: usize) -> Option<StagingSet> {
    if staging.config().stages(bytes) {
        staging.lease()
    } else {
        None
    }
}

/// Give the set back once nothing queued can still use it.
fn finish(staging: &PinnedStaging, set: StagingSet, caller: &Stream, r: Result<()>) -> Result<()> {
    match r {
        Ok(()) => staging.give_back(set),
        // Copies queued before the failure may still use the chunks.
        Err(_) => match caller.synchronize() {
            Ok(()) => staging.give_back(set),
            Err(_) => staging.abandon(set),
        },
    }
    r
}

/// Copies smaller than `slots` full chunks are cut into `slots` smaller chunks (down to
/// this size), so that their DMA and host copies overlap too.
const MIN_CHUNK: usize = 1 << 20;

/// The chunk size of a copy of `total` bytes through `set`: its chunks' size, or less for
/// a copy that would not fill every slot.
fn chunk_for(set: &StagingSet, total: usize) -> usize {
    let even = total.div_ceil(set.slots()).next_multiple_of(64 << 10);
    set.chunk_bytes().min(even.max(MIN_CHUNK))
}

/// Chunk `i` of a copy of `total` bytes in chunks of `chunk`: (byte offset, length).
fn chunk_range(i: usize, chunk: usize, total: usize) -> (usize, usize) {
    let start = i * chunk;
    (start, chunk.min(total - start))
}

fn read_chunks(
    platform: &dyn Platform,
    set: &StagingSet,
    src: DevicePtr,
    dst: &mut [u8],
    stream: &Stream,
    host: StagingConfig,
) -> Result<()> {
    let threads = host.threads;
    let streaming = host.streaming_stores.applies(false, dst.len());
    let total = dst.len();
    let chunk = chunk_for(set, total);
    let n = total.div_ceil(chunk);
    let k = set.slots().min(n);
    let dma = |i: usize| -> Result<()> {
        let (start, len) = chunk_range(i, chunk, total);
        let slot = i % k;
        // SAFETY: the slot holds `chunk` ≥ `len` bytes of pinned memory that stays allocated
        // while the set is leased, and it is read (below) only after the event recorded next
        // completed; the source range lies inside the checked range of the buffer.
        unsafe {
            platform.copy_dtoh_async(
                set.chunk(slot).cast(),
                src.offset(start),
                len,
                stream.handle(),
            )?
        };
        platform.record_event(set.event(slot), stream.handle())
    };
    for i in 0..k {
        dma(i)?;
    }
    for i in 0..n {
        let slot = i % k;
        platform.synchronize_event(set.event(slot))?;
        let (start, len) = chunk_range(i, chunk, total);
        // SAFETY: the slot's DMA completed (its event, just waited for); `dst[start..][..len]`
        // lies in the exclusively borrowed `dst`; pinned and user memory do not overlap.
        unsafe {
            CopyWorkers::global().copy(
                dst.as_mut_ptr().add(start),
                set.chunk(slot),
                len,
                threads,
                streaming,
            )
        };
        if i + k < n {
            dma(i + k)?;
        }
    }
    Ok(())
}

fn write_chunks(
    platform: &dyn Platform,
    set: &StagingSet,
    dst: DevicePtr,
    src: &[u8],
    stream: &Stream,
    host: StagingConfig,
) -> Result<()> {
    let threads = host.threads;
    let streaming = host.streaming_stores.applies(true, src.len());
    let total = src.len();
    let chunk = chunk_for(set, total);
    let n = total.div_ceil(chunk);
    let k = set.slots().min(n);
    for i in 0..n {
        let slot = i % k;
        if i >= k {
            // The slot's previous DMA (chunk i − k) must have read it before it is refilled.
            platform.synchronize_event(set.event(slot))?;
        }
        let (start, len) = chunk_range(i, chunk, total);
        // SAFETY: `src[start..][..len]` lies in the borrowed `src`; the slot holds ≥ `len`
        // bytes and no queued copy reads it (its previous DMA completed, or it has none yet
        // in this lease: a set is given back only after its copies completed).
        unsafe {
            CopyWorkers::global().copy(
                set.chunk(slot),
                src.as_ptr().add(start),
                len,
                threads,
                streaming,
            )
        };
        // SAFETY: the slot stays allocated and unmodified until the event recorded next
        // completes (waited for before its refill, or by the caller's synchronise); the
        // destination range lies inside the checked range of the buffer.
        unsafe {
            platform.copy_htod_async(
                dst.offset(start),
                set.chunk(slot).cast_const().cast(),
                len,
                stream.handle(),
            )?
        };
        platform.record_event(set.event(slot), stream.handle())?;
    }
    Ok(())
}
