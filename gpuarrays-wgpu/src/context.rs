//! One opened device: the wgpu device and queue, what the adapter can do, the pending
//! command encoder that many operations share, the buffer pool and the pipeline cache.
//!
//! **Batching.** Kernels and device copies are recorded into one pending command encoder;
//! it is submitted when a read or `synchronize` needs the results, or once it holds
//! `BATCH_COMMANDS` commands (so the GPU starts on long sequences without waiting for a
//! read). Nothing reads back per operation. Host writes go through staging buffers copied
//! *inside* the encoder, so they stay ordered with the kernels around them (wgpu's
//! `Queue::write_buffer` would run before every command still pending).
//!
//! **Errors.** wgpu reports validation errors, out-of-memory and device loss through an
//! error callback (its default panics); this one records the message, and the next
//! operation that waits for the device returns it as [`WgpuError::Device`]. Allocations
//! are checked at once instead: a buffer larger than `max_buffer_size` is refused before
//! wgpu sees it, and a driver's out-of-memory is caught in an error scope (the pool's idle
//! buffers are released and the allocation retried once); both are
//! [`WgpuError::OutOfMemory`], which becomes core's `Error::OutOfMemory`.

use std::sync::Arc;
use std::sync::mpsc;

use gpuarrays_core::MemoryTracker;
use parking_lot::Mutex;

use crate::buffer::{self, BufferPool, WgpuBuffer};
use crate::error::{OomCause, Result, WgpuError};
use crate::param_arena::{ParamArenas, ParamSlot};
use crate::pipeline::PipelineCache;
use crate::timing::Timing;

/// Commands recorded before the pending encoder is submitted without being asked to.
pub(crate) const BATCH_COMMANDS: usize = 128;

/// Which optional features this device uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// f64 (and complex f64) arithmetic: wgpu's SHADER_F64.
    pub f64: bool,
    /// i64 and u64 arithmetic: wgpu's SHADER_INT64.
    pub int64: bool,
}

#[derive(Default)]
struct Batch {
    encoder: Option<wgpu::CommandEncoder>,
    commands: usize,
    /// The parameter blocks of the batch's kernels, written just before it is submitted.
    params: ParamArenas,
}

pub(crate) struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter_name: String,
    pub features: Features,
    /// The device's limits, as the kernels plan with them (see `WgpuOptions::binding_limit`).
    pub limits: wgpu::Limits,
    errors: Arc<Mutex<Vec<String>>>,
    batch: Mutex<Batch>,
    pub pool: BufferPool,
    /// Bytes of live buffers (pooled ones not counted), their peak and the limit.
    pub memory: Arc<MemoryTracker>,
    pub pipelines: PipelineCache,
    /// Whether the device has timestamp queries (TIMESTAMP_QUERY).
    pub timestamps: bool,
    /// Whether the adapter is a CPU (lavapipe), whose device memory is host memory: where
    /// the driver reports no free device memory, out-of-memory errors give the host's.
    pub host_memory: bool,
    pub(crate) timing: Timing,
}

