//! Device-side timing with timestamp queries (wgpu's TIMESTAMP_QUERY): while a timing
//! session is open, every compute pass writes a timestamp at its beginning and its end; the
//! session's time is the span from the first beginning to the last end, so the gaps
//! between the kernels of a multi-pass operation count too. Used by the benchmarks
//! (`benches/wgpu_timings.rs`); adapters without the feature report no device time.

use parking_lot::Mutex;

use crate::context::Context;
use crate::error::{Result, WgpuError};

/// Timestamps one session can hold: two per compute pass.
pub(crate) const QUERIES: u32 = 4096;

/// An open timing session.
pub(crate) struct Session {
    set: wgpu::QuerySet,
    next: u32,
    overflow: bool,
}

/// The timing state of a device.
#[derive(Default)]
pub(crate) struct Timing {
    session: Mutex<Option<Session>>,
}

impl Timing {
    /// The query set and the first of two indices for the next compute pass, if a session
    /// is open and has room.
    pub fn pass(&self) -> Option<(wgpu::QuerySet, u32)> {
        let mut guard = self.session.lock();
        let s = guard.as_mut()?;
        if s.next + 2 > QUERIES {
            s.overflow = true;
            return None;
        }
        let i = s.next;
        s.next += 2;
        Some((s.set.clone(), i))
    }
}

impl Context {
    /// Opens a timing session; false if the device has no timestamp queries.
    pub fn begin_timing(&self) -> bool {
        if !self.timestamps {
            return false;
        }
        self.flush();
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpuarrays timing"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        *self.timing.session.lock() = Some(Session {
            set,
            next: 0,
            overflow: false,
        });
        true
    }

    /// Closes the session: the seconds from the first pass's beginning to the last pass's
    /// end, or `None` without a session, without passes, or when it overflowed.
    pub fn end_timing(&self) -> Result<Option<f64>> {
        let Some(s) = self.timing.session.lock().take() else {
            return Ok(None);
        };
        if s.next == 0 || s.overflow {
            return Ok(None);
        }
        let bytes = s.next as u64 * 8;
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarrays timestamps"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.record(|enc| enc.resolve_query_set(&s.set, 0..s.next, &resolve, 0));
        let mut raw = vec![0u8; bytes as usize];
        self.read(&resolve, 0, &mut raw)?;
        let ticks: Vec<u64> = raw
            .chunks(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let first = ticks.iter().step_by(2).min().copied();
        let last = ticks.iter().skip(1).step_by(2).max().copied();
        let (Some(first), Some(last)) = (first, last) else {
            return Err(WgpuError::Device {
                adapter: self.adapter_name.clone(),
                reason: "timestamp queries resolved to nothing".into(),
            });
        };
        let period_ns = self.queue.get_timestamp_period() as f64;
        Ok(Some(last.saturating_sub(first) as f64 * period_ns * 1e-9))
    }
}
