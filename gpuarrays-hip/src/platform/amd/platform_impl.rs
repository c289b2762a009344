//! `impl Platform for AmdPlatform` (devices, streams, events, memory): the HIP runtime calls.

use super::{AmdPlatform, ffi::attr, find_arch};
use crate::error::{HipError, Result};
use crate::platform::{
    DeviceId, DeviceProperties, DevicePtr, EventHandle, MemInfo, Platform, PlatformKind,
    PriorityRange, StreamHandle, WorkStatus, codes,
};
use std::ffi::c_void;

pub(super) fn p(h: u64) -> *mut c_void {
    h as usize as *mut c_void
}

impl AmdPlatform {
    fn status(&self, code: i32) -> WorkStatus {
        match code {
            codes::SUCCESS => WorkStatus::Ready,
            codes::NOT_READY => WorkStatus::Busy,
            other => WorkStatus::Error(other),
        }
    }

    fn attribute(&self, dev: i32, a: i32) -> Result<i32> {
        let mut v = 0;
        // SAFETY: valid out-pointer; `dev` is a checked ordinal.
        self.check("hipDeviceGetAttribute", unsafe {
            (self.f().hipDeviceGetAttribute)(&mut v, a, dev)
        })?;
        Ok(v)
    }

    fn arch(&self, dev: i32) -> Result<String> {
        // Larger than hipDeviceProp_t of any release (about 1.5 KiB in ROCm 6/7), aligned.
        let mut raw = vec![0u64; 1024];
        let f = self.f();
        let (call, code) = match (f.hipGetDevicePropertiesR0600, f.hipGetDeviceProperties) {
            // SAFETY: `raw` is a writable, aligned buffer larger than the struct.
            (Some(g), _) => ("hipGetDevicePropertiesR0600", unsafe {
                g(raw.as_mut_ptr().cast(), dev)
            }),
            // SAFETY: as above.
            (None, Some(g)) => ("hipGetDeviceProperties", unsafe {
                g(raw.as_mut_ptr().cast(), dev)
            }),
            (None, None) => {
                return Err(HipError::MissingSymbols {
                    platform: PlatformKind::Amd,
                    library: "ROCm's HIP runtime (libamdhip64)",
                    path: self.libs.hip.path.clone(),
                    missing: vec!["hipGetDevicePropertiesR0600 or hipGetDeviceProperties".into()],
                    hint: "install ROCm 5.2 or newer",
                });
            }
        };
        self.check(call, code)?;
        // SAFETY: viewing initialised u64s as bytes.
        let bytes = unsafe { std::slice::from_raw_parts(raw.as_ptr().cast::<u8>(), raw.len() * 8) };
        Ok(find_arch(bytes).unwrap_or_else(|| {
            tracing::warn!(
                device = dev,
                "no gfx architecture name in the device properties"
            );
            "gfx-unknown".into()
        }))
    }
}

