//! A backend with no device, for core's unit tests of what core decides alone (expression
//! building, type rules): it answers every capability question and refuses every kernel.
//! Core cannot use a real backend in its own unit tests: the backends depend on core.

use crate::backend::Backend;
use crate::capability::{OpKind, Support};
use crate::device::DeviceInfo;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, MatmulArgs, Program, ReduceArgs, ScanArgs, SortArgs,
};

/// See the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct NoDevice(DeviceInfo);

impl NoDevice {
    pub(crate) fn new() -> Self {
        NoDevice(DeviceInfo {
            backend: "none",
            id: crate::device::next_device_id(),
            ordinal: 0,
            name: "no device".into(),
            flushes_subnormals: Default::default(),
        })
    }
}

fn refused() -> Error {
    Error::invalid_arg("test backend", "this test backend runs nothing")
}

impl Backend for NoDevice {
    type Buffer = ();
    fn name(&self) -> &'static str {
        "none"
    }
    fn device(&self) -> &DeviceInfo {
        &self.0
    }
    fn supports(&self, _: DType, _: OpKind) -> Support {
        Support::Yes
    }
    fn alloc(&self, _: usize) -> Result<()> {
        Err(refused())
    }
    fn release(&self, _: ()) {}
    fn write(&self, _: &(), _: usize, _: &[u8]) -> Result<()> {
        Err(refused())
    }
    fn read(&self, _: &(), _: usize, _: &mut [u8]) -> Result<()> {
        Err(refused())
    }
    fn copy(&self, _: &(), _: usize, _: &(), _: usize, _: usize) -> Result<()> {
        Err(refused())
    }
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
    fn elementwise(&self, _: &Program, _: &ElementwiseArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
    fn reduce(&self, _: &ReduceArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
    fn scan(&self, _: &ScanArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
    fn sort(&self, _: &SortArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
    fn find(&self, _: &FindArgs<'_, ()>) -> Result<((), usize)> {
        Err(refused())
    }
    fn matmul(&self, _: &MatmulArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
    fn fft(&self, _: &FftArgs<'_, ()>) -> Result<()> {
        Err(refused())
    }
}
