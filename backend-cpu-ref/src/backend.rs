//! `CpuBackend`: the `Backend` implementation, delegating each kernel to its module.

use std::sync::Arc;

use gpuarrays_core::device::next_device_id;
use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, MatmulArgs, Program, ReduceArgs, ScanArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support};

use crate::buffer::CpuBuffer;
use crate::error::CpuError;
use crate::fft::CpuFftPlans;

/// The CPU reference backend. Every element type and operation is supported; results never
/// depend on the number of threads.
#[derive(Clone)]
pub struct CpuBackend {
    device: Arc<DeviceInfo>,
    pool: Option<Arc<rayon::ThreadPool>>,
    fft_plans: Arc<CpuFftPlans>,
}

impl CpuBackend {
    /// A backend on rayon's global thread pool. Each call creates a new device: arrays of
    /// two `CpuBackend::new()` values do not mix (as with two GPUs).
    pub fn new() -> Self {
        let threads = rayon::current_num_threads();
        CpuBackend {
            device: Self::info(format!("cpu ({threads} threads)")),
            pool: None,
            fft_plans: Arc::default(),
        }
    }

    /// A backend with its own pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("gpuarrays-cpu-{i}"))
            .build()
            .map_err(|e| CpuError::ThreadPool {
                threads,
                reason: e.to_string(),
            })?;
        Ok(CpuBackend {
            device: Self::info(format!("cpu ({threads} threads)")),
            pool: Some(Arc::new(pool)),
            fft_plans: Arc::default(),
        })
    }

    fn info(name: String) -> Arc<DeviceInfo> {
        Arc::new(DeviceInfo {
            backend: "cpu",
            id: next_device_id(),
            ordinal: 0,
            name,
            flushes_subnormals: Default::default(),
        })
    }

    /// Runs `f` on this backend's pool.
    fn install<R: Send>(&self, f: impl FnOnce() -> Result<R, CpuError> + Send) -> Result<R> {
        let r = match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        };
        r.map_err(Into::into)
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for CpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBackend({})", self.device)
    }
}

impl Backend for CpuBackend {
    type Buffer = CpuBuffer;

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn supports(&self, _dtype: DType, _op: OpKind) -> Support {
        Support::Yes
    }

    fn alloc(&self, bytes: usize) -> Result<CpuBuffer> {
        Ok(CpuBuffer::new(bytes)?)
    }

    fn release(&self, buffer: CpuBuffer) {
        drop(buffer)
    }

    fn write(&self, dst: &CpuBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        Ok(dst.write_bytes(byte_offset, src)?)
    }

    fn read(&self, src: &CpuBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        Ok(src.read_bytes(byte_offset, dst)?)
    }

    fn copy(
        &self,
        src: &CpuBuffer,
        src_off: usize,
        dst: &CpuBuffer,
        dst_off: usize,
        bytes: usize,
    ) -> Result<()> {
        self.install(|| src.copy_to(src_off, dst, dst_off, bytes))
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn elementwise(&self, program: &Program, args: &ElementwiseArgs<'_, CpuBuffer>) -> Result<()> {
        if crate::elementwise::single_task(args) {
            return Ok(crate::elementwise::run(program, args)?);
        }
        self.install(|| crate::elementwise::run(program, args))
    }

    fn reduce(&self, args: &ReduceArgs<'_, CpuBuffer>) -> Result<()> {
        if crate::reduce::runs_inline(args) {
            return Ok(crate::reduce::run(args)?);
        }
        self.install(|| crate::reduce::run(args))
    }

    fn scan(&self, args: &ScanArgs<'_, CpuBuffer>) -> Result<()> {
        self.install(|| crate::scan::run(args))
    }

    fn sort(&self, args: &SortArgs<'_, CpuBuffer>) -> Result<()> {
        self.install(|| crate::sort::run(args))
    }

    fn find(&self, args: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize)> {
        self.install(|| crate::sort::find(args))
    }

    fn matmul(&self, args: &MatmulArgs<'_, CpuBuffer>) -> Result<()> {
        self.install(|| crate::matmul::run(args))
    }

    fn fft(&self, args: &FftArgs<'_, CpuBuffer>) -> Result<()> {
        self.install(|| crate::fft::run(&self.fft_plans, args))
    }
}
