//! User graph capture on HIP: [`HipBackend::capture`] records the work a closure
//! enqueues on the calling thread's stream into a driver graph (`cuStreamBeginCapture` /
//! `hipStreamBeginCapture`), and [`HipGraph`] launches it again and again.
//!
//! How each rule of `gpuarrays_core::graph` holds here:
//! - **Recorded, not run.** The thread's pooled stream captures in relaxed mode; kernels,
//!   copies between buffers, cuBLAS/rocBLAS and cuFFT/rocFFT calls (FFT work areas are the
//!   capture's own) become graph nodes.
//! - **Memory outlives the launches.** Allocations during the capture are ordinary pool
//!   memory, waited for on the host before the allocation returns; every buffer the captured
//!   work touches and every allocation made meanwhile is kept for the graph: dropping its
//!   array hands the memory to the graph, freed when the graph drops
//!   (`memory/memory_pool/graph_pins.rs`).
//! - **Ordered launches.** A launch is enqueued like one operation over every buffer the
//!   recording touched (`DeviceState::enqueue_recorded`): after earlier writes from any
//!   thread, and recorded so later work and frees wait for it.
//! - **Nothing synchronises or leaks into the capture.** Host copies and synchronisation are
//!   refused before they reach the driver (`HipError::StreamCapturing`, the core's
//!   `NotCapturable`); a free whose fence would record into the capture waits for its end;
//!   another thread's enqueue never lands on the capturing stream (its foreign-enqueue lock).
//! - **All or nothing.** An error inside the closure, or a capture the driver invalidated,
//!   ends the capture, destroys its graph and returns the error.
//! - **Updates** ([`HipGraph::update`]) capture the closure again into a new driver graph
//!   and hand it to `cuGraphExecUpdate` / `hipGraphExecUpdate`, which rewrites the
//!   executable graph's node parameters (kernel arguments: scalars, addresses) in place
//!   when the topology and node kinds match: no instantiation, and launches already
//!   enqueued keep what they were launched with. Otherwise the new graph is instantiated
//!   and the old executable graph destroyed after its last launch. The new recording
//!   replaces the old one, whose memory is released after every recorded use — the
//!   launches made with it included.

use std::sync::Arc;

use gpuarrays_core::{GraphReplay, Result as CoreResult};

use super::HipBackend;
use crate::device::refuse_capture;
use crate::error::Result;
use crate::platform::{GraphExecHandle, GraphHandle};
use crate::stream::{GraphRecording, Use};
use crate::sync::Mutex;

/// A graph recorded by [`HipBackend::capture`]: launch it with
/// [`GraphReplay::launch`] (or core's `Graph::launch`).
pub struct HipGraph {
    backend: HipBackend,
    /// What a launch runs; held by launches and swapped by updates.
    current: Mutex<Current>,
}

/// The executable graph, the recording its buffers are ordered by, and its last launch.
struct Current {
    exec: GraphExecHandle,
    recording: Arc<GraphRecording>,
    /// The last launch, waited for before the executable graph is destroyed.
    last_launch: Option<Use>,
}

impl std::fmt::Debug for HipGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let current = self.current.lock();
        f.debug_struct("HipGraph")
            .field("exec", &current.exec)
            .field("recording", &current.recording)
            .finish()
    }
}

impl HipGraph {
    /// Launch the graph on the calling thread's stream (see the module documentation).
    pub fn launch(&self) -> Result<()> {
        let state = self.backend.device_state();
        let stream = state.thread_stream()?;
        refuse_capture(&stream, "a graph launch")?;
        let platform = state.platform();
        let mut current = self.current.lock();
        let exec = current.exec;
        state.enqueue_recorded(&stream, current.recording.touched(), |s| {
            platform.launch_graph(exec, s.handle())
        })?;
        current.last_launch = Some(Use::new(&stream));
        Ok(())
    }

    /// Capture `record` again and launch that from now on (see the module documentation):
    /// the executable graph is updated in place when the driver allows, else replaced.
    /// On an error the graph is unchanged.
    pub fn update(&self, record: &mut dyn FnMut() -> CoreResult<()>) -> CoreResult<()> {
        let (graph, recording) = self.backend.record_graph(record)?;
        let state = self.backend.device_state();
        let platform = state.platform();
        let mut current = self.current.lock();
        let updated = platform.update_graph_exec(current.exec, graph);
        let exec = match updated {
            Ok(true) => None,
            Ok(false) => match platform.instantiate_graph(graph) {
                Ok(exec) => Some(exec),
                Err(e) => {
                    discard(platform.as_ref(), graph);
                    return Err(self.backend.err(e));
                }
            },
            Err(e) => {
                discard(platform.as_ref(), graph);
                return Err(self.backend.err(e));
            }
        };
        discard(platform.as_ref(), graph);
        tracing::debug!(device = %state.id(), in_place = exec.is_none(), recording = ?recording, "graph updated");
        let old = std::mem::replace(&mut current.recording, recording);
        let retired = exec.map(|exec| {
            let old_exec = std::mem::replace(&mut current.exec, exec);
            (old_exec, current.last_launch.take())
        });
        drop(current);
        // Waited for without the lock: launches of the new executable graph may go on.
        if let Some((old_exec, last)) = retired {
            retire(&self.backend, old_exec, last);
        }
        // Its memory goes back after every recorded use, the launches made with it included.
        drop(old);
        Ok(())
    }
}

