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

use std::sync::atomic::{AtomicU64, Ordering};

use gpuarrays_core::handle_cache::{HandleCache, Limits};

/// One device buffer of the wgpu backend.
#[derive(Debug)]
pub struct WgpuBuffer {
    pub(crate) buffer: wgpu::Buffer,
    /// Bytes the caller asked for.
    pub(crate) bytes: usize,
    /// Unique id (buffer identity for binding deduplication).
    pub(crate) id: u64,
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
/// an eighth of the enclosing power of two (at most 12.5% unused).
pub(crate) fn size_class(bytes: u64) -> u64 {
    let b = bytes.max(256);
    if b <= 1 << 20 {
        return b.next_power_of_two();
    }
    let step = b.next_power_of_two() / 8;
    b.div_ceil(step) * step
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
    use super::size_class;

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
        ] {
            let c = size_class(b);
            assert!(c >= b && c % 256 == 0, "{b} -> {c}");
            assert!(c <= (b.max(256) * 2), "{b} -> {c}");
        }
        assert!(size_class((1 << 20) + 1) <= (1 << 20) + (1 << 18));
    }
}
