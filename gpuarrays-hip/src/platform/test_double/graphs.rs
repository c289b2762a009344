//! `impl GraphCapture for FakePlatform`: begin/end a capture (operations enqueued on a
//! capturing stream go into the graph), instantiate, launch (the captured operations run as
//! one piece of work) and destroy.
//!
//! Graph allocations follow CUDA's stream-ordered allocator in captures: an allocation the
//! graph makes and frees lives only inside each launch; one it leaves unfreed is live after
//! the launch (work outside the graph may then use it) until someone frees it, and the graph
//! cannot be launched again before that (`cuGraphLaunch` fails with an invalid value unless
//! instantiated to free on launch, which this crate does not use).

use super::state::{Capture, FakeExec};
use super::*;
use crate::platform::GraphCapture;

impl GraphCapture for FakePlatform {
    fn begin_capture(&self, stream: StreamHandle, mode: CaptureMode) -> Result<()> {
        let mut st = self.state.lock();
        st.usable(stream)
            .map_err(|code| api("begin_capture", code, "stream is unusable"))?;
        let s = st.stream_mut(stream).expect("a usable stream");
        if s.capture.is_some() {
            return Err(api(
                "begin_capture",
                codes::STREAM_CAPTURE_UNSUPPORTED,
                "already capturing",
            ));
        }
        s.capture = Some(Capture {
            ops: Vec::new(),
            mode,
            thread: std::thread::current().id(),
            invalidated: None,
        });
        Ok(())
    }

    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        let mut st = self.state.lock();
        let s = st
            .stream_mut(stream)
            .ok_or_else(|| no_such("end_capture", "stream"))?;
        let me = std::thread::current().id();
        if let Some(c) = &s.capture
            && c.mode != CaptureMode::Relaxed
            && c.thread != me
        {
            // CUDA: a global or thread-local capture is ended by the thread that began it.
            // Ended on another thread, the driver refuses and the capture is over all the
            // same (driver 580 on the H200 reports no capture afterwards); the work
            // recorded so far is lost.
            let (mode, thread) = (c.mode, c.thread);
            s.capture = None;
            return Err(api(
                "end_capture",
                codes::STREAM_CAPTURE_WRONG_THREAD,
                &format!(
                    "the capture was begun on {thread:?} in {mode:?} mode; end it on that thread"
                ),
            ));
        }
        let capture = s
            .capture
            .take()
            .ok_or_else(|| api("end_capture", codes::INVALID_VALUE, "not capturing"))?;
        if let Some(why) = capture.invalidated {
            return Err(api(
                "end_capture",
                codes::STREAM_CAPTURE_INVALIDATED,
                &format!(
                    "the capture was invalidated by {why} during it ({:?} mode, begun on {:?})",
                    capture.mode, capture.thread
                ),
            ));
        }
        let h = st.handle();
        st.graphs.insert(h, capture.ops);
        Ok(GraphHandle(h))
    }

    fn is_capturing(&self, stream: StreamHandle) -> Result<bool> {
        let st = self.state.lock();
        let s = st
            .stream(stream)
            .ok_or_else(|| no_such("is_capturing", "stream"))?;
        Ok(s.capture.is_some())
    }

    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let mut st = self.state.lock();
        let ops = st.graphs.get(&graph.0);
        let ops = ops
            .ok_or_else(|| no_such("instantiate_graph", "graph"))?
            .clone();
        let h = st.handle();
        let left_unfreed = Vec::new();
        st.execs.insert(h, FakeExec { ops, left_unfreed });
        Ok(GraphExecHandle(h))
    }

    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "launch_graph", stream)?;
        let exec = st.execs.get(&graph.0);
        let exec = exec.ok_or_else(|| no_such("launch_graph", "graph"))?;
        let ops = exec.ops.clone();
        if let Some(p) = exec.left_unfreed.iter().find(|p| st.allocs.contains_key(p)) {
            return Err(api(
                "launch_graph",
                codes::INVALID_VALUE,
                &format!(
                    "the graph's previous launch left its allocation {} unfreed; a graph \
                     cannot be launched again until every allocation it did not free is freed",
                    DevicePtr(*p)
                ),
            ));
        }
        // What the graph allocates and does not free is live after this launch.
        let mut unfreed = Vec::new();
        for op in &ops {
            match op {
                FakeOp::Alloc { ptr, .. } => unfreed.push(ptr.0),
                FakeOp::Free { ptr, .. } if st.allocs.get(&ptr.0).is_some_and(|a| !a.in_graph) => {
                    return Err(HipError::TestDouble(format!(
                        "graph frees {ptr}, which was allocated outside the graph \
                         (on a real device, launching such a graph crashes in hipGraphLaunch)"
                    )));
                }
                FakeOp::Free { ptr, .. } => unfreed.retain(|&p| p != ptr.0),
                _ => {}
            }
        }
        for p in &unfreed {
            if let Some(a) = st.allocs.get_mut(p) {
                a.graph_ran = true;
            }
        }
        if let Some(exec) = st.execs.get_mut(&graph.0) {
            exec.left_unfreed = unfreed;
        }
        st.enqueue(FakeOp::LaunchGraph { stream }, self.config.kernel_time);
        Ok(())
    }

    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        let record = self.state.lock().graphs.remove(&graph.0);
        removed(record, "destroy_graph", "graph")
    }

    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        let record = self.state.lock().execs.remove(&graph.0);
        removed(record, "destroy_graph_exec", "graph")
    }
}
