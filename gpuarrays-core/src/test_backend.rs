//! A backend with no device, for core's unit tests of what core decides alone (expression
//! building, type rules): it answers every capability question and refuses all storage, so
//! the kit's default kernels (which go through `read` and `write`) are refused too. It
//! implements only the seven required methods. Core cannot use a real backend in its own
//! unit tests: the backends depend on core.

use crate::backend::Backend;
use crate::capability::{OpKind, Support};
use crate::device::DeviceInfo;
use crate::dtype::DType;
use crate::error::{Error, Result};

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
}
