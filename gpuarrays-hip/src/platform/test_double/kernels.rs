//! `impl KernelModules for FakePlatform` (compilation that checks the kernels are in the
//! source and can be held at a gate, launches that do not compute), and the FFT fake behind
//! `impl FftLibrary` (`fft.rs`).

use super::*;
use crate::platform::{
    CompileRequest, CompiledProgram, FftLibrary, FftPlanDesc, FftPlanHandle, FftPlanInfo,
    FunctionHandle, KernelModules, LaunchConfig, ModuleHandle,
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
