//! Run-time compilation, modules and kernel launches: the part of a platform that turns
//! generated C++ into work on a stream (NVRTC + the CUDA driver's modules, or hiprtc + HIP's).
//!
//! A concern of its own so that the kernel cache and the launch path name what they use,
//! and the core [`super::Platform`] trait stays the device, stream, event and memory calls.

use super::{
    CompileRequest, CompiledProgram, DeviceId, FunctionHandle, LaunchConfig, ModuleHandle,
    StreamHandle,
};
use crate::error::Result;
use std::ffi::c_void;

/// Run-time compilation, module loading and kernel launches; a supertrait of
/// [`super::Platform`].
pub trait KernelModules {
    /// The run-time compiler's version, for cache keys (e.g. "nvrtc 13.0", "hiprtc 50221153").
    fn compiler_version(&self) -> Result<String>;
    /// Compile HIP-dialect C++ to a loadable binary for `request.arch`.
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram>;
    /// Load a compiled binary on `device`.
    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle>;
    /// Unload a module.
    fn unload_module(&self, module: ModuleHandle) -> Result<()>;
    /// Look up a kernel by its (lowered) name.
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle>;
    /// Launch a kernel.
    ///
    /// # Safety
    /// `args` must hold one pointer per kernel parameter, each pointing to a value of that
    /// parameter's type in storage readable for at least 8 bytes (the 8-byte slots of
    /// `KernelArgs`; the test double reads every parameter as one 8-byte word to find the
    /// device addresses a kernel touches), and every device pointer passed must stay valid
    /// until the kernel ends.
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        config: &LaunchConfig,
        stream: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()>;
}
