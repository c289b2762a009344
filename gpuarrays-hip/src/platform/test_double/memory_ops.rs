//! The test double's device memory and copies: stream-ordered allocation and free, copies
//! in every direction (those touching pinned memory complete like a real GPU's, see
//! `pinned.rs`) and memset. The `Platform` methods in `platform_impl.rs` call these.

use super::*;
use state::Queued;

impl FakePlatform {
    pub(super) fn fake_alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr> {
        let injected = {
            let mut f = self.faults.lock();
            let fail = f.fail_allocs > 0;
            if fail {
                f.fail_allocs -= 1;
            }
            fail
        };
        let mut st = self.state.lock();
        self.enqueue_check(&st, "alloc_async", stream)?;
        let device = st.stream(stream).map_or(DeviceId(0), |s| s.device);
        let used = st.used.get(&device).copied().unwrap_or(0);
        let fits = used
            .checked_add(bytes)
            .is_some_and(|u| u <= self.config.memory_per_device);
        if injected || !fits {
            return Err(api("alloc_async", codes::OUT_OF_MEMORY, "out of memory"));
        }
        let ptr = DevicePtr(st.next_addr);
        st.next_addr += (bytes.max(1) as u64).next_multiple_of(256);
        let in_graph = st.enqueue(FakeOp::Alloc { stream, ptr, bytes }, Duration::ZERO);
        st.allocs.insert(
            ptr.0,
            FakeAlloc {
                device,
                data: vec![0; bytes],
                in_graph,
                graph_ran: false,
            },
        );
        *st.used.entry(device).or_default() += bytes;
        if !in_graph {
            self.note(&mut st, stream, ptr.0, true, "allocation");
        }
        Ok(ptr)
    }

    pub(super) fn fake_free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "free_async", stream)?;
        if !st.allocs.contains_key(&ptr.0) {
            self.invalid_frees.fetch_add(1, Ordering::SeqCst);
            return Err(api("free_async", codes::INVALID_VALUE, "not allocated"));
        }
        if st.enqueue(FakeOp::Free { stream, ptr }, Duration::ZERO) {
            // Captured: the graph frees it when launched.
            return Ok(());
        }
        self.note(&mut st, stream, ptr.0, true, "free");
        st.races.forget(ptr.0);
        if let Some(a) = st.allocs.remove(&ptr.0) {
            *st.used.entry(a.device).or_default() -= a.data.len();
        }
        Ok(())
    }

    pub(super) unsafe fn fake_copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "copy_htod_async", stream)?;
        self.refuse_during_capture(&mut st, "copy_htod_async (pageable host memory)", stream)?;
        let (base, off) = self.access_on(&mut st, stream, dst, bytes)?;
        let pinned = st.pinned.locate("copy_htod_async", src.addr(), bytes)?;
        // SAFETY: the caller guarantees `src` is readable for `bytes` bytes (trait contract).
        let src_bytes = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
        if let Some(a) = st.allocs.get_mut(&base) {
            a.data[off..off + bytes].copy_from_slice(src_bytes);
        }
        let queued = st.enqueue_queued(
            FakeOp::Copy { stream, bytes },
            Completion::After(self.config.copy_time),
            Vec::new(),
        );
        if let (Some(pinned), Queued::Pending(work)) = (pinned, queued) {
            // A DMA from pinned memory reads it while it runs: the source must stay as it
            // is until the copy completes (checked then).
            st.pinned
                .check_later(work, pinned, src.addr(), src_bytes.to_vec(), stream.0);
        }
        self.note(&mut st, stream, base, true, "host-to-device copy");
        Ok(())
    }

    pub(super) unsafe fn fake_copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "copy_dtoh_async", stream)?;
        self.refuse_during_capture(&mut st, "copy_dtoh_async (pageable host memory)", stream)?;
        let (base, off) = self.access_on(&mut st, stream, src, bytes)?;
        let pinned = st.pinned.locate("copy_dtoh_async", dst.addr(), bytes)?;
        let data = match pinned {
            // A DMA into pinned memory: its bytes arrive when the copy completes.
            Some(_) => st
                .allocs
                .get(&base)
                .map(|a| a.data[off..off + bytes].to_vec()),
            None => {
                // SAFETY: the caller guarantees `dst` is writable for `bytes` bytes (trait
                // contract).
                let dst = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
                if let Some(a) = st.allocs.get(&base) {
                    dst.copy_from_slice(&a.data[off..off + bytes]);
                }
                None
            }
        };
        let queued = st.enqueue_queued(
            FakeOp::Copy { stream, bytes },
            Completion::After(self.config.copy_time),
            Vec::new(),
        );
        if let (Some(pinned), Some(data)) = (pinned, data) {
            match queued {
                Queued::Pending(work) => st.pinned.land_later(work, pinned, dst.addr(), data),
                Queued::Completed | Queued::Captured => st.pinned.land(pinned, dst.addr(), &data),
            }
        }
        self.note(&mut st, stream, base, false, "device-to-host copy");
        Ok(())
    }

    pub(super) unsafe fn fake_copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "copy_dtod_async", stream)?;
        let (sb, so) = self.access_on(&mut st, stream, src, bytes)?;
        let data = st.allocs[&sb].data[so..so + bytes].to_vec();
        let (db, doff) = self.access_on(&mut st, stream, dst, bytes)?;
        if let Some(a) = st.allocs.get_mut(&db) {
            a.data[doff..doff + bytes].copy_from_slice(&data);
        }
        if !st.enqueue(FakeOp::Copy { stream, bytes }, self.config.copy_time) {
            self.note(&mut st, stream, sb, false, "device-to-device copy");
            self.note(&mut st, stream, db, true, "device-to-device copy");
        }
        Ok(())
    }

    pub(super) unsafe fn fake_memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "memset_async", stream)?;
        let (base, off) = self.access_on(&mut st, stream, dst, bytes)?;
        if let Some(a) = st.allocs.get_mut(&base) {
            a.data[off..off + bytes].fill(value);
        }
        if !st.enqueue(FakeOp::Copy { stream, bytes }, self.config.copy_time) {
            self.note(&mut st, stream, base, true, "memset");
        }
        Ok(())
    }
}