impl Context {
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_name: String,
        features: Features,
        limits: wgpu::Limits,
        timestamps: bool,
        spirv: Option<crate::float_controls::SpirvMode>,
    ) -> Context {
        let errors: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&errors);
        let name = adapter_name.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            tracing::error!(adapter = %name, "wgpu error: {e}");
            let mut errors = sink.lock();
            if errors.len() < 16 {
                errors.push(e.to_string());
            }
        }));
        Context {
            device,
            queue,
            adapter_name,
            features,
            limits,
            errors,
            batch: Mutex::new(Batch::default()),
            pool: buffer::new_pool(),
            memory: Arc::default(),
            pipelines: PipelineCache::new(spirv),
            timestamps,
            host_memory: false,
            timing: Timing::default(),
        }
    }

    /// The first error wgpu reported since the last check, as a typed error.
    pub fn take_error(&self) -> Result<()> {
        let mut errors = self.errors.lock();
        if errors.is_empty() {
            return Ok(());
        }
        let reason = errors.join("; ");
        errors.clear();
        Err(WgpuError::Device {
            adapter: self.adapter_name.clone(),
            reason,
        })
    }

    /// Records commands into the pending encoder (created on demand).
    pub fn record<R>(&self, f: impl FnOnce(&mut wgpu::CommandEncoder) -> R) -> R {
        let mut batch = self.batch.lock();
        let encoder = batch.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("gpuarrays"),
                })
        });
        let r = f(encoder);
        batch.commands += 1;
        if batch.commands >= BATCH_COMMANDS {
            self.submit_locked(&mut batch);
        }
        r
    }

    fn submit_locked(&self, batch: &mut Batch) {
        batch.commands = 0;
        batch.params.write(&self.queue);
        if let Some(encoder) = batch.encoder.take() {
            self.queue.submit([encoder.finish()]);
        }
    }

    /// Places a kernel's parameter block in the pending batch's arena (`param_arena.rs`);
    /// a block too large for one gets a buffer of its own.
    pub fn param_block(&self, block: &[u8]) -> Result<ParamSlot> {
        let align = u64::from(
            self.limits
                .min_uniform_buffer_offset_alignment
                .max(self.limits.min_storage_buffer_offset_alignment)
                .max(16),
        );
        if let Some(slot) = self.batch.lock().params.place(&self.device, block, align) {
            return Ok(slot);
        }
        let buffer = self.upload_buffer(
            block,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE,
        )?;
        let size = buffer.size();
        Ok(ParamSlot {
            buffer,
            offset: 0,
            size,
        })
    }

    /// Submits the pending encoder, if any.
    pub fn flush(&self) {
        let mut batch = self.batch.lock();
        self.submit_locked(&mut batch);
    }

    /// Submits pending work and waits until the device has finished everything.
    pub fn wait(&self) -> Result<()> {
        self.flush();
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| WgpuError::Device {
                adapter: self.adapter_name.clone(),
                reason: e.to_string(),
            })?;
        self.take_error()
    }

    /// A new storage buffer of at least `bytes` bytes (pooled). Any size may be asked: one
    /// the device cannot hold, or memory it has not, is [`WgpuError::OutOfMemory`].
    pub fn alloc(&self, bytes: usize) -> Result<WgpuBuffer> {
        let size =
            buffer::buffer_size(bytes as u64, self.limits.max_buffer_size).map_err(|smallest| {
                self.out_of_memory(
                    bytes,
                    OomCause::BufferLimit {
                        buffer: smallest,
                        max: self.limits.max_buffer_size,
                    },
                )
            })?;
        let charge = buffer::Charge::new(&self.memory, size as usize).map_err(|e| {
            self.out_of_memory(
                bytes,
                OomCause::Limit {
                    limit: e.limit as u64,
                    in_use: e.in_use as u64,
                },
            )
        })?;
        let buffer = match self.pool.pop(&size) {
            Some((b, _)) => b,
            None => self.create_storage(bytes, size)?,
        };
        Ok(WgpuBuffer {
            buffer,
            bytes,
            id: buffer::next_buffer_id(),
            _charge: charge,
        })
    }

    fn out_of_memory(&self, bytes: usize, cause: OomCause) -> WgpuError {
        WgpuError::OutOfMemory {
            adapter: self.adapter_name.clone(),
            requested: bytes as u64,
            cause,
            free: crate::memory_budget::free_memory(&self.device, self.host_memory),
        }
    }

    /// A buffer of `size` bytes from the driver, for a request of `bytes`.
    fn create_storage(&self, bytes: usize, size: u64) -> Result<wgpu::Buffer> {
        let attempt = || {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let b = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpuarrays array"),
                size,
                usage: buffer::STORAGE_USAGE,
                mapped_at_creation: false,
            });
            match pollster::block_on(scope.pop()) {
                None => Some(b),
                Some(_) => None,
            }
        };
        if let Some(b) = attempt() {
            return Ok(b);
        }
        // Out of memory: give back every idle pooled buffer and retry once.
        let freed = self.pool.evict_idle(usize::MAX);
        tracing::warn!(
            size,
            freed = freed.bytes,
            "wgpu allocation failed; pool emptied, retrying"
        );
        attempt().ok_or_else(|| {
            self.out_of_memory(
                bytes,
                OomCause::DeviceMemory {
                    buffer: size,
                    released: freed.bytes as u64,
                },
            )
        })
    }

    /// Returns a buffer to the pool.
    pub fn release(&self, b: WgpuBuffer) {
        let size = b.buffer.size();
        self.pool.push(size, b.buffer, size as usize);
    }

    /// A staging buffer filled with `data` (padded with zeros to a multiple of 4 bytes),
    /// with `usage` besides MAP_WRITE.
    pub fn upload_buffer(&self, data: &[u8], usage: wgpu::BufferUsages) -> Result<wgpu::Buffer> {
        let size = (data.len() as u64).div_ceil(4).max(1) * 4;
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarrays upload"),
            size,
            usage,
            mapped_at_creation: true,
        });
        {
            let mut view = b
                .slice(..)
                .get_mapped_range_mut()
                .map_err(|e| self.device_error(format!("mapping an upload buffer: {e}")))?;
            let mut padded = data.to_vec();
            padded.resize(size as usize, 0);
            view.copy_from_slice(&padded);
        }
        b.unmap();
        Ok(b)
    }

    pub fn device_error(&self, reason: String) -> WgpuError {
        WgpuError::Device {
            adapter: self.adapter_name.clone(),
            reason,
        }
    }

    /// Copies `bytes` bytes from `src` at `src_off` to `dst` at `dst_off`; every offset and
    /// the length must be multiples of 4 and the buffers distinct.
    pub fn copy_aligned(
        &self,
        src: &wgpu::Buffer,
        src_off: u64,
        dst: &wgpu::Buffer,
        dst_off: u64,
        bytes: u64,
    ) {
        if bytes == 0 {
            return;
        }
        self.record(|enc| enc.copy_buffer_to_buffer(src, src_off, dst, dst_off, bytes));
    }

    /// Reads `dst.len()` bytes at byte `offset` of `src` after all recorded work.
    pub fn read(&self, src: &wgpu::Buffer, offset: u64, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return self.take_error();
        }
        let start = offset / 4 * 4;
        let end = (offset + dst.len() as u64).div_ceil(4) * 4;
        let size = end - start;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarrays readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.copy_aligned(src, start, &staging, 0, size);
        self.flush();
        let (tx, rx) = mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        let mapped = rx.recv().map_err(|_| WgpuError::Readback {
            adapter: self.adapter_name.clone(),
            bytes: dst.len(),
            reason: "the map callback never ran".into(),
        })?;
        mapped.map_err(|e| WgpuError::Readback {
            adapter: self.adapter_name.clone(),
            bytes: dst.len(),
            reason: e.to_string(),
        })?;
        {
            let view = staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| WgpuError::Readback {
                    adapter: self.adapter_name.clone(),
                    bytes: dst.len(),
                    reason: e.to_string(),
                })?;
            let skip = (offset - start) as usize;
            dst.copy_from_slice(&view[skip..skip + dst.len()]);
        }
        staging.unmap();
        Ok(())
    }

    /// Opens a timing session (`timing.rs`); false if the device has no timestamp queries.
    pub fn begin_timing(&self) -> bool {
        if !self.timestamps {
            return false;
        }
        self.flush();
        self.timing.open(&self.device);
        true
    }

    /// Closes the timing session: the seconds from the first pass's beginning to the last
    /// pass's end, or `None` without a session, without passes, or when it overflowed.
    pub fn end_timing(&self) -> Result<Option<f64>> {
        let Some((set, count)) = self.timing.close() else {
            return Ok(None);
        };
        let bytes = u64::from(count) * 8;
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarrays timestamps"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.record(|enc| enc.resolve_query_set(&set, 0..count, &resolve, 0));
        let mut raw = vec![0u8; bytes as usize];
        self.read(&resolve, 0, &mut raw)?;
        let period_ns = f64::from(self.queue.get_timestamp_period());
        Timing::span_seconds(&raw, period_ns)
            .map(Some)
            .ok_or_else(|| WgpuError::Device {
                adapter: self.adapter_name.clone(),
                reason: "timestamp queries resolved to nothing".into(),
            })
    }
}
