//! `impl Platform for FakePlatform`: devices, streams, events (a record marks the work queued
//! before it; a wait makes the stream's later work wait for that), stream-ordered memory, and
//! copies (those using pinned memory complete like a real GPU's, see `pinned.rs`).

use super::faults::due;
use super::*;
use crate::platform::{DeviceProperties, MemInfo, PriorityRange, WorkStatus};
use std::ffi::c_void;

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
            arch: "fake_arch".into(),
            warp_size: 32,
            multiprocessor_count: 4,
            total_memory: self.config.memory_per_device,
            max_threads_per_block: 1024,
            max_shared_memory_per_block: 48 << 10,
        })
    }
    fn bind_device(&self, device: DeviceId) -> Result<()> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        st.bound.insert(std::thread::current().id(), device);
        Ok(())
    }
    fn mem_info(&self, device: DeviceId) -> Result<MemInfo> {
        self.check_device(device)?;
        let total = self.config.memory_per_device;
        let free = total.saturating_sub(self.allocated_bytes(device));
        Ok(MemInfo { free, total })
    }
    fn synchronize_device(&self, device: DeviceId) -> Result<()> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        st.stats.device_synchronizations += 1;
        let streams = st.streams.values().filter(|s| s.device == device);
        let streams: Vec<_> = streams
            .map(|s| (s.uid, StreamHandle(s.handle), s.capture.is_some()))
            .collect();
        if streams.iter().any(|s| s.2) {
            for &(_, stream, _) in &streams {
                st.invalidate_capture(stream, "synchronize_device");
            }
            return Err(api(
                "synchronize_device",
                codes::STREAM_CAPTURE_UNSUPPORTED,
                "operation not permitted when a stream of the device is capturing",
            ));
        }
        drop(st);
        let uids = streams.iter().map(|s| s.0).collect();
        self.wait_streams("synchronize_device", uids)
    }
    fn stream_priority_range(&self, device: DeviceId) -> Result<PriorityRange> {
        self.check_device(device)?;
        Ok(PriorityRange {
            least: 0,
            greatest: -5,
        })
    }
    fn create_stream(&self, device: DeviceId, priority: i32) -> Result<StreamHandle> {
        self.check_device(device)?;
        let now = self.creating.fetch_add(1, Ordering::SeqCst) + 1;
        let (delay, fail) = {
            let mut st = self.state.lock();
            let max = &mut st.stats.max_concurrent_creations;
            *max = now.max(*max);
            (st.faults.create_delay, due(&mut st.faults.fail_creations))
        };
        std::thread::sleep(delay);
        self.creating.fetch_sub(1, Ordering::SeqCst);
        if fail {
            let why = "injected stream creation failure";
            return Err(api("create_stream", codes::OUT_OF_MEMORY, why));
        }
        Ok(StreamHandle(self.state.lock().add_stream(device, priority)))
    }
    fn destroy_stream(&self, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        if st.stream(stream).is_none() {
            st.stats.invalid_destroys += 1;
            return Err(no_such("destroy_stream", "stream"));
        }
        st.retire_stream(stream);
        st.stats.streams_destroyed += 1;
        Ok(())
    }
    fn query_stream(&self, stream: StreamHandle) -> WorkStatus {
        let mut st = self.state.lock();
        st.stats.stream_queries += 1;
        let uid = match host_wait_check(&mut st, "query_stream", stream) {
            Ok(uid) => uid,
            Err(e) => return WorkStatus::Error(e.api_code().unwrap_or(codes::INVALID_HANDLE)),
        };
        st.settle(uid, true);
        let s = &st.streams[&uid];
        if !s.pending.is_empty() {
            return WorkStatus::Busy;
        }
        // The host saw every operation enqueued on the stream so far complete.
        let seq = s.seq;
        st.races.observe(uid, seq);
        WorkStatus::Ready
    }
    fn synchronize_stream(&self, stream: StreamHandle) -> Result<()> {
        let uid = host_wait_check(&mut self.state.lock(), "synchronize_stream", stream)?;
        self.wait_streams("synchronize_stream", vec![uid])
    }

    fn create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        let h = st.handle();
        let event = FakeEvent {
            device,
            ..FakeEvent::default()
        };
        st.events.insert(h, event);
        Ok(EventHandle(h))
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        let e = self.create_event(device)?;
        if let Some(ev) = self.state.lock().events.get_mut(&e.0) {
            ev.timing = true;
        }
        Ok(e)
    }
    fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let call = "record_event";
        let mut st = self.state.lock();
        if due(&mut st.faults.fail_event_records) {
            return Err(api(
                call,
                codes::INVALID_VALUE,
                "injected event record failure",
            ));
        }
        let device = self.enqueue_check(&st, call, stream)?;
        let s = &st.streams[&st.handles[&stream.0]];
        let pending = s.pending.back().map(|&id| (s.uid, id));
        let (clock, capturing) = (s.clock.clone(), s.capture.is_some());
        let ev = st
            .events
            .get_mut(&event.0)
            .ok_or_else(|| no_such(call, "event"))?;
        if ev.device != device {
            return Err(api(call, codes::INVALID_HANDLE, "device mismatch"));
        }
        let op = FakeOp::Record { stream, event };
        if capturing {
            st.enqueue(op, Duration::ZERO);
        } else {
            (ev.waits_for, ev.clock, ev.recorded_at) = (pending, clock, Some(Instant::now()));
            // A record is a marker, not work: nothing on the stream waits for it.
            if st.keep_log {
                st.log.push(op);
            }
        }
        Ok(())
    }
    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        let call = "stream_wait_event";
        let mut st = self.state.lock();
        self.enqueue_check(&st, call, stream)?;
        let ev = st
            .events
            .get(&event.0)
            .ok_or_else(|| no_such(call, "event"))?;
        let (dep, clock) = (ev.waits_for, ev.clock.clone());
        let queued = st.enqueue_after(FakeOp::Wait { stream, event }, Duration::ZERO, dep);
        if queued != Queued::Captured
            && let Some(s) = st.stream_mut(stream)
        {
            // Everything before the record precedes the stream's later work.
            s.clock.join(&clock);
        }
        Ok(())
    }
    fn query_event(&self, event: EventHandle) -> WorkStatus {
        let mut st = self.state.lock();
        let Some(ev) = st.events.get(&event.0) else {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        };
        let (waits_for, clock) = (ev.waits_for, ev.clock.clone());
        if waits_for.is_some_and(|w| !st.is_done(w)) {
            return WorkStatus::Busy;
        }
        st.races.observe_clock(&clock);
        WorkStatus::Ready
    }
    fn synchronize_event(&self, event: EventHandle) -> Result<()> {
        let (waits_for, clock) = {
            let st = self.state.lock();
            let ev = st.events.get(&event.0);
            let ev = ev.ok_or_else(|| no_such("synchronize_event", "event"))?;
            (ev.waits_for, ev.clock.clone())
        };
        self.wait_for("synchronize_event", waits_for.into_iter().collect())?;
        self.state.lock().races.observe_clock(&clock);
        Ok(())
    }
    fn destroy_event(&self, event: EventHandle) -> Result<()> {
        let record = self.state.lock().events.remove(&event.0);
        removed(record, "destroy_event", "event")
    }
    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let call = "event_elapsed_ms";
        let st = self.state.lock();
        let at = |e: EventHandle| {
            let ev = st.events.get(&e.0).ok_or_else(|| no_such(call, "event"))?;
            let why = match ev.timing {
                true => "event not recorded",
                false => "event created without timing",
            };
            let at = ev.recorded_at.filter(|_| ev.timing);
            at.ok_or_else(|| api(call, codes::INVALID_VALUE, why))
        };
        let (s, e) = (at(start)?, at(end)?);
        Ok(e.saturating_duration_since(s).as_secs_f32() * 1e3)
    }

    fn alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr> {
        let mut st = self.state.lock();
        let injected = due(&mut st.faults.fail_allocs);
        let device = self.enqueue_check(&st, "alloc_async", stream)?;
        if injected || !st.reserve(device, bytes) {
            return Err(api("alloc_async", codes::OUT_OF_MEMORY, "out of memory"));
        }
        let ptr = DevicePtr(st.next_addr);
        st.next_addr += (bytes.max(1) as u64).next_multiple_of(256);
        let in_graph = st.enqueue(FakeOp::Alloc { stream, ptr }, Duration::ZERO);
        let data = vec![0; bytes];
        let alloc = FakeAlloc {
            device,
            data,
            in_graph,
            graph_ran: false,
        };
        st.allocs.insert(ptr.0, alloc);
        if !in_graph {
            self.note(&mut st, stream, ptr.0, true, "allocation");
        }
        Ok(ptr)
    }
    fn free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "free_async", stream)?;
        if !st.allocs.contains_key(&ptr.0) {
            return Err(api("free_async", codes::INVALID_VALUE, "not allocated"));
        }
        if st.enqueue(FakeOp::Free { stream, ptr }, Duration::ZERO) {
            // Captured: the graph frees it when launched.
            return Ok(());
        }
        self.note(&mut st, stream, ptr.0, true, "free");
        st.races.forget(ptr.0);
        if let Some(a) = st.allocs.remove(&ptr.0) {
            st.release(a.device, a.data.len());
        }
        Ok(())
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let call = "copy_htod_async";
        let mut st = self.state.lock();
        self.enqueue_check(&st, call, stream)?;
        st.refuse_during_capture("copy_htod_async (pageable host memory)", stream)?;
        let at = self.access_on(&mut st, stream, dst, bytes)?;
        let pinned = st.pinned.locate(call, src.addr(), bytes)?;
        // SAFETY: the caller guarantees `src` is readable for `bytes` bytes (trait contract).
        let src_bytes = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), bytes) };
        st.bytes_mut(at, bytes).copy_from_slice(src_bytes);
        let queued = st.enqueue_after(FakeOp::Copy { stream }, self.config.copy_time, None);
        if pinned && let Queued::Pending(work) = queued {
            // A DMA from pinned memory reads it while it runs: the source must stay as it
            // is until the copy completes (checked then).
            st.pinned
                .later(work, src.addr(), src_bytes.to_vec(), Some(stream.0));
        }
        self.note(&mut st, stream, at.0, true, "host-to-device copy");
        Ok(())
    }
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let call = "copy_dtoh_async";
        let mut st = self.state.lock();
        self.enqueue_check(&st, call, stream)?;
        st.refuse_during_capture("copy_dtoh_async (pageable host memory)", stream)?;
        let (base, off) = self.access_on(&mut st, stream, src, bytes)?;
        let pinned = st.pinned.locate(call, dst.addr(), bytes)?;
        let data = &st.allocs[&base].data[off..off + bytes];
        if !pinned {
            // SAFETY: the caller guarantees `dst` is writable for `bytes` bytes (trait
            // contract).
            let host = unsafe { std::slice::from_raw_parts_mut(dst.cast::<u8>(), bytes) };
            host.copy_from_slice(data);
            st.enqueue(FakeOp::Copy { stream }, self.config.copy_time);
            self.note(&mut st, stream, base, false, "device-to-host copy");
            return Ok(());
        }
        // A DMA into pinned memory: its bytes arrive when the copy completes.
        let data = data.to_vec();
        match st.enqueue_after(FakeOp::Copy { stream }, self.config.copy_time, None) {
            Queued::Pending(work) => st.pinned.later(work, dst.addr(), data, None),
            Queued::Completed | Queued::Captured => st.pinned.land(dst.addr(), &data),
        }
        self.note(&mut st, stream, base, false, "device-to-host copy");
        Ok(())
    }
    unsafe fn copy_dtod_async(
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
        let at = self.access_on(&mut st, stream, dst, bytes)?;
        st.bytes_mut(at, bytes).copy_from_slice(&data);
        if !st.enqueue(FakeOp::Copy { stream }, self.config.copy_time) {
            self.note(&mut st, stream, sb, false, "device-to-device copy");
            self.note(&mut st, stream, at.0, true, "device-to-device copy");
        }
        Ok(())
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "memset_async", stream)?;
        let at = self.access_on(&mut st, stream, dst, bytes)?;
        st.bytes_mut(at, bytes).fill(value);
        if !st.enqueue(FakeOp::Copy { stream }, self.config.copy_time) {
            self.note(&mut st, stream, at.0, true, "memset");
        }
        Ok(())
    }
    fn host_alloc_pinned(&self, device: DeviceId, bytes: usize) -> Result<*mut u8> {
        // As cuMemHostAlloc / hipHostMalloc: the device's context becomes current.
        self.bind_device(device)?;
        let mut st = self.state.lock();
        let oom = |why: &str| api("host_alloc_pinned", codes::OUT_OF_MEMORY, why);
        if due(&mut st.faults.fail_pinned_allocs) {
            return Err(oom("injected pinned allocation failure"));
        }
        st.pinned.alloc(device, bytes).map_err(|m| oom(&m))
    }
    unsafe fn host_free_pinned(&self, device: DeviceId, ptr: *mut u8) -> Result<()> {
        // The double checks `ptr` itself: an unknown address or a second free is an error.
        self.bind_device(device)?;
        if self.state.lock().pinned.free(ptr.addr()) {
            return Ok(());
        }
        let why = format!("{ptr:p} is not a live pinned allocation (never allocated, or freed)");
        Err(api("host_free_pinned", codes::INVALID_VALUE, &why))
    }
}

/// The checks of a host wait on `stream` (a query or a synchronize): the stream is usable
/// and not capturing. Returns its uid.
fn host_wait_check(st: &mut State, call: &'static str, stream: StreamHandle) -> Result<u64> {
    st.usable(stream)
        .map_err(|code| api(call, code, "stream is unusable"))?;
    st.refuse_during_capture(call, stream)?;
    Ok(st.handles[&stream.0])
}
