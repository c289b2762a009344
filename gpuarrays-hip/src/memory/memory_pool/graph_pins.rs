//! Memory kept for user graphs (`HipBackend::capture_graph`): a buffer a graph uses is never
//! freed before the graph.
//!
//! A captured graph reads and writes the same addresses at every launch. So every buffer
//! its work touches, and every allocation made while it was captured, is *pinned* to its
//! recording ([`GraphRecording`]). Freeing a pinned buffer (its array dropped) hands the
//! allocation to the recording instead of the pool; when the recording drops (its graph
//! and its capture are gone) each allocation kept for it goes to the next live recording
//! that pins the same address, or else is freed through the pool after every recorded use
//! — the graph's launches included, since they are recorded in the buffer's shared use
//! record.
//!
//! **Allocations during a user capture** come from the pool like any other, ordered on the
//! pool's maintenance stream and waited for on the host before the allocation returns
//! (relaxed capture mode allows that wait): the capturing stream then needs no device-side
//! wait on work outside its capture, and the memory is ordinary pool memory, not a graph
//! allocation (those would keep the graph from being launched again while an output lives).
//!
//! Cost when no graph exists: one atomic load per free.

use super::super::size_class::class_size;
use super::{DeviceAllocation, MemoryPool};
use crate::error::Result;
use crate::platform::DevicePtr;
use crate::stream::{BufferUses, GraphRecording, RecordingMemory, Stream};
use crate::sync::{AtomicUsize, Mutex};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// An allocation kept for a recording, with its buffer's shared use record.
type Kept = (DeviceAllocation, Arc<Mutex<BufferUses>>);

/// The recordings that pin one address: (id, recording).
type Holders = SmallVec<[(u64, Weak<GraphRecording>); 1]>;

/// The pins of one device's pool.
#[derive(Default)]
pub(super) struct GraphPins {
    /// Pinned addresses (fast path: zero means no graph holds anything).
    pinned: AtomicUsize,
    /// Address → the recordings that use it (id, recording).
    by_ptr: Mutex<HashMap<u64, Holders>>,
    /// Recording id → the allocations handed to it.
    kept: Mutex<HashMap<u64, Vec<Kept>>>,
    /// Recording id → allocations made and freed during its capture, every use of them on
    /// the capturing stream: later allocations of the same capture reuse them (stream order
    /// inside the graph puts the new use after the old ones, at every launch).
    spare: Mutex<HashMap<u64, Vec<Kept>>>,
    /// Recording id → the addresses allocated during its capture (asked at every free
    /// during the capture).
    allocated: Mutex<HashMap<u64, HashSet<u64>>>,
}

impl GraphPins {
    /// The live recording that pins `ptr`, if any.
    fn holder(&self, ptr: DevicePtr) -> Option<Arc<GraphRecording>> {
        if self.pinned.load(Ordering::Acquire) == 0 {
            return None;
        }
        let by_ptr = self.by_ptr.lock();
        by_ptr
            .get(&ptr.0)
            .and_then(|v| v.iter().find_map(|(_, w)| w.upgrade()))
    }
}

impl MemoryPool {
    /// Allocate `bytes` for work captured by `recording` (see the module documentation).
    pub(super) fn alloc_recorded(
        &self,
        bytes: usize,
        recording: &Arc<GraphRecording>,
    ) -> Result<DeviceAllocation> {
        let class = class_size(bytes).ok_or_else(|| self.unsatisfiable(bytes))?;
        let reused = {
            let mut spare = self.pins.spare.lock();
            let list = spare.entry(recording.id()).or_default();
            let at = list.iter().position(|k| k.0.block_bytes == class);
            at.map(|i| list.swap_remove(i))
        };
        if let Some((old, _uses)) = reused {
            tracing::trace!(ptr = %old.ptr, "a block freed earlier in the capture reused");
            return Ok(self.handed_out(old.ptr, bytes, old.block_bytes, None));
        }
        let side = self.maintenance()?;
        let alloc = self.alloc(bytes, &side)?;
        if let Err(e) = side.synchronize() {
            self.free_without_caller(alloc, BufferUses::default())?;
            return Err(e);
        }
        recording.keep(alloc.ptr);
        self.pins
            .allocated
            .lock()
            .entry(recording.id())
            .or_default()
            .insert(alloc.ptr.0);
        Ok(alloc)
    }

    /// Free `alloc` (the buffer whose use record is `uses` was dropped or freed by a thread
    /// whose stream is `caller`), or hand it to the graph that uses it.
    pub(crate) fn release(
        &self,
        alloc: DeviceAllocation,
        uses: &Arc<Mutex<BufferUses>>,
        caller: Option<&Stream>,
    ) -> Result<()> {
        if let Some(holder) = self.pins.holder(alloc.ptr) {
            let list = if self.reusable_in_capture(&holder, &alloc, uses) {
                &self.pins.spare
            } else {
                tracing::debug!(ptr = %alloc.ptr, graph = holder.id(), "memory of a dropped buffer kept for a graph that uses it");
                &self.pins.kept
            };
            list.lock()
                .entry(holder.id())
                .or_default()
                .push((alloc, uses.clone()));
            return Ok(());
        }
        let uses = std::mem::take(&mut *uses.lock());
        match caller {
            Some(c) => self.free(alloc, uses, c),
            None => self.free_without_caller(alloc, uses),
        }
    }
}

impl MemoryPool {
    /// Whether `alloc`, freed while `recording`'s capture runs, can serve a later
    /// allocation of the same capture: it was allocated during the capture and every live
    /// use of it is on the capturing stream.
    fn reusable_in_capture(
        &self,
        recording: &GraphRecording,
        alloc: &DeviceAllocation,
        uses: &Mutex<BufferUses>,
    ) -> bool {
        let Some(stream) = recording.capturing_stream() else {
            return false;
        };
        let allocated = self
            .pins
            .allocated
            .lock()
            .get(&recording.id())
            .is_some_and(|a| a.contains(&alloc.ptr.0));
        allocated && uses.lock().live().iter().all(|u| u.is_by(&stream))
    }
}

impl RecordingMemory for MemoryPool {
    fn pin(&self, recording: &Arc<GraphRecording>, ptr: DevicePtr) {
        let mut by_ptr = self.pins.by_ptr.lock();
        let holders = by_ptr.entry(ptr.0).or_default();
        if holders.iter().any(|(id, _)| *id == recording.id()) {
            return;
        }
        holders.push((recording.id(), Arc::downgrade(recording)));
        self.pins.pinned.fetch_add(1, Ordering::AcqRel);
    }

    fn release_recording(&self, id: u64) {
        {
            let mut by_ptr = self.pins.by_ptr.lock();
            let mut unpinned = 0;
            by_ptr.retain(|_, holders| {
                let before = holders.len();
                holders.retain(|(h, _)| *h != id);
                unpinned += before - holders.len();
                !holders.is_empty()
            });
            self.pins.pinned.fetch_sub(unpinned, Ordering::AcqRel);
        }
        self.pins.allocated.lock().remove(&id);
        let mut kept = self.pins.kept.lock().remove(&id).unwrap_or_default();
        kept.extend(self.pins.spare.lock().remove(&id).unwrap_or_default());
        for (alloc, uses) in kept {
            if let Err(e) = self.release(alloc, &uses, None) {
                tracing::warn!(device = %self.device, error = %e, "freeing memory a graph kept failed");
            }
        }
    }
}
