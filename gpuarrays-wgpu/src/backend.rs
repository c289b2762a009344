//! `WgpuBackend`: opening a device and the `Backend` implementation, delegating each
//! kernel to its module in `crate::kernels`.

use std::sync::Arc;

use gpuarrays_core::device::next_device_id;
use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support, ensure_supported};

use crate::adapter::{self, ADAPTER_ENV, AdapterSummary};
use crate::buffer::WgpuBuffer;
use crate::capability;
use crate::context::{Context, Features};
use crate::error::WgpuError;
use crate::kernels;
pub use crate::options::{Profile, WgpuOptions};

/// The WebGPU backend: a cheap, cloneable handle to one opened device.
#[derive(Clone)]
pub struct WgpuBackend {
    ctx: Arc<Context>,
    info: Arc<DeviceInfo>,
    summary: Arc<AdapterSummary>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WgpuBackend({})", self.info)
    }
}

impl WgpuBackend {
    /// Opens the adapter chosen by `GPUARRAYS_WGPU_ADAPTER` (or the preferred one) with
    /// every feature it offers.
    pub fn new() -> std::result::Result<Self, WgpuError> {
        Self::with_options(&WgpuOptions::default())
    }

    /// Opens a device as `options` say.
    pub fn with_options(options: &WgpuOptions) -> std::result::Result<Self, WgpuError> {
        let instance = adapter::instance();
        let env = std::env::var(ADAPTER_ENV).ok();
        let selector = options.adapter.clone().or(env);
        let (index, adapter) = adapter::choose(adapter::enumerate(&instance), selector.as_deref())?;
        Self::open(index, adapter, options)
    }

    /// One backend per adapter (each its own device), with every feature each offers.
    /// Adapters that fail to open are skipped with a warning.
    pub fn all() -> Vec<WgpuBackend> {
        let instance = adapter::instance();
        adapter::enumerate(&instance)
            .into_iter()
            .enumerate()
            .filter_map(|(i, a)| match Self::open(i, a, &WgpuOptions::default()) {
                Ok(b) => Some(b),
                Err(e) => {
                    tracing::warn!("wgpu adapter {i} skipped: {e}");
                    None
                }
            })
            .collect()
    }

    /// Cheap availability check: the adapter [`new`](Self::new) would open, without opening
    /// it, or the error saying why there is none.
    pub fn probe() -> std::result::Result<AdapterSummary, WgpuError> {
        let env = std::env::var(ADAPTER_ENV).ok();
        let list = adapter::adapters();
        let instance = adapter::instance();
        let (index, _) = adapter::choose(adapter::enumerate(&instance), env.as_deref())?;
        list.into_iter().nth(index).ok_or(WgpuError::NoAdapter {
            backends: format!("{:?}", adapter::BACKENDS),
        })
    }

    fn open(
        index: usize,
        adapter: wgpu::Adapter,
        options: &WgpuOptions,
    ) -> std::result::Result<Self, WgpuError> {
        let (profile, binding_limit) = (options.profile, options.binding_limit);
        let info = adapter.get_info();
        let offered = adapter.features();
        let baseline = profile == Profile::Baseline;
        let features = Features {
            f64: !baseline && offered.contains(wgpu::Features::SHADER_F64),
            int64: !baseline && offered.contains(wgpu::Features::SHADER_INT64),
        };
        let timestamps = offered.contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut required = wgpu::Features::empty();
        let spirv = if options.no_float_controls || !crate::float_controls::allowed_by_env() {
            None
        } else {
            crate::float_controls::detect(&adapter).map(|(controls, version)| {
                crate::float_controls::SpirvMode {
                    controls,
                    version,
                    f64: features.f64,
                    int64: features.int64,
                }
            })
        };
        if spirv.is_some() {
            required |= wgpu::Features::PASSTHROUGH_SHADERS;
        }
        if timestamps {
            required |= wgpu::Features::TIMESTAMP_QUERY;
        }
        if features.f64 {
            required |= wgpu::Features::SHADER_F64;
        }
        if features.int64 {
            required |= wgpu::Features::SHADER_INT64;
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("gpuarrays"),
            required_features: required,
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| WgpuError::RequestDevice {
            adapter: info.name.clone(),
            reason: e.to_string(),
        })?;
        let mut summary = adapter::AdapterSummary {
            index,
            name: info.name.clone(),
            backend: format!("{:?}", info.backend).to_lowercase(),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            f64: features.f64,
            int64: features.int64,
            float_controls: spirv.map(|m| m.to_string()),
        };
        if baseline {
            summary.name = format!("{} (WebGPU baseline)", summary.name);
        }
        let mut limits = device.limits();
        if let Some(cap) = binding_limit {
            limits.max_storage_buffer_binding_size =
                limits.max_storage_buffer_binding_size.min(cap.max(4096));
        }
        let mut ctx = Context::new(
            device,
            queue,
            summary.name.clone(),
            features,
            limits,
            timestamps,
            spirv,
        );
        ctx.host_memory = info.device_type == wgpu::DeviceType::Cpu;
        let flushes_subnormals = crate::subnormals::detect(
            &ctx,
            options.assume_ftz || crate::subnormals::assume_ftz_from_env(),
        );
        tracing::info!(adapter = %summary, "wgpu device opened");
        let device_info = DeviceInfo {
            backend: "wgpu",
            id: next_device_id(),
            ordinal: index,
            name: summary.name.clone(),
            flushes_subnormals,
        };
        Ok(WgpuBackend {
            ctx: Arc::new(ctx),
            info: Arc::new(device_info),
            summary: Arc::new(summary),
        })
    }

