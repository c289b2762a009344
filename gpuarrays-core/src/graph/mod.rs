//! Graph capture: record a sequence of array operations once, replay it many times.
//!
//! ```text
//! let (graph, y) = gpuarrays_core::graph::capture(&hip, || (&x * 2.0)?.exp())?;
//! for _ in 0..1000 {
//!     graph.launch()?;      // the same kernels, on the same buffers, at a fraction of the cost
//! }
//! println!("{y}");          // the last launch's result
//! ```
//!
//! **Why.** An eager operation costs the host several microseconds (checks, kernel lookup,
//! ordering, the driver's launch); for small arrays that, not the device, is the run time.
//! A captured graph replays the recorded device work with one driver call per launch.
//!
//! **Semantics** (the backend's [`Backend::capture_graph`] documents its own details):
//! - `record` runs once, on the calling thread; the work it enqueues on that thread is
//!   recorded, not run. Arrays it creates (its outputs, its temporaries) get their memory
//!   when they are created and keep it for the graph's life: each [`Graph::launch`] computes
//!   into the same buffers, so an output array returned by `record` holds the result of the
//!   last launch (its contents before the first launch are unspecified).
//! - Inputs are read at each launch: write new values into them (`assign`, `eval_into`,
//!   `write`) between launches. Scalars are part of the recording: [`Graph::update`]
//!   records the closure again with other scalars (on HIP the driver's executable graph is
//!   then updated in place, not instantiated anew).
//! - Work that needs the host now cannot be recorded: reading values back (`to_vec`,
//!   `item`, operations whose result size depends on the data: `nonzero`, `unique`, masked
//!   selection, a gather's out-of-range check), `synchronize`, writing host data into a
//!   buffer. Each is [`Error::NotCapturable`] naming what was refused, and the capture fails
//!   as a whole (no graph, nothing left recorded).
//! - A buffer a graph uses is never freed before the graph: dropping an array whose buffer
//!   the graph reads or writes hands the memory to the graph, which frees it when it drops.
//! - Launches are ordered like any operation: after the work that earlier wrote the graph's
//!   buffers (from any thread), and before later work on them.
//!
//! **Where the graph comes from.** A backend that records graphs itself
//! ([`Backend::records_graphs`]: HIP, through stream capture) records the device work.
//! Every other backend (the CPU reference, wgpu, a backend written with the kit) gets
//! core's graphs: the capture records the backend calls core makes, each with its
//! description and buffers, and a launch makes the same calls again, skipping core's
//! checks, expression building, kernel choice and allocations (module `host_graph`). The
//! rules above hold for both, so code written against this API runs on every backend.

pub(crate) mod dispatch;
mod host_graph;
mod recorded_op;
mod recorder;

pub(crate) use recorder::alloc;
#[cfg(not(loom))]
pub(crate) use recorder::note_buffer;
pub use recorder::refuse_while_recording;

use crate::backend::Backend;
use crate::error::{Error, Result};

/// A backend's recorded work, ready to be launched again and again.
pub trait GraphReplay: Send + Sync {
    /// Enqueue the recorded work once more, on the calling thread's queue, ordered after the
    /// earlier work on the graph's buffers.
    fn launch(&self) -> Result<()>;
    /// Record `record` (which calls the user's closure once) and replay that from now on
    /// instead of what was recorded before; on an error nothing changes ([`Graph::update`]).
    fn update(&self, record: &mut dyn FnMut() -> Result<()>) -> Result<()>;
    /// How many operations (kernels, copies, library calls) the graph holds, where the
    /// backend knows it.
    fn node_count(&self) -> Option<usize> {
        None
    }
}

/// A recorded sequence of operations ([`capture`]).
pub struct Graph {
    replay: Box<dyn GraphReplay>,
    backend: &'static str,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("backend", &self.backend)
            .field("nodes", &self.replay.node_count())
            .finish()
    }
}

impl Graph {
    /// Run the recorded work once more (asynchronously, like any operation).
    pub fn launch(&self) -> Result<()> {
        self.replay.launch()
    }

    /// Record `record` again, under the rules of [`capture`], and launch that from now on
    /// in place of what the graph launched before; returns `record`'s result.
    ///
    /// This is how a graph's scalars change: record the same operations with the new
    /// values. On HIP, when the new recording has the old one's shape — the same
    /// operations in the same order, differing only in scalars, buffers or sizes — the
    /// driver's executable graph is updated in place (`cuGraphExecUpdate` /
    /// `hipGraphExecUpdate`), which costs a fraction of instantiating a new one; any other
    /// recording is instantiated anew (after the graph's last launch has finished). Core's
    /// graphs (every other backend) replace their list of calls.
    ///
    /// Arrays `record` creates are new, as in a capture: the graph computes into the new
    /// outputs it returns from now on, and the old outputs keep the last values the old
    /// recording computed (their memory is released when they and the launches are done).
    /// Launches made before the update run what they were launched with. If `record` or the
    /// recording fails, the graph is unchanged.
    pub fn update<R>(&self, record: impl FnOnce() -> Result<R>) -> Result<R> {
        let ((), result) = record_once("update", record, |run| self.replay.update(run))?;
        Ok(result)
    }

    /// The backend that recorded it.
    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// How many operations the graph holds, where the backend knows it.
    pub fn node_count(&self) -> Option<usize> {
        self.replay.node_count()
    }
}

/// Record the work `record` enqueues on `backend` from the calling thread into a [`Graph`],
/// and return it with `record`'s result (see the module documentation for the rules).
pub fn capture<B: Backend, R>(
    backend: &B,
    record: impl FnOnce() -> Result<R>,
) -> Result<(Graph, R)> {
    let (replay, result) = record_once("capture", record, |run| {
        if backend.records_graphs() {
            backend.capture_graph(run)
        } else {
            host_graph::capture(backend, run)
        }
    })?;
    Ok((
        Graph {
            replay,
            backend: backend.name(),
        },
        result,
    ))
}

/// Gives `with` a closure that runs `record` (once) and keeps its result; returns what
/// `with` returns and that result.
fn record_once<T, R>(
    op: &'static str,
    record: impl FnOnce() -> Result<R>,
    with: impl FnOnce(&mut dyn FnMut() -> Result<()>) -> Result<T>,
) -> Result<(T, R)> {
    let mut record = Some(record);
    let mut result = None;
    let mut run = || {
        let f = record
            .take()
            .ok_or_else(|| Error::invalid_arg(op, "the backend ran the recording closure twice"))?;
        result = Some(f()?);
        Ok(())
    };
    let made = with(&mut run)?;
    let result = result
        .ok_or_else(|| Error::invalid_arg(op, "the backend never ran the recording closure"))?;
    Ok((made, result))
}
