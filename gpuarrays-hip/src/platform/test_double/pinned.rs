//! The test double's page-locked ("pinned") host memory, and copies that use it completing
//! like a real GPU's.
//!
//! A copy between a device and pageable host memory is synchronous with respect to that host
//! memory on CUDA/HIP (the driver stages it), so the double moves its bytes at enqueue. A copy
//! to or from pinned memory is a DMA that runs when the stream gets to it, so:
//! - device-to-host into pinned memory: the bytes are taken from the (eager) device memory at
//!   enqueue but written into the pinned memory only when the copy's work completes — a host
//!   that reads the slot before synchronizing sees the old contents;
//! - host-to-device from pinned memory: the device memory is written at enqueue, and the
//!   source is snapshotted; when the work completes the pinned bytes are compared with the
//!   snapshot, and a difference (the host overwrote the slot too early) is a violation;
//! - freeing pinned memory that a queued copy still uses is a violation; that copy's bytes
//!   are dropped (the double never writes into freed memory).
//!
//! "Completes" means what it means for the rest of the double: the host saw it complete (a
//! query or a synchronize that covers it settled the work). Work that merely finished by the
//! clock while nobody looked has not landed yet — code relying on that races on a real GPU.

use super::{FakePlatform, api};
use crate::error::Result;
use crate::platform::{DeviceId, codes};
use std::alloc::Layout;
use std::collections::BTreeMap;
use std::ptr::NonNull;

/// The byte a fresh pinned allocation of the double is filled with (real pinned memory
/// starts with unspecified contents; a pattern makes reading a slot nothing was copied into
/// visible).
pub const PINNED_FILL: u8 = 0xA5;

/// Alignment of the double's pinned allocations (a page, as drivers give).
const PAGE: usize = 4096;

/// One pinned allocation, owned by the double; dropping it frees the memory (allocations the
/// user did not free are freed with the double).
#[derive(Debug)]
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
    device: DeviceId,
    /// Bytes asked for (the layout holds at least one byte).
    len: usize,
}

// SAFETY: `ptr` is memory the double allocated and owns; the block is only an owner record,
// and every access the double makes through it happens under the state's mutex.
unsafe impl Send for Block {}

/// A copy using pinned memory whose work has not completed ([`PinnedMemory::later`]).
#[derive(Debug)]
struct PendingCopy {
    at: usize,
    data: Vec<u8>,
    source_of: Option<u64>,
}

/// The pinned allocations (by address) and the copies using them that are still queued.
#[derive(Debug, Default)]
pub(crate) struct PinnedMemory {
    blocks: BTreeMap<usize, Block>,
    /// By work id (one copy per piece of work).
    pending: BTreeMap<u64, PendingCopy>,
    /// Allocations made.
    made: usize,
    /// Frees of an address that was not a live pinned allocation.
    invalid_frees: usize,
    violations: Vec<String>,
}

impl PinnedMemory {
    /// Allocate `bytes` (page-aligned, filled with [`PINNED_FILL`]).
    pub(super) fn alloc(&mut self, device: DeviceId, bytes: usize) -> Result<*mut u8, String> {
        let layout = Layout::from_size_align(bytes.max(1), PAGE)
            .map_err(|e| format!("cannot allocate {bytes} bytes of pinned memory: {e}"))?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = NonNull::new(raw)
            .ok_or_else(|| format!("the host is out of memory for {bytes} pinned bytes"))?;
        // SAFETY: `ptr` was just allocated with `layout`, so it is writable for its size.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), PINNED_FILL, layout.size()) };
        let (len, addr) = (bytes, ptr.as_ptr().addr());
        let block = Block {
            ptr,
            layout,
            device,
            len,
        };
        self.blocks.insert(addr, block);
        self.made += 1;
        Ok(ptr.as_ptr())
    }

