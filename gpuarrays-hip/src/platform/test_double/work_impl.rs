//! `impl KernelModules, GraphCapture, BlasLibrary, FftLibrary for FakePlatform`: compilation
//! that checks the kernels are in the source and can be held at a gate, launches that do not
//! compute, stream capture and graphs, and the BLAS and FFT fakes (`blas.rs`, `fft.rs`).
//!
//! Capture: operations enqueued on a capturing stream go into the graph; a launched graph's
//! operations run as one piece of work.
//!
//! Graph allocations follow CUDA's stream-ordered allocator in captures: an allocation the
//! graph makes and frees lives only inside each launch; one it leaves unfreed is live after
//! the launch (work outside the graph may then use it) until someone frees it, and the graph
//! cannot be launched again before that (`cuGraphLaunch` fails with an invalid value unless
//! instantiated to free on launch, which this crate does not use).

use super::state::{Capture, FakeExec};
use super::*;
use crate::platform::{
    BlasHandle, BlasLibrary, CompileRequest, CompiledProgram, FftLibrary, FftPlanDesc,
    FftPlanHandle, FftPlanInfo, FunctionHandle, GemmStridedBatched, GraphCapture, KernelModules,
    LaunchConfig, ModuleHandle,
};
use std::ffi::c_void;

impl KernelModules for FakePlatform {
    fn compiler_version(&self) -> Result<String> {
        Ok("fake-rtc 1.0".into())
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        self.compiling.fetch_add(1, Ordering::SeqCst);
        let held = self.pass_compile_gate();
        self.compiling.fetch_sub(1, Ordering::SeqCst);
        held?;
        for k in request.kernel_names {
            let base = k.split('<').next().unwrap_or(k);
            if !request.source.contains(base) {
                return Err(HipError::Compile {
                    platform: PlatformKind::TestDouble,
                    program: request.name.into(),
                    arch: request.arch.into(),
                    call: "compile",
                    log: format!("kernel {k} not found in source"),
                });
            }
        }
        let names = request.kernel_names.iter();
        Ok(CompiledProgram {
            binary: request.source.as_bytes().to_vec(),
            lowered_names: names.map(|k| (k.to_string(), k.to_string())).collect(),
            log: String::new(),
        })
    }
    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        let h = st.handle();
        st.modules
            .insert(h, String::from_utf8_lossy(image).into_owned());
        Ok(ModuleHandle(h))
    }
    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        let record = self.state.lock().modules.remove(&module.0);
        removed(record, "unload_module", "module")
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let mut st = self.state.lock();
        let source = st
            .modules
            .get(&module.0)
            .ok_or_else(|| no_such("get_function", "module"))?;
        if !source.contains(name) {
            return Err(api("get_function", 500, "no such function"));
        }
        let h = st.handle();
        st.functions.insert(h, name.to_string());
        Ok(FunctionHandle(h))
    }
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        _config: &LaunchConfig,
        stream: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        // SAFETY: the trait's contract: each parameter lies in storage readable for 8 bytes.
        let words: smallvec::SmallVec<[u64; 32]> = args
            .iter()
            .map(|&p| unsafe { std::ptr::read_unaligned(p as *const u64) })
            .collect();
        let mut st = self.state.lock();
        self.enqueue_check(&st, "launch_kernel", stream)?;
        if !st.functions.contains_key(&function.0) {
            return Err(no_such("launch_kernel", "function"));
        }
        if st.enqueue(FakeOp::Launch { stream }, self.config.kernel_time) {
            return Ok(());
        }
        // The device addresses among the parameters: what the kernel may touch, read or
        // written as the runtime declared (undeclared: a write).
        let mut touched: smallvec::SmallVec<[(u64, bool); 8]> = smallvec::SmallVec::new();
        for w in words {
            let Some(base) = Self::allocation_of(&st, w) else {
                continue;
            };
            let write =
                super::super::access_declarations::declared_kind(DevicePtr(w)).unwrap_or(true);
            match touched.iter_mut().find(|t| t.0 == base) {
                Some(t) => t.1 |= write,
                None => touched.push((base, write)),
            }
        }
        for (base, write) in touched {
            self.note(&mut st, stream, base, write, "kernel");
        }
        Ok(())
    }
}

impl FakePlatform {
    /// Wait (outside every lock of the double) while compilations are held.
    fn pass_compile_gate(&self) -> Result<()> {
        let deadline = Instant::now() + SYNC_TIMEOUT;
        let (closed, opened) = &self.compile_gate;
        let mut closed = closed.lock();
        while *closed {
            if opened.wait_until(&mut closed, deadline).timed_out() {
                return Err(HipError::TestDouble(format!(
                    "compile: held at the gate for {SYNC_TIMEOUT:?} (would deadlock)"
                )));
            }
        }
        Ok(())
    }
}

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
        st.stats.graph_instantiations += 1;
        Ok(GraphExecHandle(h))
    }

    fn update_graph_exec(&self, exec: GraphExecHandle, graph: GraphHandle) -> Result<bool> {
        let mut guard = self.state.lock();
        let st = &mut *guard;
        let ops = st
            .graphs
            .get(&graph.0)
            .ok_or_else(|| no_such("update_graph_exec", "graph"))?;
        let e = st
            .execs
            .get_mut(&exec.0)
            .ok_or_else(|| no_such("update_graph_exec", "executable graph"))?;
        // As the drivers: only a graph of the same topology and node kinds updates in place
        // (here, the same sequence of operation kinds); otherwise nothing changes.
        let same = e.ops.len() == ops.len()
            && e.ops
                .iter()
                .zip(ops)
                .all(|(a, b)| std::mem::discriminant(a) == std::mem::discriminant(b));
        if !same {
            return Ok(false);
        }
        e.ops = ops.clone();
        st.stats.graph_updates += 1;
        Ok(true)
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
        if !st.enqueue(FakeOp::LaunchGraph { stream }, self.config.kernel_time) {
            // The graph's accesses: the ranges its launch declared (a user graph declares
            // every buffer its recording touched).
            for a in super::super::access_declarations::declared() {
                if let Some(base) = Self::allocation_of(&st, a.ptr.0) {
                    self.note(&mut st, stream, base, a.write, "graph launch");
                }
            }
        }
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

impl BlasLibrary for FakePlatform {
    fn blas_version(&self) -> Result<String> {
        if self.config.blas_available {
            Ok("fake BLAS 1.0".into())
        } else {
            self.fake_blas_create(DeviceId(0)).map(|_| String::new())
        }
    }
    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        self.fake_blas_create(device)
    }
    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        self.fake_blas_destroy(device, handle)
    }
    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()> {
        self.fake_blas_gemm(handle, stream, gemm)
    }
}

impl FftLibrary for FakePlatform {
    fn fft_plan_create(&self, device: DeviceId, desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        self.fake_fft_plan_create(device, desc)
    }
    fn fft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()> {
        self.fake_fft_plan_destroy(device, plan)
    }
    unsafe fn fft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        self.fake_fft_execute(plan, desc, input, output, work, work_bytes, stream)
    }
}
