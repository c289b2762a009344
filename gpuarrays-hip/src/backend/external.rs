//! Memory shared with other libraries through DLPack: the HIP side of
//! `gpuarrays_io::dlpack` (which holds the DLPack structs and is generic over backends).
//!
//! What only this crate knows lives here: which DLPack device type the device is (CUDA on
//! NVIDIA, ROCm on AMD), a buffer's device address, how to order this backend's work before
//! a consumer's stream, and how to wrap (and later hand back) another library's device
//! pointer without ever freeing it into the pool.

use gpuarrays_core::Error;

use super::{HipBackend, HipBuffer};
use crate::device::DeviceBuffer;
use crate::platform::{DevicePtr, PlatformKind, StreamHandle};
use crate::stream::Waited;

/// DLPack's `kDLCUDA`: memory of an NVIDIA device.
pub const DLPACK_CUDA: i32 = 2;
/// DLPack's `kDLROCM`: memory of an AMD device.
pub const DLPACK_ROCM: i32 = 10;

impl HipBackend {
    /// The DLPack device `(device_type, device_id)` of this backend's memory:
    /// `(kDLCUDA, ordinal)` on NVIDIA, `(kDLROCM, ordinal)` on AMD. The test double poses as
    /// CUDA (its "device" memory is host memory, but nothing outside the tests sees it).
    pub fn dlpack_device(&self) -> (i32, i32) {
        let kind = match self.device_state().platform().kind() {
            PlatformKind::Amd => DLPACK_ROCM,
            PlatformKind::Nvidia | PlatformKind::TestDouble => DLPACK_CUDA,
        };
        (kind, self.inner.info.ordinal as i32)
    }

    /// The raw handle of the calling thread's stream on this device: what a consumer passes
    /// as `stream` to a producer's `__dlpack__` before importing (the producer then orders
    /// its work before this stream).
    pub fn dlpack_stream(&self) -> gpuarrays_core::Result<usize> {
        let stream = self
            .device_state()
            .thread_stream()
            .map_err(|e| self.err(e))?;
        Ok(stream.handle().0 as usize)
    }

    /// Orders every write to `buffer` before work a consumer enqueues on `consumer_stream`
    /// (a raw `CUstream`/`hipStream_t` of this device), device-side: the calling thread's
    /// stream is made to wait for the buffer's last write (whichever thread made it), an
    /// event is recorded there and `consumer_stream` waits for it. With `None` the host
    /// waits instead (the thread's stream is synchronised), which orders the work before
    /// any stream. DLPack's rule for `__dlpack__(stream=...)`.
    pub fn order_for_consumer(
        &self,
        buffer: &HipBuffer,
        consumer_stream: Option<usize>,
    ) -> gpuarrays_core::Result<()> {
        let state = self.device_state();
        let r = (|| {
            let stream = state.thread_stream()?;
            let events = state.events();
            buffer
                .device_buffer()
                .uses_lock()
                .order_read(&stream, events, &mut Waited::new())?;
            match consumer_stream {
                None => stream.synchronize(),
                Some(s) if s as u64 == stream.handle().0 => Ok(()),
                Some(s) => {
                    let platform = state.platform();
                    let event = events.get()?;
                    let r = platform
                        .record_event(event, stream.handle())
                        .and_then(|()| platform.stream_wait_event(StreamHandle(s as u64), event));
                    // The wait took the record as it stands now; the event may be reused.
                    events.put(event);
                    r
                }
            }
        })();
        r.map_err(|e| self.err(e))
    }

    /// Wraps `bytes` bytes of device memory at `address` that another library owns as a
    /// buffer of this device. Releasing it ([`release_foreign`](Self::release_foreign))
    /// never frees the memory.
    ///
    /// # Safety
    /// `address..address + bytes` must be memory of this device, valid for as long as the
    /// buffer lives, and the owner's work on it must already be ordered before this
    /// thread's stream ([`dlpack_stream`](Self::dlpack_stream)).
    pub unsafe fn wrap_foreign(
        &self,
        address: usize,
        bytes: usize,
    ) -> gpuarrays_core::Result<HipBuffer> {
        if address == 0 && bytes > 0 {
            return Err(Error::InvalidArgument {
                op: "from_dlpack".into(),
                reason: format!("a null device pointer for {bytes} bytes"),
            });
        }
        let inner = DeviceBuffer::foreign(
            DevicePtr(address as u64),
            bytes,
            self.device_state().clone(),
        );
        Ok(HipBuffer::new(inner))
    }

    /// Gives a buffer from [`wrap_foreign`](Self::wrap_foreign) up: blocks until every use
    /// this backend recorded has completed (the owner may free or reuse the memory as soon
    /// as it is told), then drops it without freeing. Errors are logged, never panicked.
    pub fn release_foreign(&self, buffer: HipBuffer) {
        if let Err(e) = buffer.device_buffer().wait_uses_on_host() {
            tracing::warn!(device = %self.inner.info, error = %e, "waiting for the uses of a foreign buffer failed; handing it back anyway");
        }
        drop(buffer);
    }
}
