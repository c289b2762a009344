//! `EmuPlatform`'s compilation (the host `g++` after `emu.h`) and launches, its graphs (a
//! captured stream records its kernels with their parameters' bytes, its device copies and
//! fills; a launch runs them in order), and its BLAS and FFT calls, which the emulated
//! kernels' tests never make.

use super::*;

impl EmuPlatform {
    /// Builds `source` (saved as `cpp`) into the library `so` with the host `g++`.
    fn build(
        &self,
        request: &CompileRequest<'_>,
        source: &str,
        cpp: &Path,
        so: &Path,
    ) -> Result<()> {
        std::fs::write(cpp, source).map_err(|e| invalid(format!("write source: {e}")))?;
        let out = Command::new("g++")
            .args(build_cache::GXX_FLAGS)
            .arg("-include")
            .arg(self.dir.join("emu.h"))
            .arg(cpp)
            .arg("-o")
            .arg(so)
            .output()
            .map_err(|e| invalid(format!("run g++: {e}")))?;
        if !out.status.success() {
            return Err(HipError::Compile {
                platform: PlatformKind::TestDouble,
                program: request.name.into(),
                arch: request.arch.into(),
                call: "g++",
                log: format!(
                    "{} (source kept at {})",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .take(40)
                        .collect::<Vec<_>>()
                        .join("\n"),
                    cpp.display()
                ),
            });
        }
        let _ = std::fs::remove_file(cpp);
        Ok(())
    }
}

impl KernelModules for EmuPlatform {
    fn compiler_version(&self) -> Result<String> {
        Ok("g++ emulation".into())
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        let id = self.handle();
        let mut source = request.source.to_string();
        for k in request.kernel_names {
            let params = kernel_params(request.source, k)
                .ok_or_else(|| invalid(format!("kernel {k} not found in {}", request.name)))?;
            source.push_str(&trampoline(k, &params));
        }
        let cpp = self.dir.join(format!("m{id}.cpp"));
        let so = self.dir.join(format!("m{id}.so"));
        let cached = build_cache::entry(EMU_H, &source);
        if !cached
            .as_deref()
            .is_some_and(|c| build_cache::fetch(c, &so))
        {
            self.build(request, &source, &cpp, &so)?;
            if let Some(c) = &cached {
                build_cache::store(&so, c);
            }
        }
        Ok(CompiledProgram {
            binary: so.to_string_lossy().into_owned().into_bytes(),
            lowered_names: request
                .kernel_names
                .iter()
                .map(|k| (k.to_string(), k.to_string()))
                .collect(),
            log: String::new(),
        })
    }
    fn load_module(&self, _device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        let path = String::from_utf8_lossy(image).into_owned();
        // SAFETY: the library is one this platform just built; its initialisers only set up
        // the emulator's globals.
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| invalid(format!("load {path}: {e}")))?;
        let h = self.handle();
        self.state.lock().modules.insert(h, lib);
        Ok(ModuleHandle(h))
    }
    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        self.state.lock().modules.remove(&module.0);
        Ok(())
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let st = self.state.lock();
        let lib = st
            .modules
            .get(&module.0)
            .ok_or_else(|| invalid("no such module".into()))?;
        let symbol = format!("ga_emu_launch_{name}");
        // SAFETY: the symbol is a trampoline generated with exactly this signature.
        let f: libloading::Symbol<'_, Trampoline> =
            unsafe { lib.get(symbol.as_bytes()) }.map_err(|e| invalid(format!("{symbol}: {e}")))?;
        let sizes_symbol = format!("ga_emu_sizes_{name}");
        // SAFETY: generated next to the trampoline with exactly this signature.
        let sizes_fn: libloading::Symbol<'_, unsafe extern "C" fn(*mut u64) -> u32> =
            unsafe { lib.get(sizes_symbol.as_bytes()) }
                .map_err(|e| invalid(format!("{sizes_symbol}: {e}")))?;
        let mut sizes = [0u64; 64];
        // SAFETY: a kernel has far fewer than 64 parameters; the function writes one size
        // per parameter.
        let n = unsafe { sizes_fn(sizes.as_mut_ptr()) } as usize;
        let handle = FunctionHandle(*f as usize as u64);
        drop(st);
        let sizes = sizes[..n].iter().map(|&b| b as usize).collect();
        self.state.lock().param_sizes.insert(handle.0, sizes);
        Ok(handle)
    }
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        config: &LaunchConfig,
        _stream: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        if config.shared_mem_bytes != 0 {
            return Err(invalid("dynamic shared memory is not emulated".into()));
        }
        let threads: u32 = config.block.iter().product();
        if threads == 0 || threads > 1024 {
            return Err(invalid(format!("{threads} threads per block")));
        }
        {
            let mut st = self.state.lock();
            if st.captures.contains_key(&_stream.0) {
                let sizes = st.param_sizes.get(&function.0).cloned().unwrap_or_default();
                if sizes.len() != args.len() {
                    return Err(invalid("a captured kernel's parameters are unknown".into()));
                }
                let params = args
                    .iter()
                    .zip(&sizes)
                    .map(|(&p, &n)| {
                        // SAFETY: the trait's contract: each pointer points at its
                        // parameter, of the declared type whose size the module reported.
                        unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec()
                    })
                    .collect();
                let op = EmuOp::Kernel {
                    function,
                    grid: config.grid,
                    block: config.block,
                    params,
                };
                if let Some(ops) = st.captures.get_mut(&_stream.0) {
                    ops.push(op);
                }
                return Ok(());
            }
        }
        // SAFETY: `function` came from `get_function` (a trampoline of this signature), whose
        // module stays loaded while the backend holds it.
        let f: Trampoline = unsafe { std::mem::transmute(function.0 as usize) };
        let _one_at_a_time = LAUNCH.lock();
        // SAFETY: the trait's contract: one pointer per parameter, of the parameter's type.
        unsafe {
            f(
                args.as_mut_ptr(),
                config.grid.as_ptr(),
                config.block.as_ptr(),
            )
        };
        Ok(())
    }
}

