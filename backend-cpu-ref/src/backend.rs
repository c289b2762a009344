//! `CpuBackend` (placeholder, being written).

use gpuarrays_core::kernel::*;
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support};

use crate::buffer::CpuBuffer;

/// The CPU reference backend.
#[derive(Clone)]
pub struct CpuBackend {
    device: std::sync::Arc<DeviceInfo>,
}

impl CpuBackend {
    /// A backend using rayon's global thread pool.
    pub fn new() -> Self {
        todo!()
    }
    /// A backend with its own pool of `threads` threads (results never depend on it).
    pub fn with_threads(_threads: usize) -> Result<Self> {
        todo!()
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for CpuBackend {
    type Buffer = CpuBuffer;
    fn name(&self) -> &'static str { "cpu" }
    fn device(&self) -> &DeviceInfo { &self.device }
    fn supports(&self, _: DType, _: OpKind) -> Support { Support::Yes }
    fn alloc(&self, _: usize) -> Result<CpuBuffer> { todo!() }
    fn release(&self, _: CpuBuffer) {}
    fn write(&self, _: &CpuBuffer, _: usize, _: &[u8]) -> Result<()> { todo!() }
    fn read(&self, _: &CpuBuffer, _: usize, _: &mut [u8]) -> Result<()> { todo!() }
    fn copy(&self, _: &CpuBuffer, _: usize, _: &CpuBuffer, _: usize, _: usize) -> Result<()> { todo!() }
    fn synchronize(&self) -> Result<()> { Ok(()) }
    fn elementwise(&self, _: &Program, _: &ElementwiseArgs<'_, CpuBuffer>) -> Result<()> { todo!() }
    fn reduce(&self, _: &ReduceArgs<'_, CpuBuffer>) -> Result<()> { todo!() }
    fn scan(&self, _: &ScanArgs<'_, CpuBuffer>) -> Result<()> { todo!() }
    fn sort(&self, _: &SortArgs<'_, CpuBuffer>) -> Result<()> { todo!() }
    fn find(&self, _: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize)> { todo!() }
    fn matmul(&self, _: &MatmulArgs<'_, CpuBuffer>) -> Result<()> { todo!() }
}