    /// The adapter this backend runs on.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    /// The features in use (after the profile).
    pub fn features(&self) -> Features {
        self.ctx.features
    }

    /// Runs the subnormal probe again (see [`crate::subnormals`]): the precisions this
    /// device flushes to zero, measured, whatever `assume_ftz` declared.
    pub fn probe_subnormals(
        &self,
    ) -> std::result::Result<gpuarrays_core::SubnormalFlush, WgpuError> {
        crate::subnormals::measure(&self.ctx)
    }

    /// The device limits in use.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.ctx.limits
    }

    /// Submits the work recorded so far without waiting for it (work is otherwise
    /// submitted by reads, `synchronize`, and every 128 commands).
    pub fn submit(&self) {
        self.ctx.flush()
    }

    /// Whether [`device_time`](Self::device_time) can measure (TIMESTAMP_QUERY).
    pub fn has_timestamps(&self) -> bool {
        self.ctx.timestamps
    }

    /// Runs `f` and measures the device time of the kernels it enqueues, with timestamp
    /// queries: from the beginning of the first compute pass to the end of the last (so
    /// the gaps between the passes of one operation count). Waits for the work. `None`
    /// without TIMESTAMP_QUERY, when `f` ran no kernel, or beyond 2,048 passes. Buffer
    /// copies (not compute passes) are not timed.
    pub fn device_time<R>(
        &self,
        f: impl FnOnce() -> R,
    ) -> std::result::Result<(R, Option<std::time::Duration>), WgpuError> {
        let open = self.ctx.begin_timing();
        let r = f();
        let secs = if open { self.ctx.end_timing()? } else { None };
        self.ctx.wait()?;
        Ok((r, secs.map(std::time::Duration::from_secs_f64)))
    }

    /// Counters of the compiled-pipeline cache.
    pub fn pipeline_stats(&self) -> gpuarrays_core::handle_cache::HandleCacheStats {
        self.ctx.pipelines.stats()
    }

    /// The opened device, for the crate's own tests of single kernels.
    #[cfg(test)]
    pub(crate) fn context(&self) -> &Context {
        &self.ctx
    }

    fn check(&self, dtype: DType, op: OpKind) -> Result<()> {
        ensure_supported(self, dtype, op)
    }
}

impl Backend for WgpuBackend {
    type Buffer = WgpuBuffer;

