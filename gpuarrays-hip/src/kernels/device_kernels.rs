//! `DeviceKernels`: everything the kernels keep per device — properties, the module cache,
//! one [`KernelSet`] per operation family, the [`KernelPolicy`] the families choose their
//! kernels by — and the launch and scratch helpers they share.

use std::sync::Arc;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ReduceOp, ScanOp};

use super::args::KernelArgs;
use super::cache::{CacheStats, DiskCache, KernelSet, KernelSource, ModuleCache};
use super::cpp::header::kernel_header;
use super::elementwise::layout::EwKey;
use crate::device::DeviceBuffer;
use crate::device::DeviceState;
use crate::error::Result;
use crate::platform::{DeviceProperties, DevicePtr, FunctionHandle, LaunchConfig, Platform};
use crate::runtime::KernelPolicy;
use crate::stream::Stream;

/// Per-device kernel state.
pub struct DeviceKernels {
    id: u64,
    state: Arc<DeviceState>,
    modules: ModuleCache,
    /// The policy the device was created with (its runtime's), for [`Self::reset_policy`].
    configured: KernelPolicy,
    policy: parking_lot::RwLock<KernelPolicy>,
    pub(crate) elementwise: KernelSet<EwKey>,
    pub(crate) reduce: KernelSet<(ReduceOp, DType)>,
    pub(crate) scan: KernelSet<(ScanOp, DType)>,
    pub(crate) sort: KernelSet<DType>,
    pub(crate) find: KernelSet<()>,
    pub(crate) search: KernelSet<DType>,
    pub(crate) indexing: KernelSet<DType>,
    pub(crate) matmul: KernelSet<DType>,
}

impl std::fmt::Debug for DeviceKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceKernels")
            .field("device", &self.state.id())
            .field("modules", &self.modules)
            .finish_non_exhaustive()
    }
}

impl DeviceKernels {
    /// Kernel state for the device of `state`, with compiled binaries cached in `disk`,
    /// choosing kernels by `policy` (the runtime's, [`crate::RuntimeConfig::kernels`]).
    pub fn new(state: Arc<DeviceState>, disk: DiskCache, policy: KernelPolicy) -> DeviceKernels {
        let modules = ModuleCache::new(
            state.platform().clone(),
            state.id(),
            state.properties().arch.clone(),
            disk,
        );
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        DeviceKernels {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            state,
            modules,
            configured: policy,
            policy: parking_lot::RwLock::new(policy),
            elementwise: KernelSet::default(),
            reduce: KernelSet::default(),
            scan: KernelSet::default(),
            sort: KernelSet::default(),
            find: KernelSet::default(),
            search: KernelSet::default(),
            indexing: KernelSet::default(),
            matmul: KernelSet::default(),
        }
    }

    /// A process-unique id of this kernel state.
    pub fn id(&self) -> u64 {
        self.id
    }
    /// The runtime's state of this device.
    pub fn state(&self) -> &Arc<DeviceState> {
        &self.state
    }
    /// The platform.
    pub fn platform(&self) -> &Arc<dyn Platform> {
        self.state.platform()
    }
    /// Device properties.
    pub fn properties(&self) -> &DeviceProperties {
        self.state.properties()
    }
    /// Threads per warp / wavefront, from the device.
    pub fn warp_size(&self) -> u32 {
        self.properties().warp_size
    }
    /// Multiprocessors (at least 1).
    pub fn sm_count(&self) -> u32 {
        self.properties().multiprocessor_count.max(1)
    }
    /// The module cache.
    pub fn modules(&self) -> &ModuleCache {
        &self.modules
    }
    /// The policy this device's kernels are chosen by now.
    pub fn policy(&self) -> KernelPolicy {
        *self.policy.read()
    }
    /// Changes the policy of this device's later operations (on every clone of its backend;
    /// tests and benchmarks compare variants this way).
    pub fn update_policy(&self, change: impl FnOnce(&mut KernelPolicy)) {
        change(&mut self.policy.write());
    }
    /// Back to the policy the device was created with.
    pub fn reset_policy(&self) {
        *self.policy.write() = self.configured;
    }
    /// Module cache counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.modules.stats()
    }

    /// A complete source: this device's kernel header, then `body`.
    pub fn source(&self, name: String, body: &str, kernels: Vec<&'static str>) -> KernelSource {
        let mut source = kernel_header(self.modules.dialect(), self.warp_size());
        source.push_str(body);
        KernelSource {
            name,
            source,
            kernels,
        }
    }

    /// Launches `function` on `stream`.
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in order and types, and every device
    /// address passed must stay valid, for the ranges the kernel touches, until the kernel
    /// has finished (stream order).
    pub unsafe fn launch(
        &self,
        function: FunctionHandle,
        grid: [u32; 3],
        block: [u32; 3],
        shared_mem_bytes: u32,
        stream: &Stream,
        args: &mut KernelArgs,
    ) -> Result<()> {
        let mut pointers = args.pointers();
        let config = LaunchConfig {
            grid,
            block,
            shared_mem_bytes,
        };
        // SAFETY: forwarded from this function's contract; `pointers` point into `args`,
        // which outlives the call (the driver copies parameter values at launch).
        unsafe {
            self.platform()
                .launch_kernel(function, &config, stream.handle(), &mut pointers)
        }
    }

    /// A temporary device buffer ordered on `stream`; dropping it frees it on that stream
    /// after the work enqueued so far, so it may be dropped right after the last launch.
    pub fn scratch(&self, bytes: usize, stream: &Stream) -> Result<DeviceBuffer> {
        self.state.alloc_on(bytes.max(1), stream)
    }

    /// Reads one little-endian u64 at `ptr` after the work enqueued on `stream` (blocks).
    pub fn read_u64(&self, ptr: DevicePtr, stream: &Stream) -> Result<u64> {
        crate::device::refuse_capture(stream, "a read back to the host")?;
        let mut word = [0u8; 8];
        // SAFETY: `word` is a live local buffer of 8 bytes, and we synchronise before it
        // goes out of scope; the caller passes an address inside a live allocation.
        unsafe {
            self.platform()
                .copy_dtoh_async(word.as_mut_ptr().cast(), ptr, 8, stream.handle())?;
        }
        stream.synchronize()?;
        Ok(u64::from_le_bytes(word))
    }
}
