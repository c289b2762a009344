//! [`WorkAreas`]: FFT work memory per (device, stream), from the device's stream-ordered
//! memory pool, so that idle plans hold only their tables.
//!
//! Every transform enqueued on one stream runs after the previous one, so one work area
//! per stream serves every plan used there; it grows (to the next power of two) when a plan
//! needs more, the old one being freed in stream order. A transform declares its area as a
//! written operand to the ordering protocol (`crate::device::DeviceState::enqueue`), which
//! orders it after the area's earlier uses and records the use, so the area's free waits
//! for it. Areas are handed out as `Arc<DeviceBuffer>`: an area replaced or released while a
//! transform is being enqueued with it is freed only when that caller lets go, after its
//! enqueue (with its use recorded). At most [`MAX_STREAMS`] areas are kept per device (least
//! recently used dropped first), and [`WorkAreas::release`] drops them all (the memory
//! pool's out-of-memory hook; dropped areas are freed through the pool, which returns them
//! to the platform before its retry). Nothing is allocated under the lock: an allocation
//! that runs out of memory runs that hook, which takes the lock.
//!
//! **Inside a graph capture** a transform gets an area of its own, allocated on the
//! capturing stream, and the area is not kept: memory allocated during a capture belongs to
//! the graph (`crate::memory`), so the transform's launch drops it right after the enqueue
//! and the pool frees it inside the graph. Keeping it as the stream's area would hand later
//! transforms outside the graph an address that is only backed while the graph runs; and
//! the stream's ordinary area is not used inside the graph either, since the graph would
//! keep using it at every launch after the pool had reused it.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::device::{DeviceBuffer, DeviceState};
use crate::error::Result;
use crate::stream::Stream;

/// The most streams of one device with a cached work area.
pub const MAX_STREAMS: usize = 16;

/// A stream's area. Holding the stream keeps its handle valid (as a buffer's last-use record
/// does) until the area is dropped; at most [`MAX_STREAMS`] are held.
struct Area {
    stream: Stream,
    buffer: Arc<DeviceBuffer>,
}

/// The work areas of one device (see the module documentation).
pub struct WorkAreas {
    device: Arc<DeviceState>,
    areas: Mutex<Vec<Area>>,
}

impl std::fmt::Debug for WorkAreas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkAreas")
            .field("device", &self.device.id())
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl WorkAreas {
    pub fn new(device: Arc<DeviceState>) -> Self {
        WorkAreas {
            device,
            areas: Mutex::new(Vec::new()),
        }
    }

    /// A work area of at least `bytes` for work enqueued on `stream`, or `None` for 0 bytes.
    /// Declare it as a written operand of the transform's enqueue (which orders the work
    /// after its earlier uses) and keep it until the transform is enqueued.
    pub fn get(&self, stream: &Stream, bytes: usize) -> Result<Option<Arc<DeviceBuffer>>> {
        if bytes == 0 {
            return Ok(None);
        }
        if stream.is_capturing()? {
            // The capture's own area, freed inside the graph once the transform is enqueued.
            return Ok(Some(Arc::new(self.device.alloc_on(bytes, stream)?)));
        }
        let mine = |a: &Area| a.stream.same_as(stream);
        let replaced = {
            let mut areas = self.areas.lock();
            match areas.iter().position(mine) {
                Some(i) if areas[i].buffer.len() >= bytes => {
                    let area = areas.remove(i);
                    let buffer = area.buffer.clone();
                    areas.push(area);
                    return Ok(Some(buffer));
                }
                Some(i) => Some(areas.remove(i)),
                None => None,
            }
        };
        drop(replaced);
        let size = bytes.checked_next_power_of_two().unwrap_or(bytes);
        let buffer = Arc::new(self.device.alloc_on(size, stream)?);
        let evicted = {
            let mut areas = self.areas.lock();
            areas.retain(|a| !a.stream.is_destroyed());
            areas.push(Area {
                stream: stream.clone(),
                buffer: buffer.clone(),
            });
            let over = areas.len().saturating_sub(MAX_STREAMS);
            areas.drain(..over).collect::<Vec<_>>()
        };
        drop(evicted);
        Ok(Some(buffer))
    }

    /// Bytes of the cached areas.
    pub fn bytes(&self) -> usize {
        self.areas.lock().iter().map(|a| a.buffer.len()).sum()
    }

    /// Drops every cached area (freed in stream order once no caller holds it); returns
    /// their bytes.
    pub fn release(&self) -> usize {
        let areas = std::mem::take(&mut *self.areas.lock());
        areas.iter().map(|a| a.buffer.len()).sum()
    }
}