impl Platform for AmdPlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::Amd
    }
    fn device_count(&self) -> Result<usize> {
        Ok(self.devices)
    }
    fn device_properties(&self, device: DeviceId) -> Result<DeviceProperties> {
        let dev = self.check_device(device)?;
        let mut name = [0 as std::ffi::c_char; 256];
        // SAFETY: `name` is writable for the length passed; HIP NUL-terminates.
        self.check("hipDeviceGetName", unsafe {
            (self.f().hipDeviceGetName)(name.as_mut_ptr(), 255, dev)
        })?;
        // SAFETY: the last byte is never written, so the string is NUL-terminated.
        let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mut total = 0usize;
        // SAFETY: valid out-pointer.
        self.check("hipDeviceTotalMem", unsafe {
            (self.f().hipDeviceTotalMem)(&mut total, dev)
        })?;
        Ok(DeviceProperties {
            name,
            arch: self.arch(dev)?,
            warp_size: self.attribute(dev, attr::WARP_SIZE)? as u32,
            multiprocessor_count: self.attribute(dev, attr::MULTIPROCESSOR_COUNT)? as u32,
            total_memory: total,
            max_threads_per_block: self.attribute(dev, attr::MAX_THREADS_PER_BLOCK)? as u32,
            max_shared_memory_per_block: self.attribute(dev, attr::MAX_SHARED_MEMORY_PER_BLOCK)?
                as u32,
        })
    }
    fn bind_device(&self, device: DeviceId) -> Result<()> {
        let dev = self.check_device(device)?;
        let mut cur = -1;
        // SAFETY: valid out-pointer.
        self.check("hipGetDevice", unsafe { (self.f().hipGetDevice)(&mut cur) })?;
        if cur != dev {
            // SAFETY: `dev` is a checked ordinal.
            self.check("hipSetDevice", unsafe { (self.f().hipSetDevice)(dev) })?;
        }
        Ok(())
    }
    fn mem_info(&self, device: DeviceId) -> Result<MemInfo> {
        self.bind_device(device)?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: valid out-pointers; the device is current.
        self.check("hipMemGetInfo", unsafe {
            (self.f().hipMemGetInfo)(&mut free, &mut total)
        })?;
        Ok(MemInfo { free, total })
    }
    fn synchronize_device(&self, device: DeviceId) -> Result<()> {
        self.bind_device(device)?;
        // SAFETY: no arguments; the device is current.
        self.check("hipDeviceSynchronize", unsafe {
            (self.f().hipDeviceSynchronize)()
        })
    }
    fn stream_priority_range(&self, device: DeviceId) -> Result<PriorityRange> {
        self.bind_device(device)?;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: valid out-pointers; the device is current.
        self.check("hipDeviceGetStreamPriorityRange", unsafe {
            (self.f().hipDeviceGetStreamPriorityRange)(&mut least, &mut greatest)
        })?;
        Ok(PriorityRange { least, greatest })
    }
    fn create_stream(&self, device: DeviceId, priority: i32) -> Result<StreamHandle> {
        self.bind_device(device)?;
        let mut s = std::ptr::null_mut();
        // SAFETY: valid out-pointer; 1 = hipStreamNonBlocking.
        self.check("hipStreamCreateWithPriority", unsafe {
            (self.f().hipStreamCreateWithPriority)(&mut s, 1, priority)
        })?;
        Ok(StreamHandle(s as usize as u64))
    }
    fn destroy_stream(&self, s: StreamHandle) -> Result<()> {
        // SAFETY: the caller passes a stream it created and no longer uses.
        self.check("hipStreamDestroy", unsafe {
            (self.f().hipStreamDestroy)(p(s.0))
        })
    }
    fn query_stream(&self, s: StreamHandle) -> WorkStatus {
        // SAFETY: queries a stream handle; invalid handles yield an error code.
        self.status(unsafe { (self.f().hipStreamQuery)(p(s.0)) })
    }
    fn synchronize_stream(&self, s: StreamHandle) -> Result<()> {
        // SAFETY: blocks on a stream handle.
        self.check("hipStreamSynchronize", unsafe {
            (self.f().hipStreamSynchronize)(p(s.0))
        })
    }
    fn create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.bind_device(device)?;
        let mut e = std::ptr::null_mut();
        // SAFETY: valid out-pointer; 2 = hipEventDisableTiming.
        self.check("hipEventCreateWithFlags", unsafe {
            (self.f().hipEventCreateWithFlags)(&mut e, 2)
        })?;
        Ok(EventHandle(e as usize as u64))
    }
    fn record_event(&self, e: EventHandle, s: StreamHandle) -> Result<()> {
        // SAFETY: handles created on this platform.
        self.check("hipEventRecord", unsafe {
            (self.f().hipEventRecord)(p(e.0), p(s.0))
        })
    }
    fn stream_wait_event(&self, s: StreamHandle, e: EventHandle) -> Result<()> {
        // SAFETY: handles created on this platform.
        self.check("hipStreamWaitEvent", unsafe {
            (self.f().hipStreamWaitEvent)(p(s.0), p(e.0), 0)
        })
    }
    fn query_event(&self, e: EventHandle) -> WorkStatus {
        // SAFETY: queries an event handle.
        self.status(unsafe { (self.f().hipEventQuery)(p(e.0)) })
    }
    fn synchronize_event(&self, e: EventHandle) -> Result<()> {
        // SAFETY: blocks on an event handle.
        self.check("hipEventSynchronize", unsafe {
            (self.f().hipEventSynchronize)(p(e.0))
        })
    }
    fn destroy_event(&self, e: EventHandle) -> Result<()> {
        // SAFETY: the caller passes an event it created and no longer uses.
        self.check("hipEventDestroy", unsafe {
            (self.f().hipEventDestroy)(p(e.0))
        })
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.bind_device(device)?;
        let mut e = std::ptr::null_mut();
        // SAFETY: valid out-pointer; 0 = hipEventDefault (timing enabled).
        self.check("hipEventCreateWithFlags", unsafe {
            (self.f().hipEventCreateWithFlags)(&mut e, 0)
        })?;
        Ok(EventHandle(e as usize as u64))
    }
    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: valid out-pointer; events created on this platform (HIP reports events
        // without timing or not yet recorded as errors).
        self.check("hipEventElapsedTime", unsafe {
            (self.f().hipEventElapsedTime)(&mut ms, p(start.0), p(end.0))
        })?;
        Ok(ms)
    }
    fn alloc_async(&self, bytes: usize, s: StreamHandle) -> Result<DevicePtr> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the stream's device is current (contract).
        self.check("hipMallocAsync", unsafe {
            (self.f().hipMallocAsync)(&mut ptr, bytes, p(s.0))
        })?;
        Ok(DevicePtr(ptr as usize as u64))
    }
    fn free_async(&self, ptr: DevicePtr, s: StreamHandle) -> Result<()> {
        // SAFETY: `ptr` came from alloc_async and is freed once (caller contract).
        self.check("hipFreeAsync", unsafe {
            (self.f().hipFreeAsync)(p(ptr.0), p(s.0))
        })
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract; HIP takes the source as non-const but only reads it.
        self.check("hipMemcpyHtoDAsync", unsafe {
            (self.f().hipMemcpyHtoDAsync)(p(dst.0), src as *mut c_void, bytes, p(s.0))
        })
    }
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract.
        self.check("hipMemcpyDtoHAsync", unsafe {
            (self.f().hipMemcpyDtoHAsync)(dst, p(src.0), bytes, p(s.0))
        })
    }
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract.
        self.check("hipMemcpyDtoDAsync", unsafe {
            (self.f().hipMemcpyDtoDAsync)(p(dst.0), p(src.0), bytes, p(s.0))
        })
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract.
        self.check("hipMemsetD8Async", unsafe {
            (self.f().hipMemsetD8Async)(p(dst.0), value, bytes, p(s.0))
        })
    }
    fn host_alloc_pinned(&self, device: DeviceId, bytes: usize) -> Result<*mut u8> {
        self.bind_device(device)?;
        // 1 = hipHostMallocPortable (= hipHostAllocPortable): usable by every device.
        let (call, alloc) = match (self.f().hipHostMalloc, self.f().hipHostAlloc) {
            (Some(f), _) => ("hipHostMalloc", f),
            (None, Some(f)) => ("hipHostAlloc", f),
            (None, None) => {
                return Err(HipError::InvalidArgument(
                    "this libamdhip64 exports neither hipHostMalloc nor hipHostAlloc, so there \
                     is no pinned host memory; large host copies use the pageable path"
                        .into(),
                ));
            }
        };
        let mut ptr = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the device is current.
        self.check(call, unsafe { alloc(&mut ptr, bytes, 1) })?;
        Ok(ptr.cast())
    }
    unsafe fn host_free_pinned(&self, device: DeviceId, ptr: *mut u8) -> Result<()> {
        self.bind_device(device)?;
        // SAFETY: the trait's contract: `ptr` came from host_alloc_pinned, no copy pending.
        self.check("hipHostFree", unsafe { (self.f().hipHostFree)(ptr.cast()) })
    }
}
