//! Kernel parameter blocks of one batch, packed into shared buffers.
//!
//! Every dispatch has a small uniform parameter block (sizes, strides, offsets, scalars).
//! Giving each its own buffer costs a driver allocation and a mapping per kernel, the larger
//! part of a small kernel's host cost on a discrete GPU. Instead the blocks of one batch (the
//! pending command encoder) go into one arena buffer at aligned offsets, its bytes kept on the
//! host and written with `Queue::write_buffer` just before the batch is submitted: wgpu runs
//! such a write before every command buffer submitted after it, so each dispatch reads its
//! block. A dispatch whose block was placed before a submission that does not contain it
//! (another thread submitted in between) still reads it: the block was written at that
//! earlier submission. Arenas are never reused (a new one per batch), so a write never races
//! a kernel still reading the previous batch's blocks; wgpu frees each once the GPU is done.

/// Bytes of one arena buffer (blocks are a few hundred bytes at most; a larger one gets a
/// buffer of its own).
const ARENA_BYTES: u64 = 64 * 1024;

/// Where a parameter block lies: bind `size` bytes of `buffer` at `offset`.
pub(crate) struct ParamSlot {
    pub buffer: wgpu::Buffer,
    pub offset: u64,
    pub size: u64,
}

struct Arena {
    buffer: wgpu::Buffer,
    bytes: Vec<u8>,
}

/// The arenas of the pending batch; the last one is being filled.
#[derive(Default)]
pub(crate) struct ParamArenas {
    arenas: Vec<Arena>,
}

impl ParamArenas {
    /// Places `block` at the next offset aligned to `align` (a power of two, the larger of the
    /// uniform and storage binding alignments), starting a new arena when the current one is
    /// full; `None` for a block larger than a quarter of an arena.
    pub fn place(&mut self, device: &wgpu::Device, block: &[u8], align: u64) -> Option<ParamSlot> {
        let size = (block.len() as u64).div_ceil(16).max(1) * 16;
        if size > ARENA_BYTES / 4 {
            return None;
        }
        let fits = |a: &Arena| (a.bytes.len() as u64).next_multiple_of(align) + size <= ARENA_BYTES;
        if !self.arenas.last().is_some_and(fits) {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpuarrays parameter blocks"),
                size: ARENA_BYTES,
                usage: wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.arenas.push(Arena {
                buffer,
                bytes: Vec::with_capacity(ARENA_BYTES as usize),
            });
        }
        let arena = self.arenas.last_mut()?;
        let offset = (arena.bytes.len() as u64).next_multiple_of(align);
        arena.bytes.resize(offset as usize, 0);
        arena.bytes.extend_from_slice(block);
        arena.bytes.resize((offset + size) as usize, 0);
        Some(ParamSlot {
            buffer: arena.buffer.clone(),
            offset,
            size,
        })
    }

    /// Writes every arena's blocks (call just before submitting the batch) and forgets them.
    pub fn write(&mut self, queue: &wgpu::Queue) {
        for a in self.arenas.drain(..) {
            queue.write_buffer(&a.buffer, 0, &a.bytes);
        }
    }
}
