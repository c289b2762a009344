//! `impl Platform for FakePlatform`.

use super::*;

impl Platform for FakePlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::TestDouble
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
        let ids: Vec<u64> = {
            let st = self.state.lock();
            st.streams
                .values()
                .filter(|s| s.device == device)
                .flat_map(|s| s.pending.iter().copied())
                .collect()
        };
        self.wait_for("synchronize_device", ids)
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
        let mut st = self.state.lock();
        let h = st.handle();
        st.streams.insert(
            h,
            FakeStream {
                device,
                priority,
                life: StreamLife::Live,
                pending: Vec::new(),
                capture: None,
            },
        );
        self.created.fetch_add(1, Ordering::SeqCst);
        Ok(StreamHandle(h))
    }

    fn destroy_stream(&self, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        match st.streams.get(&stream.0).map(|s| s.life) {
            None | Some(StreamLife::Gone) => {
                self.invalid_destroys.fetch_add(1, Ordering::SeqCst);
                Err(api(
                    "destroy_stream",
                    codes::INVALID_HANDLE,
                    "no such stream",
                ))
            }
            Some(_) => {
                st.streams.remove(&stream.0);
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
        st.settle(stream.0, true);
        match st.streams.get(&stream.0) {
            Some(s) if s.pending.is_empty() => WorkStatus::Ready,
            Some(_) => WorkStatus::Busy,
            None => WorkStatus::Error(codes::INVALID_HANDLE),
        }
    }

    fn synchronize_stream(&self, stream: StreamHandle) -> Result<()> {
        let ids = {
            let st = self.state.lock();
            st.usable(stream)
                .map_err(|code| api("synchronize_stream", code, "stream is unusable"))?;
            st.streams
                .get(&stream.0)
                .map(|s| s.pending.clone())
                .unwrap_or_default()
        };
        self.wait_for("synchronize_stream", ids)?;
        self.state.lock().settle(stream.0, false);
        Ok(())
    }

    fn create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        let h = st.handle();
        st.events.insert(
            h,
            FakeEvent {
                device,
                waits_for: Vec::new(),
                timing: false,
                recorded_at: None,
            },
        );
        Ok(EventHandle(h))
    }

    fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "record_event", stream)?;
        let pending = st.streams[&stream.0].pending.clone();
        let stream_device = st.streams[&stream.0].device;
        let ev = st
            .events
            .get_mut(&event.0)
            .ok_or_else(|| api("record_event", codes::INVALID_HANDLE, "no such event"))?;
        if ev.device != stream_device {
            return Err(api(
                "record_event",
                codes::INVALID_HANDLE,
                "device mismatch",
            ));
        }
        ev.waits_for = pending;
        ev.recorded_at = Some(std::time::Instant::now());
        st.enqueue(FakeOp::Record { stream, event });
        Ok(())
    }

    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "stream_wait_event", stream)?;
        if !st.events.contains_key(&event.0) {
            return Err(api(
                "stream_wait_event",
                codes::INVALID_HANDLE,
                "no such event",
            ));
        }
        st.enqueue(FakeOp::Wait { stream, event });
        Ok(())
    }

    fn query_event(&self, event: EventHandle) -> WorkStatus {
        let st = self.state.lock();
        match st.events.get(&event.0) {
            None => WorkStatus::Error(codes::INVALID_HANDLE),
            Some(e) if st.all_done(&e.waits_for) => WorkStatus::Ready,
            Some(_) => WorkStatus::Busy,
        }
    }

    fn synchronize_event(&self, event: EventHandle) -> Result<()> {
        let ids = self
            .state
            .lock()
            .events
            .get(&event.0)
            .map(|e| e.waits_for.clone())
            .ok_or_else(|| api("synchronize_event", codes::INVALID_HANDLE, "no such event"))?;
        self.wait_for("synchronize_event", ids)
    }

    fn destroy_event(&self, event: EventHandle) -> Result<()> {
        match self.state.lock().events.remove(&event.0) {
            Some(_) => Ok(()),
            None => Err(api("destroy_event", codes::INVALID_HANDLE, "no such event")),
        }
    }

    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        let e = self.create_event(device)?;
        if let Some(ev) = self.state.lock().events.get_mut(&e.0) {
            ev.timing = true;
        }
        Ok(e)
    }

    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let st = self.state.lock();
        let at = |e: EventHandle| match st.events.get(&e.0) {
            Some(ev) if ev.timing => ev.recorded_at.ok_or_else(|| {
                api(
                    "event_elapsed_ms",
                    codes::INVALID_VALUE,
                    "event not recorded",
                )
            }),
            Some(_) => Err(api(
                "event_elapsed_ms",
                codes::INVALID_VALUE,
                "event created without timing",
            )),
            None => Err(api(
                "event_elapsed_ms",
                codes::INVALID_HANDLE,
                "no such event",
            )),
        };
        let (s, e) = (at(start)?, at(end)?);
        Ok(e.saturating_duration_since(s).as_secs_f32() * 1e3)
    }

    fn alloc_async(&self, bytes: usize, stream: StreamHandle) -> Result<DevicePtr> {
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
        let device = st.streams[&stream.0].device;
        let used = st.used.get(&device).copied().unwrap_or(0);
        if injected || used + bytes > self.config.memory_per_device {
            return Err(api("alloc_async", codes::OUT_OF_MEMORY, "out of memory"));
        }
        let ptr = DevicePtr(st.next_addr);
        st.next_addr += (bytes.max(1) as u64).next_multiple_of(256);
        let in_graph = st.enqueue(FakeOp::Alloc { stream, ptr, bytes });
        st.allocs.insert(
            ptr.0,
            FakeAlloc {
                device,
                data: vec![0; bytes],
                in_graph,
            },
        );
        *st.used.entry(device).or_default() += bytes;
        Ok(ptr)
    }

    fn free_async(&self, ptr: DevicePtr, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "free_async", stream)?;
        if !st.allocs.contains_key(&ptr.0) {
            self.invalid_frees.fetch_add(1, Ordering::SeqCst);
            return Err(api("free_async", codes::INVALID_VALUE, "not allocated"));
        }
        if st.enqueue(FakeOp::Free { stream, ptr }) {
            // Captured: the graph frees it when launched.
            return Ok(());
        }
        if let Some(a) = st.allocs.remove(&ptr.0) {
            *st.used.entry(a.device).or_default() -= a.data.len();
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
        let mut st = self.state.lock();
        self.enqueue_check(&st, "copy_htod_async", stream)?;
        let (base, off) = self.access(&mut st, dst, bytes)?;
        // SAFETY: the caller guarantees `src` is readable for `bytes` bytes (trait contract).
        let src = unsafe { std::slice::from_raw_parts(src as *const u8, bytes) };
        if let Some(a) = st.allocs.get_mut(&base) {
            a.data[off..off + bytes].copy_from_slice(src);
        }
        st.enqueue(FakeOp::Copy { stream, bytes });
        Ok(())
    }

    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "copy_dtoh_async", stream)?;
        let (base, off) = self.access(&mut st, src, bytes)?;
        // SAFETY: the caller guarantees `dst` is writable for `bytes` bytes (trait contract).
        let dst = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) };
        if let Some(a) = st.allocs.get(&base) {
            dst.copy_from_slice(&a.data[off..off + bytes]);
        }
        st.enqueue(FakeOp::Copy { stream, bytes });
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
        let (sb, so) = self.access(&mut st, src, bytes)?;
        let data = st.allocs[&sb].data[so..so + bytes].to_vec();
        let (db, doff) = self.access(&mut st, dst, bytes)?;
        if let Some(a) = st.allocs.get_mut(&db) {
            a.data[doff..doff + bytes].copy_from_slice(&data);
        }
        st.enqueue(FakeOp::Copy { stream, bytes });
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
        let (base, off) = self.access(&mut st, dst, bytes)?;
        if let Some(a) = st.allocs.get_mut(&base) {
            a.data[off..off + bytes].fill(value);
        }
        st.enqueue(FakeOp::Copy { stream, bytes });
        Ok(())
    }

    fn compiler_version(&self) -> Result<String> {
        Ok("fake-rtc 1.0".into())
    }

    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        for k in request.kernel_names {
            let base = k.split('<').next().unwrap_or(k);
            if !request.source.contains(base) {
                return Err(HipError::Compile {
                    platform: PlatformKind::TestDouble,
                    program: request.name.into(),
                    arch: request.arch.into(),
                    call: "compile",
                    log: format!("kernel {k} not found in source"),
                });
            }
        }
        Ok(CompiledProgram {
            binary: request.source.as_bytes().to_vec(),
            lowered_names: request
                .kernel_names
                .iter()
                .map(|k| (k.to_string(), k.to_string()))
                .collect(),
            log: String::new(),
        })
    }

    fn load_module(&self, device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        let h = st.handle();
        st.modules
            .insert(h, String::from_utf8_lossy(image).into_owned());
        Ok(ModuleHandle(h))
    }

    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        match self.state.lock().modules.remove(&module.0) {
            Some(_) => Ok(()),
            None => Err(api(
                "unload_module",
                codes::INVALID_HANDLE,
                "no such module",
            )),
        }
    }

    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let mut st = self.state.lock();
        let src = st
            .modules
            .get(&module.0)
            .ok_or_else(|| api("get_function", codes::INVALID_HANDLE, "no such module"))?;
        if !src.contains(name) {
            return Err(api("get_function", 500, "no such function"));
        }
        let h = st.handle();
        st.functions.insert(h, name.to_string());
        Ok(FunctionHandle(h))
    }

    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        _config: &LaunchConfig,
        stream: StreamHandle,
        _args: &mut [*mut c_void],
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "launch_kernel", stream)?;
        if !st.functions.contains_key(&function.0) {
            return Err(api(
                "launch_kernel",
                codes::INVALID_HANDLE,
                "no such function",
            ));
        }
        st.enqueue(FakeOp::Launch { stream, function });
        Ok(())
    }

    fn blas_version(&self) -> Result<String> {
        if self.config.blas_available {
            Ok("fake BLAS 1.0".into())
        } else {
            self.fake_blas_create(DeviceId(0)).map(|_| String::new())
        }
    }

    fn blas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        self.fake_blas_create(device)
    }

    fn blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        self.fake_blas_destroy(device, handle)
    }

    unsafe fn blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        gemm: &GemmStridedBatched,
    ) -> Result<()> {
        self.fake_blas_gemm(handle, stream, gemm)
    }

    fn begin_capture(&self, stream: StreamHandle, _mode: CaptureMode) -> Result<()> {
        let mut st = self.state.lock();
        st.usable(stream)
            .map_err(|code| api("begin_capture", code, "stream is unusable"))?;
        let s = st
            .streams
            .get_mut(&stream.0)
            .ok_or_else(|| api("begin_capture", codes::INVALID_HANDLE, "no such stream"))?;
        if s.capture.is_some() {
            return Err(api(
                "begin_capture",
                codes::STREAM_CAPTURE_UNSUPPORTED,
                "already capturing",
            ));
        }
        s.capture = Some(Vec::new());
        Ok(())
    }

    fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        let mut st = self.state.lock();
        let ops = st
            .streams
            .get_mut(&stream.0)
            .and_then(|s| s.capture.take())
            .ok_or_else(|| api("end_capture", codes::INVALID_VALUE, "not capturing"))?;
        let h = st.handle();
        st.graphs.insert(h, ops);
        Ok(GraphHandle(h))
    }

    fn is_capturing(&self, stream: StreamHandle) -> Result<bool> {
        let st = self.state.lock();
        st.streams
            .get(&stream.0)
            .map(|s| s.capture.is_some())
            .ok_or_else(|| api("is_capturing", codes::INVALID_HANDLE, "no such stream"))
    }

    fn instantiate_graph(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let mut st = self.state.lock();
        let ops = st
            .graphs
            .get(&graph.0)
            .cloned()
            .ok_or_else(|| api("instantiate_graph", codes::INVALID_HANDLE, "no such graph"))?;
        let h = st.handle();
        st.execs.insert(h, ops);
        Ok(GraphExecHandle(h))
    }

    fn launch_graph(&self, graph: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "launch_graph", stream)?;
        let ops = st
            .execs
            .get(&graph.0)
            .cloned()
            .ok_or_else(|| api("launch_graph", codes::INVALID_HANDLE, "no such graph"))?;
        for op in &ops {
            if let FakeOp::Free { ptr, .. } = op
                && st.allocs.get(&ptr.0).is_some_and(|a| !a.in_graph)
            {
                return Err(HipError::TestDouble(format!(
                    "graph frees {ptr}, which was allocated outside the graph \
                     (on a real device, launching such a graph crashes in hipGraphLaunch)"
                )));
            }
        }
        st.enqueue(FakeOp::LaunchGraph {
            stream,
            nodes: ops.len(),
        });
        Ok(())
    }

    fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        match self.state.lock().graphs.remove(&graph.0) {
            Some(_) => Ok(()),
            None => Err(api("destroy_graph", codes::INVALID_HANDLE, "no such graph")),
        }
    }

    fn destroy_graph_exec(&self, graph: GraphExecHandle) -> Result<()> {
        match self.state.lock().execs.remove(&graph.0) {
            Some(_) => Ok(()),
            None => Err(api(
                "destroy_graph_exec",
                codes::INVALID_HANDLE,
                "no such graph",
            )),
        }
    }
}