impl GraphReplay for HipGraph {
    fn launch(&self) -> CoreResult<()> {
        HipGraph::launch(self).map_err(|e| self.backend.err(e))
    }

    fn update(&self, record: &mut dyn FnMut() -> CoreResult<()>) -> CoreResult<()> {
        HipGraph::update(self, record)
    }
}

impl Drop for HipGraph {
    fn drop(&mut self) {
        let current = self.current.get_mut();
        let last = current.last_launch.take();
        retire(&self.backend, current.exec, last);
    }
}

/// Destroys an executable graph once `last`, its last launch, has finished. Never fails:
/// an error is logged (and the graph leaked where its launch could not be waited for).
fn retire(backend: &HipBackend, exec: GraphExecHandle, last: Option<Use>) {
    let state = backend.device_state();
    let platform = state.platform();
    if let Some(last) = last
        && let Err(e) = platform
            .bind_device(state.id())
            .and_then(|()| last.synchronize(state.events()))
    {
        // Destroying an executable graph a launch may still run is not promised safe
        // on every platform: leak it rather than risk that.
        tracing::warn!(device = %state.id(), error = %e, "waiting for a graph's last launch failed; its executable graph is leaked");
        return;
    }
    if let Err(e) = platform.destroy_graph_exec(exec) {
        tracing::warn!(device = %state.id(), error = %e, "destroying an executable graph failed");
    }
}

impl HipBackend {
    /// Records the work `record` enqueues on the calling thread into a [`HipGraph`] (see the
    /// module documentation).
    pub fn capture(&self, record: &mut dyn FnMut() -> CoreResult<()>) -> CoreResult<HipGraph> {
        let (graph, recording) = self.record_graph(record)?;
        let state = self.device_state();
        let platform = state.platform();
        let exec = platform.instantiate_graph(graph);
        discard(platform.as_ref(), graph);
        let exec = exec.map_err(|e| self.err(e))?;
        tracing::debug!(device = %state.id(), recording = ?recording, "graph captured");
        Ok(HipGraph {
            backend: self.clone(),
            current: Mutex::new(Current {
                exec,
                recording,
                last_launch: None,
            }),
        })
    }

    /// Captures the work `record` enqueues on the calling thread: the driver graph (the
    /// caller's to destroy) and its recording.
    fn record_graph(
        &self,
        record: &mut dyn FnMut() -> CoreResult<()>,
    ) -> CoreResult<(GraphHandle, Arc<GraphRecording>)> {
        let state = self.device_state().clone();
        let stream = state.thread_stream().map_err(|e| self.err(e))?;
        let memory: Arc<dyn crate::stream::RecordingMemory> = state.memory().clone();
        let recording = GraphRecording::new(state.id(), memory, &stream);
        stream
            .begin_recording(recording.clone())
            .map_err(|e| self.err(e))?;
        // A panic in `record` must not leave the thread's stream capturing.
        let mut guard = EndOnUnwind(Some(&stream), state.platform().as_ref());
        let recorded = record();
        guard.0 = None;
        let ended = stream.end_capture();
        recording.freeze();
        match (recorded, ended) {
            (Ok(()), Ok(graph)) => Ok((graph, recording)),
            (Err(e), ended) => {
                if let Ok(graph) = ended {
                    discard(state.platform().as_ref(), graph);
                }
                Err(e)
            }
            (Ok(()), Err(e)) => Err(self.err(e)),
        }
    }
}

/// Ends the capture of the stream it holds when dropped armed (`record` panicked).
struct EndOnUnwind<'a>(
    Option<&'a crate::stream::Stream>,
    &'a dyn crate::platform::Platform,
);

impl Drop for EndOnUnwind<'_> {
    fn drop(&mut self) {
        if let Some(stream) = self.0
            && let Ok(graph) = stream.end_capture()
        {
            discard(self.1, graph);
        }
    }
}

fn discard(platform: &dyn crate::platform::Platform, graph: GraphHandle) {
    if let Err(e) = platform.destroy_graph(graph) {
        tracing::warn!(error = %e, "destroying a captured graph failed");
    }
}
