//! `impl Platform for FakePlatform` (devices, streams, events, memory).

use super::*;

impl Platform for FakePlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::TestDouble
    }
    fn checks_ordering(&self) -> bool {
        self.config.detect_races
    }
    fn device_count(&self) -> Result<usize> {
        Ok(self.config.devices)
    }
    fn device_properties(&self, device: DeviceId) -> Result<DeviceProperties> {
        self.check_device(device)?;
        Ok(DeviceProperties {
            name: format!("Fake GPU {}", device.0),
            arch: self.config.arch.clone(),
            warp_size: self.config.warp_size,
            multiprocessor_count: 4,
            total_memory: self.config.memory_per_device,
            max_threads_per_block: 1024,
            max_shared_memory_per_block: 48 << 10,
        })
    }
    fn bind_device(&self, device: DeviceId) -> Result<()> {
        self.check_device(device)?;
        self.state
            .lock()
            .bound
            .insert(std::thread::current().id(), device);
        Ok(())
    }
    fn mem_info(&self, device: DeviceId) -> Result<MemInfo> {
        self.check_device(device)?;
        let used = self.allocated_bytes(device);
        Ok(MemInfo {
            free: self.config.memory_per_device.saturating_sub(used),
            total: self.config.memory_per_device,
        })
    }
    fn synchronize_device(&self, device: DeviceId) -> Result<()> {
        self.check_device(device)?;
        self.device_syncs.fetch_add(1, Ordering::SeqCst);
        let ids = {
            let mut st = self.state.lock();
            let capturing: Vec<StreamHandle> = st
                .streams
                .values()
                .filter(|s| s.device == device && s.capture.is_some())
                .map(|s| StreamHandle(s.handle))
                .collect();
            if !capturing.is_empty() {
                for c in capturing {
                    st.invalidate_capture(c, "synchronize_device");
                    self.invalidated.fetch_add(1, Ordering::SeqCst);
                }
                return Err(api(
                    "synchronize_device",
                    codes::STREAM_CAPTURE_UNSUPPORTED,
                    "operation not permitted when a stream of the device is capturing",
                ));
            }
            st.streams
                .values()
                .filter(|s| s.device == device)
                .map(|s| (s.uid, s.seq, s.pending.back().copied()))
                .collect::<Vec<_>>()
        };
        let work = ids
            .iter()
            .filter_map(|&(uid, _, last)| last.map(|id| (uid, id)))
            .collect();
        self.wait_for("synchronize_device", work)?;
        let mut st = self.state.lock();
        for (uid, seq, _) in ids {
            st.races.observe(uid, seq);
        }
        Ok(())
    }
    fn stream_priority_range(&self, device: DeviceId) -> Result<PriorityRange> {
        self.check_device(device)?;
        Ok(self.config.priority_range)
    }
    fn create_stream(&self, device: DeviceId, priority: i32) -> Result<StreamHandle> {
        self.check_device(device)?;
        let now = self.creating.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_creating.fetch_max(now, Ordering::SeqCst);
        let (delay, fail) = {
            let mut f = self.faults.lock();
            let fail = f.fail_creations > 0;
            if fail {
                f.fail_creations -= 1;
            }
            (f.create_delay, fail)
        };
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        self.creating.fetch_sub(1, Ordering::SeqCst);
        if fail {
            return Err(api(
                "create_stream",
                codes::OUT_OF_MEMORY,
                "injected stream creation failure",
            ));
        }
        let h = self
            .state
            .lock()
            .add_stream(device, priority, self.config.reuse_stream_handles);
        self.created.fetch_add(1, Ordering::SeqCst);
        Ok(StreamHandle(h))
    }
    fn destroy_stream(&self, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        match st.stream(stream).map(|s| s.life) {
            None | Some(StreamLife::Gone) => {
                self.invalid_destroys.fetch_add(1, Ordering::SeqCst);
                Err(api(
                    "destroy_stream",
                    codes::INVALID_HANDLE,
                    "no such stream",
                ))
            }
            Some(_) => {
                st.retire_stream(stream);
                self.destroyed.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }
        }
    }
    fn query_stream(&self, stream: StreamHandle) -> WorkStatus {
        self.queries.fetch_add(1, Ordering::SeqCst);
        let mut st = self.state.lock();
        if let Err(code) = st.usable(stream) {
            return WorkStatus::Error(code);
        }
        if self
            .refuse_during_capture(&mut st, "query_stream", stream)
            .is_err()
        {
            return WorkStatus::Error(codes::STREAM_CAPTURE_UNSUPPORTED);
        }
        let Some(uid) = st.handles.get(&stream.0).copied() else {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        };
        st.settle(uid, true);
        match st.streams.get(&uid) {
            Some(s) if s.pending.is_empty() => {
                st.observe_stream(uid);
                WorkStatus::Ready
            }
            Some(_) => WorkStatus::Busy,
            None => WorkStatus::Error(codes::INVALID_HANDLE),
        }
    }
    fn synchronize_stream(&self, stream: StreamHandle) -> Result<()> {
        let (uid, seq, last) = {
            let mut st = self.state.lock();
            st.usable(stream)
                .map_err(|code| api("synchronize_stream", code, "stream is unusable"))?;
            self.refuse_during_capture(&mut st, "synchronize_stream", stream)?;
            let uid = st.handles.get(&stream.0).copied().unwrap_or(0);
            let seq = st.streams.get(&uid).map_or(0, |s| s.seq);
            (uid, seq, st.last_pending(uid))
        };
        self.wait_for("synchronize_stream", last.into_iter().collect())?;
        let mut st = self.state.lock();
        st.settle(uid, false);
        st.races.observe(uid, seq);
        Ok(())
    }
    fn create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.fake_create_event(device)
    }
    fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        self.fake_record_event(event, stream)
    }
    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        self.fake_stream_wait_event(stream, event)
    }
    fn query_event(&self, event: EventHandle) -> WorkStatus {
        self.fake_query_event(event)
    }
    fn synchronize_event(&self, event: EventHandle) -> Result<()> {
        self.fake_synchronize_event(event)
    }
    fn destroy_event(&self, event: EventHandle) -> Result<()> {
        self.fake_destroy_event(event)
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.fake_create_timing_event(device)
    }
    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        self.fake_event_elapsed_ms(start, end)
    }
    fn alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr> {
        self.fake_alloc_async(bytes, stream)
    }
    fn free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()> {
        self.fake_free_async(ptr, stream)
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract, passed on unchanged.
        unsafe { self.fake_copy_htod_async(dst, src, bytes, stream) }
    }
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract, passed on unchanged.
        unsafe { self.fake_copy_dtoh_async(dst, src, bytes, stream) }
    }
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract, passed on unchanged.
        unsafe { self.fake_copy_dtod_async(dst, src, bytes, stream) }
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: the trait's contract, passed on unchanged.
        unsafe { self.fake_memset_async(dst, value, bytes, stream) }
    }
    fn host_alloc_pinned(&self, device: DeviceId, bytes: usize) -> Result<*mut u8> {
        self.fake_host_alloc_pinned(device, bytes)
    }
    unsafe fn host_free_pinned(&self, device: DeviceId, ptr: *mut u8) -> Result<()> {
        // The double checks `ptr` itself: an unknown address or a second free is an error.
        self.fake_host_free_pinned(device, ptr)
    }
}

impl FakePlatform {
    /// A compilation's injected delay and gate (outside every lock of the double).
    pub(super) fn delay_compile(&self) -> Result<()> {
        let delay = self.faults.lock().compile_delay;
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        let deadline = std::time::Instant::now() + self.config.sync_timeout;
        let mut closed = self.gate.closed.lock();
        while *closed {
            if self
                .gate
                .opened
                .wait_until(&mut closed, deadline)
                .timed_out()
            {
                return Err(HipError::TestDouble(format!(
                    "compile: held at the gate for {:?} (would deadlock)",
                    self.config.sync_timeout
                )));
            }
        }
        Ok(())
    }
}
