//! The test double's events: create, record (a marker of the work queued before it; a
//! record that tests make fail with [`FakePlatform::fail_next_event_records`]), device-side
//! waits, queries, host waits, timing. The `Platform` methods in `platform_impl.rs` call these.

use super::*;

impl FakePlatform {
    pub(super) fn fake_create_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.check_device(device)?;
        let mut st = self.state.lock();
        let h = st.handle();
        st.events.insert(
            h,
            FakeEvent {
                device,
                waits_for: None,
                clock: Default::default(),
                timing: false,
                recorded_at: None,
            },
        );
        Ok(EventHandle(h))
    }

    pub(super) fn fake_record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        if self.event_record_fails() {
            return Err(api(
                "record_event",
                codes::INVALID_VALUE,
                "injected event record failure",
            ));
        }
        let mut st = self.state.lock();
        self.enqueue_check(&st, "record_event", stream)?;
        let (uid, stream_device, clock, capturing) = match st.stream(stream) {
            Some(s) => (s.uid, s.device, s.clock.clone(), s.capture.is_some()),
            None => return Err(api("record_event", codes::INVALID_HANDLE, "no such stream")),
        };
        let pending = st.last_pending(uid);
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
        if !capturing {
            ev.waits_for = pending;
            ev.clock = clock;
            ev.recorded_at = Some(std::time::Instant::now());
        }
        let op = FakeOp::Record { stream, event };
        if capturing {
            st.enqueue_work(op, Completion::After(Duration::ZERO), Vec::new());
        } else if st.keep_log {
            // A record is a marker, not work: nothing on the stream waits for it.
            st.log.push(op);
        }
        Ok(())
    }

    pub(super) fn fake_stream_wait_event(
        &self,
        stream: StreamHandle,
        event: EventHandle,
    ) -> Result<()> {
        let mut st = self.state.lock();
        self.enqueue_check(&st, "stream_wait_event", stream)?;
        let Some(ev) = st.events.get(&event.0) else {
            return Err(api(
                "stream_wait_event",
                codes::INVALID_HANDLE,
                "no such event",
            ));
        };
        let (deps, clock) = (ev.waits_for.into_iter().collect(), ev.clock.clone());
        let captured = st.enqueue_work(
            FakeOp::Wait { stream, event },
            Completion::After(Duration::ZERO),
            deps,
        );
        if !captured && let Some(s) = st.stream_mut(stream) {
            // Everything before the record precedes the stream's later work.
            s.clock.join(&clock);
        }
        Ok(())
    }

    pub(super) fn fake_query_event(&self, event: EventHandle) -> WorkStatus {
        let mut st = self.state.lock();
        let Some(ev) = st.events.get(&event.0) else {
            return WorkStatus::Error(codes::INVALID_HANDLE);
        };
        let (waits_for, clock) = (ev.waits_for, ev.clock.clone());
        match waits_for {
            Some(w) if !st.is_done(w) => WorkStatus::Busy,
            _ => {
                st.races.observe_clock(&clock);
                WorkStatus::Ready
            }
        }
    }

    pub(super) fn fake_synchronize_event(&self, event: EventHandle) -> Result<()> {
        let (waits_for, clock) = {
            let st = self.state.lock();
            let ev = st
                .events
                .get(&event.0)
                .ok_or_else(|| api("synchronize_event", codes::INVALID_HANDLE, "no such event"))?;
            (ev.waits_for, ev.clock.clone())
        };
        self.wait_for("synchronize_event", waits_for.into_iter().collect())?;
        self.state.lock().races.observe_clock(&clock);
        Ok(())
    }

    pub(super) fn fake_destroy_event(&self, event: EventHandle) -> Result<()> {
        match self.state.lock().events.remove(&event.0) {
            Some(_) => Ok(()),
            None => Err(api("destroy_event", codes::INVALID_HANDLE, "no such event")),
        }
    }

    pub(super) fn fake_create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        let e = self.fake_create_event(device)?;
        if let Some(ev) = self.state.lock().events.get_mut(&e.0) {
            ev.timing = true;
        }
        Ok(e)
    }

    pub(super) fn fake_event_elapsed_ms(
        &self,
        start: EventHandle,
        end: EventHandle,
    ) -> Result<f32> {
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
}
