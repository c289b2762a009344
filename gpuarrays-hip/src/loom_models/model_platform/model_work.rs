//! `ModelPlatform`'s kernel, graph, BLAS, FFT, peer and collective calls: launches take part
//! in the race detection; the rest is what the models never call.

use super::*;

impl KernelModules for ModelPlatform {
    fn compiler_version(&self) -> Result<String> {
        Ok("model".into())
    }
    fn compile(&self, _request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        Err(not_modelled("compilation"))
    }
    fn load_module(&self, _device: DeviceId, _image: &[u8]) -> Result<ModuleHandle> {
        Err(not_modelled("modules"))
    }
    fn unload_module(&self, _module: ModuleHandle) -> Result<()> {
        Err(not_modelled("modules"))
    }
    fn get_function(&self, _module: ModuleHandle, _name: &str) -> Result<FunctionHandle> {
        Err(not_modelled("modules"))
    }
    unsafe fn launch_kernel(
        &self,
        _function: FunctionHandle,
        _config: &LaunchConfig,
        _stream: StreamHandle,
        _args: &mut [*mut c_void],
    ) -> Result<()> {
        Err(not_modelled("kernel launches (use ModelPlatform::kernel)"))
    }
}

impl GraphCapture for ModelPlatform {
    fn begin_capture(&self, _stream: StreamHandle, _mode: CaptureMode) -> Result<()> {
        Err(not_modelled("graph capture"))
    }
    fn end_capture(&self, _stream: StreamHandle) -> Result<GraphHandle> {
        Err(not_modelled("graph capture"))
    }
    fn is_capturing(&self, _stream: StreamHandle) -> Result<bool> {
        Ok(false)
    }
    fn instantiate_graph(&self, _graph: GraphHandle) -> Result<GraphExecHandle> {
        Err(not_modelled("graphs"))
    }
    fn update_graph_exec(&self, _exec: GraphExecHandle, _graph: GraphHandle) -> Result<bool> {
        Err(not_modelled("graphs"))
    }
    fn launch_graph(&self, _graph: GraphExecHandle, _stream: StreamHandle) -> Result<()> {
        Err(not_modelled("graphs"))
    }
    fn destroy_graph(&self, _graph: GraphHandle) -> Result<()> {
        Err(not_modelled("graphs"))
    }
    fn destroy_graph_exec(&self, _graph: GraphExecHandle) -> Result<()> {
        Err(not_modelled("graphs"))
    }
}

impl BlasLibrary for ModelPlatform {
    fn blas_version(&self) -> Result<String> {
        Err(not_modelled("the vendor BLAS"))
    }
    fn blas_create(&self, _device: DeviceId) -> Result<BlasHandle> {
        Err(not_modelled("the vendor BLAS"))
    }
    fn blas_destroy(&self, _device: DeviceId, _handle: BlasHandle) -> Result<()> {
        Err(not_modelled("the vendor BLAS"))
    }
    unsafe fn blas_gemm(
        &self,
        _handle: BlasHandle,
        _stream: StreamHandle,
        _gemm: &GemmStridedBatched,
    ) -> Result<()> {
        Err(not_modelled("the vendor BLAS"))
    }
}

impl FftLibrary for ModelPlatform {
    fn fft_plan_create(&self, _device: DeviceId, _desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        Err(not_modelled("the vendor FFT"))
    }
    fn fft_plan_destroy(&self, _device: DeviceId, _plan: FftPlanHandle) -> Result<()> {
        Err(not_modelled("the vendor FFT"))
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
        Err(not_modelled("the vendor FFT"))
    }
}

impl PeerAccess for ModelPlatform {
    fn can_access_peer(&self, _device: DeviceId, _peer: DeviceId) -> Result<bool> {
        Ok(false)
    }
    fn enable_peer_access(&self, _device: DeviceId, _peer: DeviceId) -> Result<()> {
        Err(not_modelled("peer access"))
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
        Err(not_modelled("peer copies"))
    }
}

impl CollectiveLibrary for ModelPlatform {
    fn collectives_version(&self) -> Result<String> {
        Err(not_modelled("collectives"))
    }
    fn collective_id(&self) -> Result<CollectiveId> {
        Err(not_modelled("collectives"))
    }
    fn comm_init_rank(
        &self,
        _device: DeviceId,
        _ranks: usize,
        _id: &CollectiveId,
        _rank: usize,
    ) -> Result<CommHandle> {
        Err(not_modelled("collectives"))
    }
    fn comm_destroy(&self, _comm: CommHandle) -> Result<()> {
        Err(not_modelled("collectives"))
    }
    fn group_start(&self) -> Result<()> {
        Err(not_modelled("collectives"))
    }
    fn group_end(&self) -> Result<()> {
        Err(not_modelled("collectives"))
    }
    unsafe fn collective(
        &self,
        _comm: CommHandle,
        _call: &CollectiveCall,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(not_modelled("collectives"))
    }
}