    fn name(&self) -> &'static str {
        "wgpu"
    }

    fn device(&self) -> &DeviceInfo {
        &self.info
    }

    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        capability::supports(self.ctx.features, dtype, op)
    }

    fn alloc(&self, bytes: usize) -> Result<WgpuBuffer> {
        Ok(self.ctx.alloc(bytes)?)
    }

    fn release(&self, buffer: WgpuBuffer) {
        self.ctx.release(buffer)
    }

    fn memory_tracker(&self) -> Option<&gpuarrays_core::MemoryTracker> {
        Some(&self.ctx.memory)
    }

    fn cached_bytes(&self) -> usize {
        self.ctx.pool.stats().idle_bytes
    }

    fn empty_cache(&self) -> Result<()> {
        self.ctx.pool.clear();
        Ok(())
    }

    fn write(&self, dst: &WgpuBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        let ctx = &self.ctx;
        let staging = ctx.upload_buffer(
            src,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )?;
        let (off, len) = (byte_offset as u64, src.len() as u64);
        if off % 4 == 0 && len % 4 == 0 {
            ctx.copy_aligned(&staging, 0, &dst.buffer, off, len);
            Ok(())
        } else {
            let id = crate::buffer::next_buffer_id();
            Ok(kernels::copy_bytes::copy(
                ctx,
                (&staging, id),
                0,
                dst,
                off,
                len,
            )?)
        }
    }

    fn read(&self, src: &WgpuBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        Ok(self.ctx.read(&src.buffer, byte_offset as u64, dst)?)
    }

    fn copy(
        &self,
        src: &WgpuBuffer,
        src_byte_offset: usize,
        dst: &WgpuBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        let (so, d, n) = (src_byte_offset as u64, dst_byte_offset as u64, bytes as u64);
        if n == 0 {
            return Ok(());
        }
        if src.id != dst.id && so % 4 == 0 && d % 4 == 0 && n % 4 == 0 {
            self.ctx.copy_aligned(&src.buffer, so, &dst.buffer, d, n);
            Ok(())
        } else {
            Ok(kernels::copy_bytes::copy(
                &self.ctx,
                (&src.buffer, src.id),
                so,
                dst,
                d,
                n,
            )?)
        }
    }

    /// Refused inside a graph capture, like every wait for the device.
    fn synchronize(&self) -> Result<()> {
        gpuarrays_core::graph::refuse_while_recording(self, "synchronize")?;
        Ok(self.ctx.wait()?)
    }

    /// The scalar kernel stores a strided output element by element; outputs of packed types
    /// (1- and 2-byte elements) share words between threads, so those stay contiguous (core
    /// writes them in runs).
    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        !crate::wgsl::types::is_packed(dtype)
    }

    fn elementwise(&self, program: &Program, args: &ElementwiseArgs<'_, WgpuBuffer>) -> Result<()> {
        for d in program.dtypes() {
            self.check(d, OpKind::Elementwise)?;
        }
        Ok(kernels::elementwise::run(&self.ctx, program, args)?)
    }

    fn reduce(&self, args: &ReduceArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Reduce)?;
        let out = args.op.result_dtype(args.dtype)?;
        self.check(out, OpKind::Reduce)?;
        Ok(kernels::reduce::run(&self.ctx, args)?)
    }

    fn scan(&self, args: &ScanArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Scan)?;
        Ok(kernels::scan::run(&self.ctx, args)?)
    }

    fn sort(&self, args: &SortArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Sort)?;
        Ok(kernels::sort::run(&self.ctx, args)?)
    }

    fn find(&self, args: &FindArgs<'_, WgpuBuffer>) -> Result<(WgpuBuffer, usize)> {
        self.check(DType::Bool, OpKind::Find)?;
        self.check(DType::I64, OpKind::Find)?;
        Ok(kernels::find::run(&self.ctx, args)?)
    }

    /// WGSL binary search (`kernels::search`): keys read as words, on every adapter.
    fn search_sorted(&self, args: &SearchArgs<'_, WgpuBuffer>) -> Result<()> {
        Ok(kernels::search::run(&self.ctx, args)?)
    }

    /// WGSL gathers (`kernels::indexing`): the index read as two words, data moved as
    /// words, so every type the device stores gathers.
    fn gather(&self, args: &GatherArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Gather)?;
        Ok(kernels::indexing::gather(&self.ctx, args)?)
    }

    /// WGSL scatters (`kernels::indexing`): stores keep one update per element whole, adds
    /// are atomic (f64/c64 through per-element lists, see the module); bool adds are
    /// refused with `Error::InvalidDType`, as on the host.
    fn scatter(&self, args: &ScatterArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Scatter)?;
        kernels::indexing::scatter(&self.ctx, args)
    }

    fn matmul(&self, args: &MatmulArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.dtype, OpKind::Matmul)?;
        Ok(kernels::matmul::run(&self.ctx, args)?)
    }

    /// Complex f32 transforms of power-of-two lengths (`kernels::fft`); other lengths are
    /// refused with `Error::Unsupported` (f64 already by `supports`).
    fn fft(&self, args: &FftArgs<'_, WgpuBuffer>) -> Result<()> {
        self.check(args.real, OpKind::Fft)?;
        self.check(args.complex(), OpKind::Fft)?;
        args.validate()?;
        if let Some((dtype, reason)) = kernels::fft::refusal(args) {
            return Err(gpuarrays_core::Error::Unsupported {
                dtype,
                op: OpKind::Fft,
                backend: self.name().to_string(),
                device: self.info.name.clone(),
                reason,
                alternative: Some(kernels::fft::ALTERNATIVE.into()),
            });
        }
        Ok(kernels::fft::run(&self.ctx, args)?)
    }
}
