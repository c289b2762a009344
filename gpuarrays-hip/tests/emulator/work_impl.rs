//! `EmuPlatform`'s compilation (the host `g++` after `emu.h`) and launches, and its graph,
//! BLAS and FFT calls, which the emulated kernels' tests never make.

use super::*;

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
        std::fs::write(&cpp, &source).map_err(|e| invalid(format!("write source: {e}")))?;
        let out = Command::new("g++")
            .args([
                "-std=c++17",
                "-O1",
                "-g0",
                "-w",
                "-fPIC",
                "-shared",
                "-include",
            ])
            .arg(self.dir.join("emu.h"))
            .arg(&cpp)
            .arg("-o")
            .arg(&so)
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
        let _ = std::fs::remove_file(&cpp);
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
        Ok(FunctionHandle(*f as usize as u64))
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
    fn begin_capture(&self, _stream: StreamHandle, _mode: CaptureMode) -> Result<()> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn end_capture(&self, _stream: StreamHandle) -> Result<GraphHandle> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn is_capturing(&self, _stream: StreamHandle) -> Result<bool> {
        Ok(false)
    }
    fn instantiate_graph(&self, _graph: GraphHandle) -> Result<GraphExecHandle> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn launch_graph(&self, _graph: GraphExecHandle, _stream: StreamHandle) -> Result<()> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn destroy_graph(&self, _graph: GraphHandle) -> Result<()> {
        Ok(())
    }
    fn destroy_graph_exec(&self, _graph: GraphExecHandle) -> Result<()> {
        Ok(())
    }
}

impl BlasLibrary for EmuPlatform {
    // No vendor BLAS on the emulator: matmul takes the own kernel (the route's fallback).
    fn blas_version(&self) -> Result<String> {
        Err(invalid("no BLAS library on the emulator".into()))
    }
    fn blas_create(&self, _device: DeviceId) -> Result<BlasHandle> {
        Err(invalid("no BLAS library on the emulator".into()))
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
        Err(invalid("no BLAS library on the emulator".into()))
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
