//! Foreign buffers: host memory owned by another library (a DLPack import), which a
//! `CpuBuffer` reads and writes but never frees.
//!
//! Such a buffer has no allocation of its own (`alloc: None`), so its `Drop` frees nothing;
//! giving the memory back to its owner (DLPack's deleter) is the job of the destructor that
//! the importer registers with the buffer's `DataRef`, which drops this buffer first.
//! Element accesses check the base's alignment for their type (`CpuBuffer::ptr`), because
//! foreign memory is not necessarily 64-byte aligned like this backend's own.

use std::ptr::NonNull;
use std::sync::atomic::AtomicU8;

use super::{ALIGN, AccessLock, CpuBuffer, READY};
use crate::error::CpuError;

impl CpuBuffer {
    /// Wraps `len` bytes of host memory at `ptr` that someone else owns. The bytes count as
    /// initialised. A null `ptr` is allowed only with `len == 0`.
    ///
    /// # Safety
    /// `ptr..ptr + len` must be valid for reads and writes, and initialised, for as long as
    /// the returned buffer lives, and nothing outside gpuarrays may write it meanwhile
    /// (nor read it while a gpuarrays call writes it).
    pub unsafe fn foreign(ptr: *mut u8, len: usize) -> Result<CpuBuffer, CpuError> {
        let base = match NonNull::new(ptr) {
            Some(p) if len > 0 => p,
            // Nothing is ever accessed through an empty buffer's base: a dangling, aligned
            // one like `CpuBuffer::new(0)`'s.
            _ if len == 0 => {
                NonNull::new(ALIGN as *mut u8).ok_or(CpuError::OutOfMemory { bytes: 0 })?
            }
            _ => {
                return Err(CpuError::InvalidKernel {
                    what: format!("a null foreign pointer for {len} bytes"),
                });
            }
        };
        Ok(CpuBuffer {
            alloc: None,
            base,
            len,
            state: AtomicU8::new(READY),
            access: AccessLock::default(),
        })
    }

    /// The address of byte 0, for handing the memory to another library (a DLPack export's
    /// `data`). The bytes are initialised first (zeroed if nothing wrote them yet), so the
    /// other library never reads uninitialised memory.
    pub fn export_address(&self) -> usize {
        self.initialised();
        self.base() as usize
    }
}
