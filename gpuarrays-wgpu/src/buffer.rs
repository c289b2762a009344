//! Device buffers and their pool.
//!
//! Core asks for bytes; WGSL storage arrays are made of 4-byte words (or 8-byte f64/u64
//! elements), bindings start at multiples of `min_storage_buffer_offset_alignment` (256) and
//! copies move multiples of 4 bytes. So every buffer's capacity is rounded up to a size class
//! that is a multiple of 256 bytes: a kernel may bind a window that starts at the aligned
//! position below an operand and ends at a word boundary above it without leaving the buffer.
//! Bool and u8 elements are single bytes packed four to a word (see `wgsl::types`).
//!
//! Released buffers go back to a [`HandleCache`] keyed by size class, with count and byte
//! budgets, so a loop allocating temporaries reuses them instead of asking the driver each
//! time. Reuse is safe without waiting: every use of a buffer is a command on the one queue,
//! so work on its next owner is ordered after work of the previous one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gpuarrays_core::MemoryTracker;
use gpuarrays_core::handle_cache::{HandleCache, Limits};

/// One device buffer of the wgpu backend.
#[derive(Debug)]
pub struct WgpuBuffer {
    pub(crate) buffer: wgpu::Buffer,
    /// Bytes the caller asked for.
    pub(crate) bytes: usize,
    /// Unique id (buffer identity for binding deduplication).
    pub(crate) id: u64,
    /// The bytes counted in use for it, given back when the buffer is dropped or released
    /// to the pool (whichever path, error paths included).
    pub(crate) _charge: Charge,
}

/// Bytes counted in a [`MemoryTracker`] while a buffer lives.
#[derive(Debug)]
pub(crate) struct Charge {
    tracker: Arc<MemoryTracker>,
    bytes: usize,
}

impl Charge {
    /// Counts `bytes` in use, or says why the limit refuses them.
    pub(crate) fn new(
        tracker: &Arc<MemoryTracker>,
        bytes: usize,
    ) -> Result<Charge, gpuarrays_core::memory::LimitExceeded> {
        tracker.reserve(bytes)?;
        Ok(Charge {
            tracker: Arc::clone(tracker),
            bytes,
        })
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.tracker.release(self.bytes);
    }
}

impl WgpuBuffer {
    /// The bytes asked for at allocation.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether the buffer holds zero bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The size class the buffer was allocated with (a multiple of 256, at least `len`).
    pub fn capacity(&self) -> u64 {
        self.buffer.size()
    }

    /// The wgpu buffer (for interoperation; do not unmap or destroy it).
    pub fn raw(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

pub(crate) fn next_buffer_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The size class of a request: at least 256 bytes; powers of two up to 1 MiB, then steps of
/// an eighth of the enclosing power of two (at most 12.5% unused). `None` where the class
/// is not a `u64` (requests above 2^63 bytes, which no device can hold anyway).
pub(crate) fn size_class(bytes: u64) -> Option<u64> {
    let b = bytes.max(256);
    if b <= 1 << 20 {
        return Some(b.next_power_of_two());
    }
    let step = b.checked_next_power_of_two()? / 8;
    b.div_ceil(step).checked_mul(step)
}

/// The smallest buffer that can hold a request: a multiple of 256 bytes (see the module
/// documentation), at least 256. `None` above `u64::MAX - 255`, the largest multiple.
pub(crate) fn smallest_buffer(bytes: u64) -> Option<u64> {
    bytes.max(1).checked_next_multiple_of(256)
}

/// The size of the buffer to create for a request of `bytes` on a device whose buffers
/// hold at most `max` bytes: the size class, or where that is larger than `max`, the
/// smallest buffer (no pooling slack near the limit, so a request the device can hold is
/// never refused for the rounding). `Err(smallest)` when not even the smallest buffer fits
/// (`None`: not representable).
pub(crate) fn buffer_size(bytes: u64, max: u64) -> Result<u64, Option<u64>> {
    match size_class(bytes) {
        Some(class) if class <= max => Ok(class),
        _ => match smallest_buffer(bytes) {
            Some(b) if b <= max => Ok(b),
            other => Err(other),
        },
    }
}

/// Budgets of the buffer pool: idle buffers per size class, over all classes, and idle bytes.
pub(crate) const POOL_LIMITS: Limits = Limits::new(16, 256).with_max_idle_bytes(512 << 20);

/// Recycled storage buffers by size class.
pub(crate) type BufferPool = HandleCache<u64, wgpu::Buffer>;

pub(crate) fn new_pool() -> BufferPool {
    // Dropping a wgpu::Buffer releases it once the queue no longer uses it.
    HandleCache::with_drop(POOL_LIMITS)
}

pub(crate) const STORAGE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

#[cfg(test)]
mod tests {
    use super::{buffer_size, size_class, smallest_buffer};

    #[test]
    fn size_classes_cover_and_align() {
        for b in [
            0u64,
            1,
            255,
            256,
            257,
            1000,
            1 << 20,
            (1 << 20) + 1,
            3 << 27,
            1 << 31,
            (1 << 63) - 1,
            1 << 63,
        ] {
            let c = size_class(b).unwrap();
            assert!(c >= b && c % 256 == 0, "{b} -> {c}");
            assert!(c / 2 <= b.max(256), "{b} -> {c}");
        }
        assert!(size_class((1 << 20) + 1).unwrap() <= (1 << 20) + (1 << 18));
    }

    /// Sizes whose class is not a u64 have none (this divided by zero: the next power of
    /// two of a size above 2^63 wraps to 0 in release builds).
    #[test]
    fn sizes_past_two_to_the_63_have_no_class() {
        for b in [(1u64 << 63) + 1, u64::MAX - 255, u64::MAX - 1, u64::MAX] {
            assert_eq!(size_class(b), None, "{b}");
        }
        assert_eq!(smallest_buffer(u64::MAX - 254), None);
        assert_eq!(smallest_buffer(u64::MAX - 255), Some(u64::MAX - 255));
        assert_eq!(smallest_buffer(u64::MAX - 256), Some(u64::MAX - 255));
        assert_eq!(smallest_buffer(0), Some(256));
    }

    /// Near a device's limit the buffer is the request rounded to 256 bytes, not the size
    /// class, so every request that fits in `max` is granted and every refusal names a
    /// buffer larger than `max`.
    #[test]
    fn buffer_sizes_near_the_limit() {
        let max = (1u64 << 31) - 1; // lavapipe's max_buffer_size
        let top = max / 256 * 256;
        for bytes in [0, 1, 1 << 30, (1 << 30) + 1, top - 256, top - 1, top] {
            let size = buffer_size(bytes, max).unwrap();
            assert!(
                size >= bytes.max(1) && size <= max && size % 256 == 0,
                "{bytes}"
            );
        }
        assert_eq!(buffer_size(top, max), Ok(top));
        for bytes in [top + 1, max, max + 1, 1 << 32, (1 << 63) + 1, u64::MAX] {
            match buffer_size(bytes, max) {
                Err(Some(smallest)) => assert!(smallest > max && smallest >= bytes, "{bytes}"),
                Err(None) => assert!(bytes > u64::MAX - 255, "{bytes}"),
                Ok(s) => panic!("{bytes} bytes granted a buffer of {s} on a {max}-byte device"),
            }
        }
    }
}
