//! [`DlpackBackend`] for the backends of this workspace: thin forwards to what each backend
//! crate provides (the platform-specific code stays there).

#[cfg(any(feature = "cpu", feature = "hip"))]
use super::DlpackBackend;
#[cfg(any(feature = "cpu", feature = "hip"))]
use super::ffi::DLDevice;

#[cfg(feature = "cpu")]
impl DlpackBackend for gpuarrays_cpu_ref::CpuBackend {
    fn dlpack_device(&self) -> DLDevice {
        DLDevice {
            device_type: super::ffi::KDL_CPU,
            device_id: 0,
        }
    }

    fn buffer_address(&self, buffer: &gpuarrays_cpu_ref::CpuBuffer) -> usize {
        buffer.export_address()
    }

    fn order_for_consumer(
        &self,
        _buffer: &gpuarrays_cpu_ref::CpuBuffer,
        _consumer_stream: Option<usize>,
    ) -> gpuarrays_core::Result<()> {
        // Every call of the CPU reference has finished when it returns.
        Ok(())
    }

    unsafe fn wrap_foreign(
        &self,
        address: usize,
        bytes: usize,
    ) -> gpuarrays_core::Result<gpuarrays_cpu_ref::CpuBuffer> {
        // SAFETY: the caller's contract (host memory valid for the buffer's life).
        unsafe { gpuarrays_cpu_ref::CpuBuffer::foreign(address as *mut u8, bytes) }
            .map_err(Into::into)
    }

    fn release_foreign(&self, buffer: gpuarrays_cpu_ref::CpuBuffer) {
        // Not `Backend::release`: the memory was never charged to this backend's tracker,
        // and a foreign buffer frees nothing when dropped.
        drop(buffer);
    }
}

#[cfg(feature = "hip")]
impl DlpackBackend for gpuarrays_hip::HipBackend {
    fn dlpack_device(&self) -> DLDevice {
        let (device_type, device_id) = gpuarrays_hip::HipBackend::dlpack_device(self);
        DLDevice {
            device_type,
            device_id,
        }
    }

    fn buffer_address(&self, buffer: &gpuarrays_hip::HipBuffer) -> usize {
        buffer.ptr().0 as usize
    }

    fn order_for_consumer(
        &self,
        buffer: &gpuarrays_hip::HipBuffer,
        consumer_stream: Option<usize>,
    ) -> gpuarrays_core::Result<()> {
        gpuarrays_hip::HipBackend::order_for_consumer(self, buffer, consumer_stream)
    }

    unsafe fn wrap_foreign(
        &self,
        address: usize,
        bytes: usize,
    ) -> gpuarrays_core::Result<gpuarrays_hip::HipBuffer> {
        // SAFETY: the caller's contract (device memory valid for the buffer's life, the
        // producer's work ordered before this thread's stream).
        unsafe { gpuarrays_hip::HipBackend::wrap_foreign(self, address, bytes) }
    }

    fn release_foreign(&self, buffer: gpuarrays_hip::HipBuffer) {
        gpuarrays_hip::HipBackend::release_foreign(self, buffer)
    }
}
