//! [`GraphRecording`]: what a user graph capture (`HipBackend::capture_graph`) learns while
//! it runs, and keeps for the graph's life: every buffer the captured work touches, with its
//! use record, so that each launch of the graph is ordered like any operation.
//!
//! **Why the use records, not the buffers.** A launch must wait for the work that wrote the
//! graph's inputs (on any thread) and must be waited for by later work and frees: exactly
//! what the ordering protocol does with a buffer's [`BufferUses`]. The record is shared
//! (`Arc`) between the buffer and the recording, so a launch is recorded where the buffer's
//! later operations and its free will look. The buffer itself stays with its array: dropping
//! the array hands the memory to the graph ([`RecordingMemory`], the memory pool), which
//! frees it when the recording drops.
//!
//! A recording lives as long as its capture (held by the stream's capture) and the graph
//! made from it; when the last holder lets go, the memory pool frees what it kept for it.

use super::{BufferUses, Stream};
use crate::platform::{DeviceId, DevicePtr};
use crate::sync::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The memory side of recordings (implemented by the memory pool of the device).
pub(crate) trait RecordingMemory: Send + Sync {
    /// `ptr` is used by `recording`'s graph: its memory must outlive the graph.
    fn pin(&self, recording: &Arc<GraphRecording>, ptr: DevicePtr);
    /// The recording `id` is gone: release what was kept for it.
    fn release_recording(&self, id: u64);
}

/// One buffer the captured work touched.
#[derive(Clone)]
pub(crate) struct Touched {
    /// The shared use record (its address is the global lock-order key).
    pub uses: Arc<Mutex<BufferUses>>,
    /// Whether any captured operation writes it.
    pub write: bool,
    pub ptr: DevicePtr,
    pub len: usize,
}

impl Touched {
    /// The lock-order key: the address of the use record (as in the ordering protocol).
    pub fn key(&self) -> usize {
        Arc::as_ptr(&self.uses) as usize
    }
}

/// See the module documentation.
pub struct GraphRecording {
    id: u64,
    device: DeviceId,
    memory: Arc<dyn RecordingMemory>,
    /// While the capture runs: the buffers touched so far, by lock key.
    touched: Mutex<HashMap<usize, Touched>>,
    /// After it: the same, sorted by lock key, as every launch needs them.
    frozen: OnceLock<Vec<Touched>>,
    /// The capturing stream while the capture runs (`None` after [`Self::freeze`]).
    stream: Mutex<Option<Stream>>,
}

impl std::fmt::Debug for GraphRecording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphRecording")
            .field("id", &self.id)
            .field("device", &self.device)
            .field("buffers", &self.touched().len())
            .finish()
    }
}

static NEXT_RECORDING: AtomicU64 = AtomicU64::new(1);

impl GraphRecording {
    pub(crate) fn new(
        device: DeviceId,
        memory: Arc<dyn RecordingMemory>,
        stream: &Stream,
    ) -> Arc<GraphRecording> {
        Arc::new(GraphRecording {
            stream: Mutex::new(Some(stream.clone())),
            id: NEXT_RECORDING.fetch_add(1, Ordering::Relaxed),
            device,
            memory,
            touched: Mutex::new(HashMap::new()),
            frozen: OnceLock::new(),
        })
    }

    /// Its id, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The device.
    pub fn device(&self) -> DeviceId {
        self.device
    }

    /// A captured operation uses the buffer at `ptr` (`len` bytes) whose use record is
    /// `uses`: remember it, and keep its memory for the graph.
    pub(crate) fn touch(
        self: &Arc<Self>,
        uses: &Arc<Mutex<BufferUses>>,
        write: bool,
        ptr: DevicePtr,
        len: usize,
    ) {
        let key = Arc::as_ptr(uses) as usize;
        let mut touched = self.touched.lock();
        if let Some(t) = touched.get_mut(&key) {
            t.write |= write;
            return;
        }
        touched.insert(
            key,
            Touched {
                uses: uses.clone(),
                write,
                ptr,
                len,
            },
        );
        drop(touched);
        self.memory.pin(self, ptr);
    }

    /// Memory allocated during the capture: kept for the graph even if no operation
    /// touches it through the ordering protocol.
    pub(crate) fn keep(self: &Arc<Self>, ptr: DevicePtr) {
        self.memory.pin(self, ptr);
    }

    /// The capture ended: fix the touched buffers, sorted by lock key (the protocol's
    /// global lock order), for the launches.
    pub(crate) fn freeze(&self) {
        self.stream.lock().take();
        let mut t: Vec<Touched> = self.touched.lock().drain().map(|(_, t)| t).collect();
        t.sort_unstable_by_key(Touched::key);
        let _ = self.frozen.set(t);
    }

    /// The capturing stream, while the capture runs.
    pub(crate) fn capturing_stream(&self) -> Option<Stream> {
        self.stream.lock().clone()
    }

    /// The buffers the graph uses (empty before [`Self::freeze`]).
    pub(crate) fn touched(&self) -> &[Touched] {
        self.frozen.get().map_or(&[], Vec::as_slice)
    }
}

impl Drop for GraphRecording {
    fn drop(&mut self) {
        self.memory.release_recording(self.id);
    }
}
