//! `HipBackend`: the `gpuarrays_core::Backend` implementation on top of the runtime layer
//! (streams, memory) and the run-time kernels.
//!
//! Every operation runs on the calling thread's pooled stream ([`crate::DeviceState::thread_stream`])
//! through the ordering protocol ([`HipBackend::enqueue`]): its operands are ordered after the
//! uses the rules require (a read after the last write, a write after every use), its work is
//! enqueued and its uses recorded in one step, so work from different threads on one buffer is
//! ordered by device-side event waits, and only while the recorded stream has not changed
//! hands. `read` and `write` return when their copy has finished; `synchronize` waits for all
//! work the thread enqueued on the device; everything else is asynchronous.
//!
//! ```no_run
//! use gpuarrays_hip::HipBackend;
//! match HipBackend::new(0) {
//!     Ok(hip) => println!("{}", gpuarrays_core::Backend::device(&hip)),
//!     Err(e) => eprintln!("no HIP device: {e}"),
//! }
//! ```

mod backend_impl;
mod checks;
mod core_error;
mod device_copy;
mod external;
mod graph;
mod hip_buffer;
mod indexing;
mod matmul_plan;
mod ordering;
mod support;
mod timer;

pub use core_error::to_core;
pub use device_copy::DeviceCopyRoute;
pub use external::{DLPACK_CUDA, DLPACK_ROCM};
pub use graph::HipGraph;
pub use hip_buffer::HipBuffer;
pub use support::supports;
pub use timer::HipTimer;

use std::sync::Arc;

use gpuarrays_core::DeviceInfo;
use gpuarrays_core::device::next_device_id;
use parking_lot::Mutex;

use crate::blas::{DeviceBlas, MatmulRoute};
use crate::device::DeviceState;
use crate::error::{HipError, Result};
use crate::fft::FftState;
use crate::kernels::{DeviceKernels, DiskCache};
use crate::platform::DeviceId;
use crate::runtime::HipRuntime;

struct Inner {
    runtime: Arc<HipRuntime>,
    kernels: DeviceKernels,
    fft: FftState,
    blas: DeviceBlas,
    /// Whether the fallback from a missing BLAS library to the kernel was reported.
    blas_fallback_reported: std::sync::atomic::AtomicBool,
    info: DeviceInfo,
}

/// A handle to one HIP device (AMD or NVIDIA). Cheap to clone; clones share the device's
/// compiled kernels.
#[derive(Clone)]
pub struct HipBackend {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HipBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HipBackend({})", self.inner.info)
    }
}

/// Backends of the process-wide runtime, one per device, created on first use.
static SHARED: Mutex<Vec<(usize, HipBackend)>> = Mutex::new(Vec::new());

impl HipBackend {
    /// The device `ordinal` of the process-wide runtime (platform from
    /// `GPUARRAYS_HIP_PLATFORM` or automatic; kernel cache and policy from the runtime's
    /// configuration, read from the environment).
    /// Every call for one ordinal returns the same device (arrays of both mix).
    pub fn new(ordinal: usize) -> Result<HipBackend> {
        let runtime = HipRuntime::global()?;
        let mut shared = SHARED.lock();
        if let Some((_, b)) = shared
            .iter()
            .find(|(o, b)| *o == ordinal && Arc::ptr_eq(&b.inner.runtime, &runtime))
        {
            return Ok(b.clone());
        }
        let disk = DiskCache::configured(runtime.config());
        let b = HipBackend::with_runtime(runtime, ordinal, disk)?;
        shared.push((ordinal, b.clone()));
        Ok(b)
    }

    /// One backend per device of the process-wide runtime.
    pub fn all() -> Result<Vec<HipBackend>> {
        let count = HipRuntime::global()?.device_count();
        (0..count).map(HipBackend::new).collect()
    }

    /// The number of HIP devices, or why there are none (no driver, no runtime, no device):
    /// the cheap probe for "is the HIP backend available here?".
    pub fn device_count() -> Result<usize> {
        Ok(HipRuntime::global()?.device_count())
    }

    /// A backend on device `ordinal` of `runtime` with its own kernel state and `disk` as the
    /// kernel cache (tests, and runtimes over a test double); kernel policy and FFT plan
    /// budgets from the runtime's configuration.
    pub fn with_runtime(
        runtime: Arc<HipRuntime>,
        ordinal: usize,
        disk: DiskCache,
    ) -> Result<HipBackend> {
        let state: Arc<DeviceState> = runtime.device(DeviceId(ordinal))?.clone();
        let props = state.properties().clone();
        tracing::debug!(ordinal, name = %props.name, arch = %props.arch, warp = props.warp_size, "HIP backend ready");
        let info = DeviceInfo {
            backend: "hip",
            id: next_device_id(),
            ordinal,
            name: props.name.clone(),
            // No flush-to-zero option is given to NVRTC (`--ftz=false` by default) or to
            // hipRTC/clang (no denormal flushing by default): IEEE subnormals.
            flushes_subnormals: Default::default(),
        };
        let config = runtime.config();
        let fft = FftState::new(state.clone(), config.fft_plan_cache);
        let policy = config.kernels;
        Ok(HipBackend {
            inner: Arc::new(Inner {
                fft,
                blas: DeviceBlas::with_math(state.clone(), policy.blas_math),
                blas_fallback_reported: std::sync::atomic::AtomicBool::new(false),
                kernels: DeviceKernels::new(state, disk, policy),
                runtime,
                info,
            }),
        })
    }

    /// The runtime.
    pub fn runtime(&self) -> &Arc<HipRuntime> {
        &self.inner.runtime
    }
    /// The device's kernel state (module cache and its counters).
    pub fn kernels(&self) -> &DeviceKernels {
        &self.inner.kernels
    }
    /// The device's FFT plans and work areas (plan-cache stats, budgets, `clear`).
    pub fn fft_state(&self) -> &FftState {
        &self.inner.fft
    }
    /// The device's vendor BLAS (handle cache, precision policy).
    pub fn blas(&self) -> &DeviceBlas {
        &self.inner.blas
    }
    /// Where matrix products of f32, f64 and complex types run (the kernel policy's
    /// [`crate::runtime::KernelPolicy::matmul`]; initially the runtime's, default
    /// [`MatmulRoute::Auto`]).
    pub fn matmul_route(&self) -> MatmulRoute {
        self.inner.kernels.policy().matmul
    }
    /// Sends this device's later matrix products of float and complex types by `route`
    /// (shared by every clone of this backend).
    pub fn set_matmul_route(&self, route: MatmulRoute) {
        self.inner.kernels.update_policy(|p| p.matmul = route);
    }
    /// The runtime's state of this device.
    pub fn device_state(&self) -> &Arc<DeviceState> {
        self.inner.kernels.state()
    }

    pub(crate) fn err(&self, e: HipError) -> gpuarrays_core::Error {
        to_core(&self.inner.info, e)
    }
}