    /// Free the allocation at `addr`; false if there is none. Queued copies using it are
    /// violations, and are dropped.
    pub(super) fn free(&mut self, addr: usize) -> bool {
        let Some(block) = self.blocks.remove(&addr) else {
            self.invalid_frees += 1;
            return false;
        };
        let inside = |p: &PendingCopy| (addr..addr + block.len.max(1)).contains(&p.at);
        let (orphans, pending): (BTreeMap<_, _>, _) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(_, p)| inside(p));
        self.pending = pending;
        for p in orphans.into_values() {
            let (n, at) = (p.data.len(), p.at);
            let what = match p.source_of {
                None => format!(
                    "a device-to-host copy into it ({n} bytes at {at:#x}) was still queued; \
                     its bytes were dropped"
                ),
                Some(_) => {
                    format!("a host-to-device copy from it ({n} bytes at {at:#x}) was still queued")
                }
            };
            self.violations.push(format!(
                "pinned memory at {addr:#x} ({} bytes, device {}) was freed while {what}",
                block.len, block.device
            ));
        }
        true
    }

    /// Whether a host copy's `bytes` at `addr` lie in pinned memory (else in pageable
    /// memory); a range partly in pinned memory fails `call`.
    pub(super) fn locate(&self, call: &'static str, addr: usize, bytes: usize) -> Result<bool> {
        let fail = |m: String| Err(api(call, codes::INVALID_VALUE, &m));
        if let Some((&base, b)) = self.blocks.range(..=addr).next_back()
            && addr < base + b.len.max(1)
        {
            if bytes <= b.len - (addr - base) {
                return Ok(true);
            }
            return fail(format!(
                "{bytes} bytes at {addr:#x} run past the end of the pinned allocation at \
                 {base:#x} ({} bytes)",
                b.len
            ));
        }
        let end = addr.saturating_add(bytes);
        match self.blocks.range(addr.saturating_add(1)..end).next() {
            Some((&base, _)) => fail(format!(
                "{bytes} bytes at {addr:#x} overlap the pinned allocation at {base:#x} in part"
            )),
            None => Ok(false),
        }
    }

    /// A copy using the pinned bytes at `at` that completes with work `work`: device-to-host
    /// (`source_of` None), whose `data` lands then, or host-to-device by stream `source_of`,
    /// whose source held `data` at enqueue (checked then).
    pub(super) fn later(&mut self, work: u64, at: usize, data: Vec<u8>, source_of: Option<u64>) {
        let copy = PendingCopy {
            at,
            data,
            source_of,
        };
        self.pending.insert(work, copy);
    }

    /// Write `data` at `at`, inside a live pinned allocation (nothing if it is not).
    pub(super) fn land(&self, at: usize, data: &[u8]) {
        let Some(dst) = self.range(at, data.len()) else {
            return;
        };
        // SAFETY: `range` checked that the bytes lie inside a live allocation the double owns;
        // `data` is the double's own buffer, so they do not overlap. The host may not touch
        // the destination until the copy has completed (the contract of `copy_dtoh_async`),
        // and the double writes it only inside its own calls, under its lock.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst.as_ptr(), data.len()) };
    }

    /// The work `work` completed: land its copy or check its source, if it used pinned
    /// memory.
    pub(super) fn work_done(&mut self, work: u64) {
        let Some(PendingCopy {
            at,
            data,
            source_of,
        }) = self.pending.remove(&work)
        else {
            return;
        };
        let Some(stream) = source_of else {
            return self.land(at, &data);
        };
        let Some(src) = self.range(at, data.len()) else {
            return;
        };
        // SAFETY: `range` checked that the bytes lie inside a live allocation the double
        // owns, readable for `data.len()` bytes; the host may not write them until the copy
        // has completed (the contract of `copy_htod_async`) — that is what is checked here.
        let now = unsafe { std::slice::from_raw_parts(src.as_ptr(), data.len()) };
        if let Some(i) = now.iter().zip(&data).position(|(a, b)| a != b) {
            self.violations.push(format!(
                "the pinned source of a host-to-device copy ({} bytes at {at:#x}) was \
                 overwritten before the copy completed (stream {stream:#x}; first \
                 difference at byte {i})",
                data.len()
            ));
        }
    }

    /// The pointer to `bytes` at `at` inside a live allocation, if they lie in one.
    fn range(&self, at: usize, bytes: usize) -> Option<NonNull<u8>> {
        let (&base, b) = self.blocks.range(..=at).next_back()?;
        if bytes > b.len.checked_sub(at - base)? {
            return None;
        }
        // SAFETY: `at - base + bytes <= len`, so the offset stays inside the allocation.
        let p = unsafe { b.ptr.as_ptr().add(at - base) };
        NonNull::new(p)
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated with `layout` by `PinnedMemory::alloc`, and a block is
        // dropped once (when freed by the user, or with the double), so it is freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// Inspection of pinned memory (its fault, [`FakePlatform::fail_next_pinned_allocs`], is
/// with the others).
impl FakePlatform {
    /// Pinned allocations not yet freed by the user (the double frees them when dropped).
    pub fn pinned_live(&self) -> usize {
        self.state.lock().pinned.blocks.len()
    }
    /// Bytes of pinned memory not yet freed by the user.
    pub fn pinned_live_bytes(&self) -> usize {
        let st = self.state.lock();
        st.pinned.blocks.values().map(|b| b.len).sum()
    }
    /// Pinned allocations made so far (failed ones not counted).
    pub fn pinned_allocs_made(&self) -> usize {
        self.state.lock().pinned.made
    }
    /// `host_free_pinned` calls on an address that was not a live pinned allocation (double
    /// frees, foreign pointers).
    pub fn pinned_invalid_frees(&self) -> usize {
        self.state.lock().pinned.invalid_frees
    }
    /// Copies using pinned memory that have not completed yet (as far as the host has seen).
    pub fn pinned_copies_pending(&self) -> usize {
        self.state.lock().pinned.pending.len()
    }
    /// Misuses of pinned memory seen so far (empty when every use was ordered): a
    /// host-to-device copy's source overwritten before the copy completed, pinned memory
    /// freed while a copy using it was still queued.
    pub fn pinned_violations(&self) -> Vec<String> {
        self.state.lock().pinned.violations.clone()
    }
}
