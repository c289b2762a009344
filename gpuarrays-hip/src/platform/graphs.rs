//! Graph capture: recording the work enqueued on a stream into a graph, and replaying it.
//!
//! A concern of its own: only the stream layer's captures and the memory pool's bookkeeping
//! of allocations made during a capture use it.

use super::{CaptureMode, GraphExecHandle, GraphHandle, StreamHandle};
use crate::error::Result;

/// Stream capture into graphs and graph launches; a supertrait of [`super::Platform`].
pub trait GraphCapture {
    /// Start capturing work enqueued on `stream` into a graph.
    fn begin_capture(&self, stream: StreamHandle, mode: CaptureMode) -> Result<()>;
    /// Stop capturing and return the graph.
    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle>;
    /// Whether `stream` is capturing.
    fn is_capturing(&self, stream: StreamHandle) -> Result<bool>;
    /// Instantiate a graph.
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle>;
    /// Update the instantiated graph `exec` in place to run `graph`, a graph of the same
    /// topology whose nodes differ only in their parameters (kernel arguments, addresses,
    /// sizes): `cuGraphExecUpdate` / `hipGraphExecUpdate`, much cheaper than instantiating
    /// `graph`. `Ok(false)` when the driver refuses the update (another topology, node kind
    /// or kernel): `exec` is then unchanged. Launches enqueued before the update run the
    /// graph they were launched with.
    fn update_graph_exec(&self, exec: GraphExecHandle, graph: GraphHandle) -> Result<bool>;
    /// Launch an instantiated graph on `stream`.
    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()>;
    /// Destroy a graph.
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()>;
    /// Destroy an instantiated graph.
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()>;
}
