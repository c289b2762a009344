//! `impl Platform for NvidiaPlatform` (devices, streams, events, memory): the CUDA driver calls.

use super::{NvidiaPlatform, cu, cu_call, event, guarded, stream};
use crate::error::{HipError, Result};
use crate::platform::{
    DeviceId, DeviceProperties, DevicePtr, EventHandle, MemInfo, Platform, PlatformKind,
    PriorityRange, StreamHandle, WorkStatus,
};
use std::ffi::c_void;

fn status(r: cu::CUresult) -> WorkStatus {
    match r {
        cu::CUresult::CUDA_SUCCESS => WorkStatus::Ready,
        cu::CUresult::CUDA_ERROR_NOT_READY => WorkStatus::Busy,
        other => WorkStatus::Error(other as i32),
    }
}

impl Platform for NvidiaPlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::Nvidia
    }
    fn device_count(&self) -> Result<usize> {
        Ok(self.contexts.len())
    }
    fn device_properties(&self, device: DeviceId) -> Result<DeviceProperties> {
        self.context(device)?;
        let dev = self.cu_device(device)?;
        let mut name = [0 as std::ffi::c_char; 256];
        // SAFETY: `name` is a writable buffer of the length passed.
        cu_call("cuDeviceGetName", || unsafe {
            cu::cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)
        })?;
        // SAFETY: the driver NUL-terminates within the buffer; the last byte is never written.
        let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        use cu::CUdevice_attribute as A;
        let major = self.attribute(dev, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = self.attribute(dev, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let mut total = 0usize;
        // SAFETY: `total` is a valid out-pointer.
        cu_call("cuDeviceTotalMem_v2", || unsafe {
            cu::cuDeviceTotalMem_v2(&mut total, dev)
        })?;
        Ok(DeviceProperties {
            name,
            arch: format!("sm_{major}{minor}"),
            warp_size: self.attribute(dev, A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)? as u32,
            multiprocessor_count: self
                .attribute(dev, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
                as u32,
            total_memory: total,
            max_threads_per_block: self
                .attribute(dev, A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?
                as u32,
            max_shared_memory_per_block: self
                .attribute(dev, A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?
                as u32,
        })
    }
    fn bind_device(&self, device: DeviceId) -> Result<()> {
        let ctx = self.context(device)?;
        let mut current: cu::CUcontext = std::ptr::null_mut();
        // SAFETY: `current` is a valid out-pointer.
        cu_call("cuCtxGetCurrent", || unsafe {
            cu::cuCtxGetCurrent(&mut current)
        })?;
        if current != ctx {
            // SAFETY: `ctx` is a primary context retained for the platform's lifetime.
            cu_call("cuCtxSetCurrent", || unsafe { cu::cuCtxSetCurrent(ctx) })?;
        }
        Ok(())
    }
    fn mem_info(&self, device: DeviceId) -> Result<MemInfo> {
        self.bind_device(device)?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: both are valid out-pointers; the device's context is current.
        cu_call("cuMemGetInfo_v2", || unsafe {
            cu::cuMemGetInfo_v2(&mut free, &mut total)
        })?;
        Ok(MemInfo { free, total })
    }
    fn synchronize_device(&self, device: DeviceId) -> Result<()> {
        self.bind_device(device)?;
        // SAFETY: no arguments; the device's context is current.
        cu_call("cuCtxSynchronize", || unsafe { cu::cuCtxSynchronize() })
    }
    fn stream_priority_range(&self, device: DeviceId) -> Result<PriorityRange> {
        self.bind_device(device)?;
        let (mut least, mut greatest) = (0i32, 0i32);
        // SAFETY: both are valid out-pointers; the device's context is current.
        cu_call("cuCtxGetStreamPriorityRange", || unsafe {
            cu::cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
        })?;
        Ok(PriorityRange { least, greatest })
    }
    fn create_stream(&self, device: DeviceId, priority: i32) -> Result<StreamHandle> {
        self.bind_device(device)?;
        let mut s: cu::CUstream = std::ptr::null_mut();
        let flags = cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: `s` is a valid out-pointer; the device's context is current.
        cu_call("cuStreamCreateWithPriority", || unsafe {
            cu::cuStreamCreateWithPriority(&mut s, flags, priority)
        })?;
        Ok(StreamHandle(s as usize as u64))
    }
    fn destroy_stream(&self, s: StreamHandle) -> Result<()> {
        // SAFETY: the caller passes a stream it created and no longer uses.
        cu_call("cuStreamDestroy_v2", || unsafe {
            cu::cuStreamDestroy_v2(stream(s))
        })
    }
    fn query_stream(&self, s: StreamHandle) -> WorkStatus {
        // SAFETY: queries a stream handle; invalid handles yield an error code.
        match guarded("cuStreamQuery", || unsafe { cu::cuStreamQuery(stream(s)) }) {
            Ok(r) => status(r),
            Err(_) => WorkStatus::Error(crate::platform::codes::INVALID_HANDLE),
        }
    }
    fn synchronize_stream(&self, s: StreamHandle) -> Result<()> {
        // SAFETY: blocks on a stream handle the caller owns or recorded.
        cu_call("cuStreamSynchronize", || unsafe {
            cu::cuStreamSynchronize(stream(s))
        })
    }
    fn create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.bind_device(device)?;
        let mut e: cu::CUevent = std::ptr::null_mut();
        let flags = cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        // SAFETY: `e` is a valid out-pointer; the device's context is current.
        cu_call("cuEventCreate", || unsafe {
            cu::cuEventCreate(&mut e, flags)
        })?;
        Ok(EventHandle(e as usize as u64))
    }
    fn record_event(&self, e: EventHandle, s: StreamHandle) -> Result<()> {
        // SAFETY: both handles were created on this platform.
        cu_call("cuEventRecord", || unsafe {
            cu::cuEventRecord(event(e), stream(s))
        })
    }
    fn stream_wait_event(&self, s: StreamHandle, e: EventHandle) -> Result<()> {
        // SAFETY: both handles were created on this platform.
        cu_call("cuStreamWaitEvent", || unsafe {
            cu::cuStreamWaitEvent(stream(s), event(e), 0)
        })
    }
    fn query_event(&self, e: EventHandle) -> WorkStatus {
        // SAFETY: queries an event handle created on this platform.
        match guarded("cuEventQuery", || unsafe { cu::cuEventQuery(event(e)) }) {
            Ok(r) => status(r),
            Err(_) => WorkStatus::Error(crate::platform::codes::INVALID_HANDLE),
        }
    }
    fn synchronize_event(&self, e: EventHandle) -> Result<()> {
        // SAFETY: blocks on an event handle created on this platform.
        cu_call("cuEventSynchronize", || unsafe {
            cu::cuEventSynchronize(event(e))
        })
    }
    fn destroy_event(&self, e: EventHandle) -> Result<()> {
        // SAFETY: the caller passes an event it created and no longer uses.
        cu_call("cuEventDestroy_v2", || unsafe {
            cu::cuEventDestroy_v2(event(e))
        })
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.bind_device(device)?;
        let mut e: cu::CUevent = std::ptr::null_mut();
        let flags = cu::CUevent_flags::CU_EVENT_DEFAULT as u32;
        // SAFETY: `e` is a valid out-pointer; the device's context is current.
        cu_call("cuEventCreate", || unsafe {
            cu::cuEventCreate(&mut e, flags)
        })?;
        Ok(EventHandle(e as usize as u64))
    }
    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        if !self.has_elapsed_time {
            return Err(HipError::MissingSymbols {
                platform: PlatformKind::Nvidia,
                library: "the NVIDIA driver (libcuda)",
                path: self._driver.path.clone(),
                missing: vec!["cuEventElapsedTime_v2".into()],
                hint: "device-side timing needs an NVIDIA driver for CUDA 12.8 or newer",
            });
        }
        let mut ms = 0f32;
        // SAFETY: `ms` is a valid out-pointer; both events were created by this platform
        // (the driver reports events without timing or not yet recorded as errors); the
        // symbol was resolved by the preflight (checked above).
        cu_call("cuEventElapsedTime_v2", || unsafe {
            cu::cuEventElapsedTime_v2(&mut ms, event(start), event(end))
        })?;
        Ok(ms)
    }
    fn alloc_async(&self, bytes: usize, s: StreamHandle) -> Result<DevicePtr> {
        let mut p: cu::CUdeviceptr = 0;
        if self.pools_supported.iter().all(|&b| b) {
            // SAFETY: `p` is a valid out-pointer; the stream's context is current (contract).
            cu_call("cuMemAllocAsync", || unsafe {
                cu::cuMemAllocAsync(&mut p, bytes, stream(s))
            })?;
        } else {
            // SAFETY: as above; synchronous fallback for devices without memory pools.
            cu_call("cuMemAlloc_v2", || unsafe {
                cu::cuMemAlloc_v2(&mut p, bytes)
            })?;
        }
        Ok(DevicePtr(p))
    }
    fn free_async(&self, ptr: DevicePtr, s: StreamHandle) -> Result<()> {
        if self.pools_supported.iter().all(|&b| b) {
            // SAFETY: `ptr` came from alloc_async and is freed once (caller contract).
            cu_call("cuMemFreeAsync", || unsafe {
                cu::cuMemFreeAsync(ptr.0, stream(s))
            })
        } else {
            self.synchronize_stream(s)?;
            // SAFETY: as above; the stream's work using it has completed.
            cu_call("cuMemFree_v2", || unsafe { cu::cuMemFree_v2(ptr.0) })
        }
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract: `src` readable and `dst` allocated for `bytes`.
        cu_call("cuMemcpyHtoDAsync_v2", || unsafe {
            cu::cuMemcpyHtoDAsync_v2(dst.0, src, bytes, stream(s))
        })
    }
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract: `dst` writable and `src` allocated for `bytes`.
        cu_call("cuMemcpyDtoHAsync_v2", || unsafe {
            cu::cuMemcpyDtoHAsync_v2(dst, src.0, bytes, stream(s))
        })
    }
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract: both ranges lie in live allocations.
        cu_call("cuMemcpyDtoDAsync_v2", || unsafe {
            cu::cuMemcpyDtoDAsync_v2(dst.0, src.0, bytes, stream(s))
        })
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract: the range lies in a live allocation.
        cu_call("cuMemsetD8Async", || unsafe {
            cu::cuMemsetD8Async(dst.0, value, bytes, stream(s))
        })
    }
    fn host_alloc_pinned(&self, device: DeviceId, bytes: usize) -> Result<*mut u8> {
        self.bind_device(device)?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // CU_MEMHOSTALLOC_PORTABLE: pinned for every context, not only the current one.
        let flags = 0x01;
        // SAFETY: `ptr` is a valid out-pointer; the device's context is current.
        cu_call("cuMemHostAlloc", || unsafe {
            cu::cuMemHostAlloc(&mut ptr, bytes, flags)
        })?;
        Ok(ptr.cast())
    }
    unsafe fn host_free_pinned(&self, device: DeviceId, ptr: *mut u8) -> Result<()> {
        self.bind_device(device)?;
        // SAFETY: the trait's contract: `ptr` came from host_alloc_pinned, no copy pending.
        cu_call("cuMemFreeHost", || unsafe { cu::cuMemFreeHost(ptr.cast()) })
    }
}