impl GraphCapture for EmuPlatform {
    fn begin_capture(&self, stream: StreamHandle, _mode: CaptureMode) -> Result<()> {
        let mut st = self.state.lock();
        if st.captures.insert(stream.0, Vec::new()).is_some() {
            return Err(invalid("the stream already captures".into()));
        }
        Ok(())
    }
    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        let h = self.handle();
        let mut st = self.state.lock();
        let ops = st
            .captures
            .remove(&stream.0)
            .ok_or_else(|| invalid("the stream does not capture".into()))?;
        st.graphs.insert(h, Arc::new(ops));
        Ok(GraphHandle(h))
    }
    fn is_capturing(&self, stream: StreamHandle) -> Result<bool> {
        Ok(self.state.lock().captures.contains_key(&stream.0))
    }
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let h = self.handle();
        let mut st = self.state.lock();
        let ops = st
            .graphs
            .get(&graph.0)
            .cloned()
            .ok_or_else(|| invalid("no such graph".into()))?;
        st.graphs.insert(h, ops);
        Ok(GraphExecHandle(h))
    }
    fn update_graph_exec(&self, exec: GraphExecHandle, graph: GraphHandle) -> Result<bool> {
        let mut st = self.state.lock();
        let new = st
            .graphs
            .get(&graph.0)
            .cloned()
            .ok_or_else(|| invalid("no such graph".into()))?;
        let old = st
            .graphs
            .get_mut(&exec.0)
            .ok_or_else(|| invalid("no such executable graph".into()))?;
        // As the drivers: only the same nodes in the same order, kernels of the same
        // function, update in place (their parameters, addresses and sizes may differ).
        let same = old.len() == new.len()
            && old.iter().zip(new.iter()).all(|(a, b)| match (a, b) {
                (EmuOp::Kernel { function: f, .. }, EmuOp::Kernel { function: g, .. }) => f == g,
                (EmuOp::Copy { .. }, EmuOp::Copy { .. }) => true,
                (EmuOp::Memset { .. }, EmuOp::Memset { .. }) => true,
                _ => false,
            });
        if same {
            *old = new;
        }
        Ok(same)
    }
    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        let ops = self.state.lock().graphs.get(&graph.0).cloned();
        let ops = ops.ok_or_else(|| invalid("no such executable graph".into()))?;
        for op in ops.iter() {
            match op {
                EmuOp::Kernel {
                    function,
                    grid,
                    block,
                    params,
                } => {
                    let mut copies = params.clone();
                    let mut args: Vec<*mut c_void> =
                        copies.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
                    let config = LaunchConfig {
                        grid: *grid,
                        block: *block,
                        shared_mem_bytes: 0,
                    };
                    // SAFETY: the parameters' bytes as captured, one buffer per parameter of
                    // the kernel's declared size; the buffers they address are kept alive
                    // by the runtime for the graph's life.
                    unsafe { self.launch_kernel(*function, &config, stream, &mut args) }?;
                }
                EmuOp::Copy { dst, src, bytes } => {
                    // SAFETY: addresses the runtime keeps alive for the graph's life.
                    unsafe { self.copy_dtod_async(*dst, *src, *bytes, stream) }?
                }
                EmuOp::Memset { dst, value, bytes } => {
                    // SAFETY: as above.
                    unsafe { self.memset_async(*dst, *value, *bytes, stream) }?
                }
            }
        }
        Ok(())
    }
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        self.state.lock().graphs.remove(&graph.0);
        Ok(())
    }
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        self.state.lock().graphs.remove(&graph.0);
        Ok(())
    }
}

