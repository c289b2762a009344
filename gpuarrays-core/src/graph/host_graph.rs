//! Core's own graphs, for every backend that records none itself (the CPU reference, wgpu,
//! backends written with the kit): the capture records the list of backend calls core
//! makes — each with its description and buffers — and a launch makes the same calls again.
//!
//! What a launch saves is core's side of an operation: checking shapes and types, building
//! and simplifying the expression, choosing the kernel, allocating the output. The backend
//! still runs each call as it would eagerly (for wgpu: encodes and submits it), so the
//! saving is largest for small arrays, where that side is most of the time.
//!
//! How the rules of [`crate::graph`] hold here:
//! - **Recorded, not run**: while the closure runs, core's backend calls for this backend on
//!   this thread are appended to the recording instead of reaching the backend
//!   ([`super::dispatch`]); allocations happen (that is when arrays get their memory).
//! - **Memory outlives the launches**: the graph holds a `DataRef` of every buffer its calls
//!   use, so dropping an array hands its buffer to the graph, released when the graph
//!   drops. Temporaries are kept too, but a temporary dropped during the capture is handed
//!   to a later allocation of the same size in the capture (`recorder::alloc`), so a chain
//!   of operations holds a few buffers, as eagerly, not one per operation.
//! - **Ordered launches**: a launch makes ordinary backend calls, in the recorded order,
//!   ordered against other threads' calls as any call is; two launches of one graph do not
//!   interleave.
//! - **All or nothing**: an error or a panic in the closure ends the capture and drops
//!   what it recorded.
//! - **Updates** record the closure again and swap the list of calls (with its buffers) in
//!   whole, between launches.

use std::collections::HashMap;

use super::recorded_op::RecordedOp;
use super::recorder::ActiveCapture;
use crate::backend::Backend;
use crate::data_ref::{BufferGuard, DataRef};
use crate::error::Result;
use crate::graph::GraphReplay;

/// A graph of backend calls recorded by core (see the module documentation).
pub(super) struct HostGraph<B: Backend> {
    backend: B,
    /// Held by a launch: two threads launching one graph run its calls one launch after the
    /// other, not interleaved call by call (each launch is one unit, as on HIP, where a
    /// launch is one ordered operation); replaced whole by an update.
    recorded: parking_lot::Mutex<Recorded<B>>,
}

/// The calls of a recording and the buffers they use.
struct Recorded<B: Backend> {
    ops: Vec<RecordedOp>,
    /// The buffers the calls use; `RecordedOp` positions index this list.
    buffers: Vec<DataRef<B::Buffer>>,
}

/// Runs `record` on this thread while recording core's backend calls for `backend`.
pub(super) fn capture<B: Backend>(
    backend: &B,
    record: &mut dyn FnMut() -> Result<()>,
) -> Result<Box<dyn GraphReplay>> {
    Ok(Box::new(HostGraph {
        backend: backend.clone(),
        recorded: parking_lot::Mutex::new(record_calls(backend, record)?),
    }))
}

fn record_calls<B: Backend>(
    backend: &B,
    record: &mut dyn FnMut() -> Result<()>,
) -> Result<Recorded<B>> {
    let active = ActiveCapture::begin(backend)?;
    record()?;
    let rec = active.finish()?;
    // Keep only the buffers some call uses, renumbered in order of first use.
    let mut kept: HashMap<usize, usize> = HashMap::new();
    let mut buffers = Vec::new();
    let mut ops = rec.ops;
    for op in &ops {
        for &b in op.buffers() {
            kept.entry(b).or_insert_with(|| {
                buffers.push(rec.buffers[b].clone());
                buffers.len() - 1
            });
        }
    }
    for op in &mut ops {
        op.renumber(|b| kept[&b]);
    }
    Ok(Recorded { ops, buffers })
}

impl<B: Backend> GraphReplay for HostGraph<B> {
    fn launch(&self) -> Result<()> {
        let recorded = self.recorded.lock();
        let guards: Vec<BufferGuard<'_, B::Buffer>> = recorded
            .buffers
            .iter()
            .map(DataRef::read)
            .collect::<Result<_>>()?;
        let bufs: Vec<&B::Buffer> = guards.iter().map(|g| &**g).collect();
        for op in &recorded.ops {
            op.replay(&self.backend, &bufs)?;
        }
        Ok(())
    }

    /// A new list of calls; the old one's buffers are released as any buffer is (after the
    /// calls made with them, which the backend orders).
    fn update(&self, record: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        let new = record_calls(&self.backend, record)?;
        let old = std::mem::replace(&mut *self.recorded.lock(), new);
        drop(old);
        Ok(())
    }

    fn node_count(&self) -> Option<usize> {
        Some(self.recorded.lock().ops.len())
    }
}
