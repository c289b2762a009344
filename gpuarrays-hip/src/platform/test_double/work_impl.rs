//! `impl KernelModules, GraphCapture, BlasLibrary, FftLibrary for FakePlatform`: compilation and
//! launches that do not compute, graph capture with CUDA's rules, the BLAS and FFT fakes.

use super::*;

impl KernelModules for FakePlatform {
    fn compiler_version(&self) -> Result<String> {
        Ok("fake-rtc 1.0".into())
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        self.compiling.fetch_add(1, Ordering::SeqCst);
        let held = self.delay_compile();
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
        Ok(CompiledProgram {
            binary: request.source.as_bytes().to_vec(),
            lowered_names: request
                .kernel_names
                .iter()
                .map(|k| (k.to_string(), k.to_string()))
                .collect(),
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
        match self.state.lock().modules.remove(&module.0) {
            Some(_) => Ok(()),
            None => Err(api(
                "unload_module",
                codes::INVALID_HANDLE,
                "no such module",
            )),
        }
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let mut st = self.state.lock();
        let src = st
            .modules
            .get(&module.0)
            .ok_or_else(|| api("get_function", codes::INVALID_HANDLE, "no such module"))?;
        if !src.contains(name) {
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
            return Err(api(
                "launch_kernel",
                codes::INVALID_HANDLE,
                "no such function",
            ));
        }
        if st.enqueue(FakeOp::Launch { stream, function }, self.config.kernel_time) {
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

impl GraphCapture for FakePlatform {
    fn begin_capture(&self, stream: StreamHandle, mode: CaptureMode) -> Result<()> {
        self.fake_begin_capture(stream, mode)
    }
    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        self.fake_end_capture(stream)
    }
    fn is_capturing(&self, stream: StreamHandle) -> Result<bool> {
        self.fake_is_capturing(stream)
    }
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        self.fake_instantiate_graph(graph)
    }
    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        self.fake_launch_graph(graph, stream)
    }
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        self.fake_destroy_graph(graph)
    }
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        self.fake_destroy_graph_exec(graph)
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