/// The error of a machine without the vendor BLAS, which the automatic matmul route answers
/// with the own kernel.
fn no_blas() -> HipError {
    HipError::LibraryNotFound {
        platform: PlatformKind::TestDouble,
        library: "a vendor BLAS",
        provider: "the emulator",
        tried: vec!["the emulator has no BLAS library".into()],
        hint: "the emulator runs matrix products on the own kernel",
    }
}

impl BlasLibrary for EmuPlatform {
    // No vendor BLAS on the emulator: matmul takes the own kernel (the route's fallback).
    fn blas_version(&self) -> Result<String> {
        Err(no_blas())
    }
    fn blas_create(&self, _device: DeviceId) -> Result<BlasHandle> {
        Err(no_blas())
    }
    fn blas_destroy(&self, _device: DeviceId, _handle: BlasHandle) -> Result<()> {
        Ok(())
    }
    unsafe fn blas_gemm(
        &self,
        _handle: BlasHandle,
        _stream: StreamHandle,
        _gemm: &GemmStridedBatched,
    ) -> Result<()> {
        Err(no_blas())
    }
}

impl FftLibrary for EmuPlatform {
    // No FFT library on the emulator (FFT is checked on the test double and on the GPU).
    fn fft_plan_create(&self, _device: DeviceId, _desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        Err(invalid("no FFT library on the emulator".into()))
    }
    fn fft_plan_destroy(&self, _device: DeviceId, _plan: FftPlanHandle) -> Result<()> {
        Ok(())
    }
    unsafe fn fft_execute(
        &self,
        _plan: FftPlanHandle,
        _desc: &FftPlanDesc,
        _input: DevicePtr,
        _output: DevicePtr,
        _work: DevicePtr,
        _work_bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(invalid("no FFT library on the emulator".into()))
    }
}

impl PeerAccess for EmuPlatform {
    // One device: no peers (copies between devices are checked on the test double).
    fn can_access_peer(&self, _device: DeviceId, _peer: DeviceId) -> Result<bool> {
        Ok(false)
    }
    fn enable_peer_access(&self, _device: DeviceId, _peer: DeviceId) -> Result<()> {
        Err(invalid("the emulator has one device: no peers".into()))
    }
    unsafe fn copy_peer_async(
        &self,
        _dst: DevicePtr,
        _dst_device: DeviceId,
        _src: DevicePtr,
        _src_device: DeviceId,
        _bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(invalid("the emulator has one device: no peers".into()))
    }
}

impl CollectiveLibrary for EmuPlatform {
    // No collective library on the emulator (collectives are checked on the test double and
    // on the GPU).
    fn collectives_version(&self) -> Result<String> {
        Err(invalid("no collective library on the emulator".into()))
    }
    fn collective_id(&self) -> Result<CollectiveId> {
        Err(invalid("no collective library on the emulator".into()))
    }
    fn comm_init_rank(
        &self,
        _device: DeviceId,
        _ranks: usize,
        _id: &CollectiveId,
        _rank: usize,
    ) -> Result<CommHandle> {
        Err(invalid("no collective library on the emulator".into()))
    }
    fn comm_destroy(&self, _comm: CommHandle) -> Result<()> {
        Ok(())
    }
    fn group_start(&self) -> Result<()> {
        Err(invalid("no collective library on the emulator".into()))
    }
    fn group_end(&self) -> Result<()> {
        Err(invalid("no collective library on the emulator".into()))
    }
    unsafe fn collective(
        &self,
        _comm: CommHandle,
        _call: &CollectiveCall,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(invalid("no collective library on the emulator".into()))
    }
}
