//! `impl KernelModules, GraphCapture, BlasLibrary, FftLibrary for NvidiaPlatform`: NVRTC and the
//! driver's modules and launches, graph capture, cuBLAS and cuFFT.

use super::{NvidiaPlatform, api_error, cu, cu_call, guarded, stream};
use crate::error::{HipError, Result};
use crate::platform::{
    BlasHandle, BlasLibrary, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DevicePtr,
    FftLibrary, FftPlanDesc, FftPlanHandle, FftPlanInfo, FunctionHandle, GemmStridedBatched,
    GraphCapture, GraphExecHandle, GraphHandle, KernelModules, LaunchConfig, ModuleHandle,
    Platform, StreamHandle,
};
use std::ffi::{CString, c_void};

impl KernelModules for NvidiaPlatform {
    fn compiler_version(&self) -> Result<String> {
        self.nvrtc_ready()?;
        self.nvrtc_version()
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        self.nvrtc_ready()?;
        self.nvrtc_compile(request)
    }
    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        self.bind_device(device)?;
        let mut m: cu::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is a complete cubin/PTX image (NVRTC output) that outlives the call.
        cu_call("cuModuleLoadData", || unsafe {
            cu::cuModuleLoadData(&mut m, image.as_ptr().cast())
        })?;
        Ok(ModuleHandle(m as usize as u64))
    }
    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        // SAFETY: the caller passes a module it loaded and no longer uses.
        cu_call("cuModuleUnload", || unsafe {
            cu::cuModuleUnload(module.0 as usize as cu::CUmodule)
        })
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let cname = CString::new(name)
            .map_err(|_| HipError::InvalidArgument(format!("kernel name {name:?} contains NUL")))?;
        let mut f: cu::CUfunction = std::ptr::null_mut();
        // SAFETY: `f` is a valid out-pointer and `cname` a NUL-terminated string.
        cu_call("cuModuleGetFunction", || unsafe {
            cu::cuModuleGetFunction(&mut f, module.0 as usize as cu::CUmodule, cname.as_ptr())
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
        cu_call("cuLaunchKernel", || unsafe {
            cu::cuLaunchKernel(
                function.0 as usize as cu::CUfunction,
                c.grid[0],
                c.grid[1],
                c.grid[2],
                c.block[0],
                c.block[1],
                c.block[2],
                c.shared_mem_bytes,
                stream(s),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}

impl GraphCapture for NvidiaPlatform {
    fn begin_capture(&self, s: StreamHandle, mode: CaptureMode) -> Result<()> {
        use cu::CUstreamCaptureMode as M;
        let mode = match mode {
            CaptureMode::Global => M::CU_STREAM_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => M::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => M::CU_STREAM_CAPTURE_MODE_RELAXED,
        };
        // SAFETY: plain handle and enum arguments.
        cu_call("cuStreamBeginCapture_v2", || unsafe {
            cu::cuStreamBeginCapture_v2(stream(s), mode)
        })
    }
    fn end_capture(&self, s: StreamHandle) -> Result<GraphHandle> {
        let mut g: cu::CUgraph = std::ptr::null_mut();
        // SAFETY: `g` is a valid out-pointer.
        cu_call("cuStreamEndCapture", || unsafe {
            cu::cuStreamEndCapture(stream(s), &mut g)
        })?;
        Ok(GraphHandle(g as usize as u64))
    }
    fn is_capturing(&self, s: StreamHandle) -> Result<bool> {
        let mut st = cu::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: `st` is a valid out-pointer.
        cu_call("cuStreamIsCapturing", || unsafe {
            cu::cuStreamIsCapturing(stream(s), &mut st)
        })?;
        Ok(st != cu::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }
    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let mut e: cu::CUgraphExec = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer; `graph` came from end_capture.
        cu_call("cuGraphInstantiateWithFlags", || unsafe {
            cu::cuGraphInstantiateWithFlags(&mut e, graph.0 as usize as cu::CUgraph, 0)
        })?;
        Ok(GraphExecHandle(e as usize as u64))
    }
    fn update_graph_exec(&self, exec: GraphExecHandle, graph: GraphHandle) -> Result<bool> {
        let mut info = cu::CUgraphExecUpdateResultInfo {
            result: cu::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
            errorNode: std::ptr::null_mut(),
            errorFromNode: std::ptr::null_mut(),
        };
        let call = "cuGraphExecUpdate_v2";
        // SAFETY: `info` is a valid out-pointer; both handles were created on this platform
        // (`exec` by instantiate_graph, `graph` by end_capture) and are alive.
        let r = guarded(call, || unsafe {
            cu::cuGraphExecUpdate_v2(
                exec.0 as usize as cu::CUgraphExec,
                graph.0 as usize as cu::CUgraph,
                &mut info,
            )
        })?;
        match r {
            cu::CUresult::CUDA_SUCCESS => Ok(true),
            cu::CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE => {
                tracing::debug!(result = ?info.result, "the driver refused a graph update");
                Ok(false)
            }
            other => Err(api_error(call, other)),
        }
    }
    fn launch_graph(&self, graph: GraphExecHandle, s: StreamHandle) -> Result<()> {
        // SAFETY: handles created on this platform.
        cu_call("cuGraphLaunch", || unsafe {
            cu::cuGraphLaunch(graph.0 as usize as cu::CUgraphExec, stream(s))
        })
    }
    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        // SAFETY: the caller passes a graph it owns and no longer uses.
        cu_call("cuGraphDestroy", || unsafe {
            cu::cuGraphDestroy(graph.0 as usize as cu::CUgraph)
        })
    }
    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        // SAFETY: the caller passes an instantiated graph it owns and no longer uses.
        cu_call("cuGraphExecDestroy", || unsafe {
            cu::cuGraphExecDestroy(graph.0 as usize as cu::CUgraphExec)
        })
    }
}

impl BlasLibrary for NvidiaPlatform {
    fn blas_version(&self) -> Result<String> {
        self.cublas_version()
    }
    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        self.context(device)?;
        self.cublas_create(device)
    }
    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        self.context(device)?;
        self.cublas_destroy(device, handle)
    }
    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()> {
        // SAFETY: the caller upholds the trait's contract, which is cublas_gemm's.
        unsafe { self.cublas_gemm(handle, stream, gemm) }
    }
}

impl FftLibrary for NvidiaPlatform {
    fn fft_plan_create(&self, device: DeviceId, desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        self.cufft_plan_create(device, desc)
    }
    fn fft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()> {
        self.cufft_plan_destroy(device, plan)
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
        unsafe { self.cufft_execute(plan, desc, input, output, work, work_bytes, stream) }
    }
}
