//! `impl KernelModules, GraphCapture, BlasLibrary, FftLibrary for AmdPlatform`: hiprtc and HIP's
//! modules and launches, graph capture, rocBLAS and rocFFT.

use super::AmdPlatform;
use super::platform_impl::p;
use crate::error::{HipError, Result};
use crate::platform::{
    BlasHandle, BlasLibrary, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DevicePtr,
    FftLibrary, FftPlanDesc, FftPlanHandle, FftPlanInfo, FunctionHandle, GemmStridedBatched,
    GraphCapture, GraphExecHandle, GraphHandle, KernelModules, LaunchConfig, ModuleHandle,
    Platform, StreamHandle,
};
use std::ffi::{CString, c_void};

impl KernelModules for AmdPlatform {
    fn compiler_version(&self) -> Result<String> {
        self.rtc_version()
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        self.rtc_compile(request)
    }
    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        self.bind_device(device)?;
        let mut m = std::ptr::null_mut();
        // SAFETY: `image` is a complete code object that outlives the call.
        self.check("hipModuleLoadData", unsafe {
            (self.f().hipModuleLoadData)(&mut m, image.as_ptr().cast())
        })?;
        Ok(ModuleHandle(m as usize as u64))
    }
    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        // SAFETY: the caller passes a module it loaded and no longer uses.
        self.check("hipModuleUnload", unsafe {
            (self.f().hipModuleUnload)(p(module.0))
        })
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let cname = CString::new(name)
            .map_err(|_| HipError::InvalidArgument(format!("kernel name {name:?} contains NUL")))?;
        let mut f = std::ptr::null_mut();
        // SAFETY: valid out-pointer and NUL-terminated name.
        self.check("hipModuleGetFunction", unsafe {
            (self.f().hipModuleGetFunction)(&mut f, p(module.0), cname.as_ptr())
        })?;
        Ok(FunctionHandle(f as usize as u64))
    }
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        c: &LaunchConfig,
        s: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        // SAFETY: the trait's contract: `args` matches the kernel's parameters.
        self.check("hipModuleLaunchKernel", unsafe {
            (self.f().hipModuleLaunchKernel)(
                p(function.0),
                c.grid[0],
                c.grid[1],
                c.grid[2],
                c.block[0],
                c.block[1],
                c.block[2],
                c.shared_mem_bytes,
                p(s.0),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}

impl GraphCapture for AmdPlatform {
    fn begin_capture(&self, s: StreamHandle, mode: CaptureMode) -> Result<()> {
        // SAFETY: plain handle and enum value (same numbering as CUDA).
        self.check("hipStreamBeginCapture", unsafe {
            (self.f().hipStreamBeginCapture)(p(s.0), mode.raw() as i32)
        })
    }
    fn end_capture(&self, s: StreamHandle) -> Result<GraphHandle> {
        let mut g = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        self.check("hipStreamEndCapture", unsafe {
            (self.f().hipStreamEndCapture)(p(s.0), &mut g)
        })?;
        Ok(GraphHandle(g as usize as u64))
    }
    fn is_capturing(&self, s: StreamHandle) -> Result<bool> {
        let mut st = 0;
        // SAFETY: valid out-pointer.
        self.check("hipStreamIsCapturing", unsafe {
            (self.f().hipStreamIsCapturing)(p(s.0), &mut st)
        })?;
        Ok(st != 0)
    }
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let mut e = std::ptr::null_mut();
        // SAFETY: valid out-pointer; `graph` came from end_capture.
        self.check("hipGraphInstantiateWithFlags", unsafe {
            (self.f().hipGraphInstantiateWithFlags)(&mut e, p(graph.0), 0)
        })?;
        Ok(GraphExecHandle(e as usize as u64))
    }
    fn update_graph_exec(&self, exec: GraphExecHandle, graph: GraphHandle) -> Result<bool> {
        let mut node = std::ptr::null_mut();
        let mut result = 0i32;
        // SAFETY: valid out-pointers; both handles were created on this platform (`exec` by
        // instantiate_graph, `graph` by end_capture) and are alive.
        let code =
            unsafe { (self.f().hipGraphExecUpdate)(p(exec.0), p(graph.0), &mut node, &mut result) };
        // hipErrorGraphExecUpdateFailure: the update was not made, `exec` is unchanged.
        const UPDATE_FAILURE: i32 = 910;
        if code == UPDATE_FAILURE {
            tracing::debug!(result, "the driver refused a graph update");
            return Ok(false);
        }
        self.check("hipGraphExecUpdate", code)?;
        Ok(true)
    }
    fn launch_graph(&self, graph: GraphExecHandle, s: StreamHandle) -> Result<()> {
        // SAFETY: handles created on this platform.
        self.check("hipGraphLaunch", unsafe {
            (self.f().hipGraphLaunch)(p(graph.0), p(s.0))
        })
    }
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        // SAFETY: the caller passes a graph it owns and no longer uses.
        self.check("hipGraphDestroy", unsafe {
            (self.f().hipGraphDestroy)(p(graph.0))
        })
    }
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        // SAFETY: the caller passes an instantiated graph it owns and no longer uses.
        self.check("hipGraphExecDestroy", unsafe {
            (self.f().hipGraphExecDestroy)(p(graph.0))
        })
    }
}

impl BlasLibrary for AmdPlatform {
    fn blas_version(&self) -> Result<String> {
        self.rocblas()?.version()
    }
    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        let r = self.rocblas()?;
        self.bind_device(device)?;
        let mut h = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the handle binds to the current device, `device`.
        r.check("rocblas_create_handle", unsafe {
            (r.fns.rocblas_create_handle)(&mut h)
        })?;
        Ok(BlasHandle(h as usize as u64))
    }
    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        let r = self.rocblas()?;
        self.bind_device(device)?;
        // SAFETY: the caller passes a handle created on `device` that nobody uses any more.
        r.check("rocblas_destroy_handle", unsafe {
            (r.fns.rocblas_destroy_handle)(p(handle.0))
        })
    }
    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()> {
        // SAFETY: the caller upholds the trait's contract, which is Rocblas::gemm's.
        unsafe { self.rocblas()?.gemm(p(handle.0), p(stream.0), gemm) }
    }
}

impl FftLibrary for AmdPlatform {
    fn fft_plan_create(&self, device: DeviceId, desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        self.rocfft_plan_create(device, desc)
    }
    fn fft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()> {
        self.rocfft_plan_destroy(device, plan)
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
        // SAFETY: the trait's contract is the callee's.
        unsafe { self.rocfft_execute(plan, desc, input, output, work, work_bytes, stream) }
    }
}
