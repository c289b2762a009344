//! A gpuarrays backend in host memory that implements only the seven required methods of
//! `gpuarrays_core::Backend`: every kernel comes from core's small-backend kit
//! (`gpuarrays_core::host`), which reads the operands with [`Backend::read`], computes on
//! the host and writes the results back with [`Backend::write`].
//!
//! It exists to show how little a new backend needs before it conforms: a device handle,
//! capability answers, and storage. A real device backend starts the same way, with its
//! own allocation and copies, runs the conformance suite (`tests/conformance.rs`), and
//! then overrides the kernel methods one at a time with device kernels, running the suite
//! after each (`docs/backend-guide.md`, "Adding a backend in an afternoon").

use std::sync::{Arc, RwLock};

use gpuarrays_core::device::next_device_id;
use gpuarrays_core::{Backend, DType, DeviceInfo, Error, OpKind, Result, Support};

/// What can go wrong in this backend, wrapped in [`Error::Backend`] for core.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A range outside the buffer: core validates every range, so this is a bug in core or
    /// in this backend.
    #[error(
        "bytes {start}..{end} are outside a buffer of {size} bytes; this is a bug, please \
         report it with the operation that caused it"
    )]
    OutOfRange {
        start: usize,
        end: usize,
        size: usize,
    },
    /// Another thread panicked while it held the buffer; its contents are unknown.
    #[error("a thread panicked while it held this buffer; its contents are unknown, drop it")]
    Poisoned,
}

impl From<HostError> for Error {
    fn from(e: HostError) -> Error {
        Error::backend("host", e)
    }
}

/// One buffer: 16-byte units, so the base is aligned to 16 bytes as core requires, and
/// the exact length in bytes. The lock orders calls of several threads on one buffer.
pub struct HostBuffer {
    units: RwLock<Vec<u128>>,
    len: usize,
}

impl HostBuffer {
    fn range(&self, start: usize, bytes: usize) -> Result<std::ops::Range<usize>> {
        match start.checked_add(bytes) {
            Some(end) if end <= self.len => Ok(start..end),
            _ => Err(HostError::OutOfRange {
                start,
                end: start.saturating_add(bytes),
                size: self.len,
            }
            .into()),
        }
    }
}

/// The backend: a handle to one "device", host memory. Clones share the device.
#[derive(Clone, Debug)]
pub struct HostBackend {
    device: Arc<DeviceInfo>,
}

impl HostBackend {
    /// A new device: arrays of two `HostBackend::new()` values do not mix (as with two GPUs).
    pub fn new() -> Self {
        HostBackend {
            device: Arc::new(DeviceInfo {
                backend: "host",
                id: next_device_id(),
                ordinal: 0,
                name: "host memory (kit)".into(),
                flushes_subnormals: Default::default(),
            }),
        }
    }
}

impl Default for HostBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl Backend for HostBackend {
    type Buffer = HostBuffer;

    fn name(&self) -> &'static str {
        "host"
    }

    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// Every type for every operation; FFTs as far as this build of core's kit computes
    /// them (its `host-fft` feature, on by default).
    fn supports(&self, _dtype: DType, op: OpKind) -> Support {
        match op {
            OpKind::Fft => gpuarrays_core::host::supports_fft(),
            _ => Support::Yes,
        }
    }

    fn alloc(&self, bytes: usize) -> Result<HostBuffer> {
        let units = bytes.div_ceil(16);
        let mut v = Vec::new();
        if v.try_reserve_exact(units).is_err() {
            return Err(Error::OutOfMemory {
                device: self.device.name.clone(),
                requested: Some(bytes),
                free: None,
                hint: Some("allocate less".into()),
            });
        }
        v.resize(units, 0u128);
        Ok(HostBuffer {
            units: RwLock::new(v),
            len: bytes,
        })
    }

    fn release(&self, buffer: HostBuffer) {
        drop(buffer)
    }

    fn write(&self, dst: &HostBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        let range = dst.range(byte_offset, src.len())?;
        let mut units = dst.units.write().map_err(|_| HostError::Poisoned)?;
        bytemuck::cast_slice_mut::<u128, u8>(&mut units)[range].copy_from_slice(src);
        Ok(())
    }

    fn read(&self, src: &HostBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        let range = src.range(byte_offset, dst.len())?;
        let units = src.units.read().map_err(|_| HostError::Poisoned)?;
        dst.copy_from_slice(&bytemuck::cast_slice::<u128, u8>(&units)[range]);
        Ok(())
    }
}
