//! Device-side timing with timestamp queries (wgpu's TIMESTAMP_QUERY): while a timing
//! session is open, every compute pass writes a timestamp at its beginning and its end; the
//! session's time is the span from the first beginning to the last end, so the gaps
//! between the kernels of a multi-pass operation count too. Used by the benchmarks
//! (`benches/wgpu_timings.rs`); adapters without the feature report no device time.

use parking_lot::Mutex;

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
    /// Opens a session on `device` (replacing an open one).
    pub fn open(&self, device: &wgpu::Device) {
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpuarrays timing"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        *self.session.lock() = Some(Session {
            set,
            next: 0,
            overflow: false,
        });
    }

    /// Closes the session: its query set and the number of timestamps written, or `None`
    /// without a session, without passes, or when it overflowed.
    pub fn close(&self) -> Option<(wgpu::QuerySet, u32)> {
        let s = self.session.lock().take()?;
        (s.next > 0 && !s.overflow).then_some((s.set, s.next))
    }

    /// Seconds from the first pass's beginning to the last pass's end, from the resolved
    /// timestamps (little-endian u64 ticks, beginning and end per pass).
    pub fn span_seconds(resolved: &[u8], period_ns: f64) -> Option<f64> {
        let ticks: Vec<u64> = resolved
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let first = ticks.iter().step_by(2).min().copied()?;
        let last = ticks.iter().skip(1).step_by(2).max().copied()?;
        Some(last.saturating_sub(first) as f64 * period_ns * 1e-9)
    }

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
