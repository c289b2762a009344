//! `CpuBuffer`: 64-byte-aligned host memory shared between arrays.
//!
//! Kernels read and write through raw pointers because core lets one buffer be read and
//! written in one call (an expression evaluated into one of its own inputs, element for
//! element); Rust slices would make that aliasing undefined. Every access is bounds-checked
//! against the buffer's length before any pointer is formed.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Once;

use rayon::prelude::*;

use crate::error::CpuError;

mod storage;
pub(crate) use storage::{Stored, distinct};

/// Alignment of a buffer's base.
const ALIGN: usize = 64;
/// Buffers of at least this many bytes are allocated zeroed (glibc's largest mmap
/// threshold: such a `calloc` is always fresh zero pages, with no `memset`).
const ZEROED_FROM: usize = 32 << 20;

/// Host memory of one array buffer.
///
/// Buffers below [`ZEROED_FROM`] bytes come from `alloc` (uninitialised) and are zeroed on
/// first access ([`CpuBuffer::ptr`]), unless a kernel that writes every byte comes first
/// ([`CpuBuffer::overwrite_ptr`], [`CpuBuffer::written`]): `Backend::alloc` promises
/// unspecified contents, and an allocating `eval` overwrites its whole output. Zeroing at
/// allocation cost 17 % of an allocating 1 M-element `eval` (`perf`, docs/results/
/// 2026-12-01-cpu-vs-ndarray-2.md): once glibc has raised its mmap threshold, a 4 MiB
/// `calloc` reuses heap memory and clears it with one `memset` on the calling thread.
///
/// Larger buffers come from `alloc_zeroed` with an alignment of 16, which glibc serves with
/// fresh zero pages (an `mmap` at any threshold) that the kernel's threads fault in as they
/// write; asking for alignment 64 made std zero them with one `memset` instead (120 ms for a
/// 256 MiB `eval` output). The base is aligned to 64 inside the allocation.
pub struct CpuBuffer {
    /// The allocation (`None` for zero bytes).
    alloc: Option<NonNull<u8>>,
    /// The first 64-byte-aligned byte of the allocation (dangling, but aligned, if empty).
    base: NonNull<u8>,
    len: usize,
    /// Completed once the bytes are initialised (zeroed, or written by a whole overwrite).
    init: Once,
}

// SAFETY: the buffer is plain bytes; concurrent access goes through raw pointers to ranges
// that core keeps disjoint between writers (outputs never overlap inputs except element for
// element, and rayon tasks write disjoint chunks).
unsafe impl Sync for CpuBuffer {}
// SAFETY: owning plain bytes; nothing is tied to a thread.
unsafe impl Send for CpuBuffer {}

impl CpuBuffer {
    fn layout(len: usize) -> Option<Layout> {
        Layout::from_size_align(len.checked_add(ALIGN)?, 16).ok()
    }

    /// Allocates `len` bytes, zeroed before anything reads them (see the type's
    /// documentation for when).
    pub(crate) fn new(len: usize) -> Result<Self, CpuError> {
        let init = Once::new();
        if len == 0 {
            init.call_once(|| {});
            // A well-aligned dangling pointer: `ALIGN` is not null and no byte is accessed.
            let base = NonNull::new(ALIGN as *mut u8).ok_or(CpuError::OutOfMemory { bytes: 0 })?;
            return Ok(CpuBuffer {
                alloc: None,
                base,
                len,
                init,
            });
        }
        let layout = Self::layout(len).ok_or(CpuError::OutOfMemory { bytes: len })?;
        let zeroed = len >= ZEROED_FROM;
        // SAFETY: the layout's size is at least `ALIGN` > 0.
        let raw = unsafe {
            if zeroed {
                std::alloc::alloc_zeroed(layout)
            } else {
                std::alloc::alloc(layout)
            }
        };
        let alloc = NonNull::new(raw).ok_or(CpuError::OutOfMemory { bytes: len })?;
        let skip = raw.align_offset(ALIGN);
        if skip >= ALIGN {
            // SAFETY: allocated above with this layout.
            unsafe { std::alloc::dealloc(raw, layout) };
            return Err(CpuError::OutOfMemory { bytes: len });
        }
        if zeroed {
            init.call_once(|| {});
        }
        // SAFETY: `skip < ALIGN`, so `base..base + len` lies inside the `len + ALIGN` bytes.
        let base = unsafe { alloc.add(skip) };
        Ok(CpuBuffer {
            alloc: Some(alloc),
            base,
            len,
            init,
        })
    }

    /// Makes sure the bytes are initialised: zeroes them on the first call if no whole
    /// overwrite came first.
    #[inline]
    fn initialised(&self) {
        self.init.call_once(|| {
            // SAFETY: `base..base + len` is this buffer's allocation; no pointer to it has
            // been handed out yet (every accessor comes here first, and `overwrite_ptr`'s
            // callers exclude other access until `written`).
            unsafe { std::ptr::write_bytes(self.base(), 0, self.len) }
        });
    }

    /// The base pointer for a kernel that writes all `len` bytes before reading any of them,
    /// without zeroing them first. Call [`CpuBuffer::written`] once it has succeeded; if it
    /// fails, the next access zeroes the buffer (nothing uninitialised is ever read).
    ///
    /// # Safety
    /// Nothing else may access the buffer until `written` is called, and the caller must not
    /// read a byte through the pointer before writing it.
    pub(crate) unsafe fn overwrite_ptr(&self) -> *mut u8 {
        self.base()
    }

    /// Marks the buffer initialised after a kernel wrote every byte through
    /// [`CpuBuffer::overwrite_ptr`].
    ///
    /// # Safety
    /// Every byte of the buffer has been written since it was allocated.
    pub(crate) unsafe fn written(&self) {
        self.init.call_once(|| {});
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Checks that `count` elements of `size` bytes starting at element `offset` fit.
    pub(crate) fn check(&self, offset: usize, count: usize, size: usize) -> Result<(), CpuError> {
        let end = offset.checked_add(count).and_then(|e| e.checked_mul(size));
        match end {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(CpuError::OutOfBounds {
                offset: offset * size,
                bytes: count * size,
                len: self.len,
            }),
        }
    }

    /// A typed pointer to element `offset` (in elements of `T`), after a bounds check of
    /// `count` elements.
    pub(crate) fn ptr<T>(&self, offset: usize, count: usize) -> Result<*mut T, CpuError> {
        self.check(offset, count, std::mem::size_of::<T>())?;
        self.initialised();
        // SAFETY: `check` proved `offset * size_of::<T>()` is within the allocation; the base
        // is 64-byte aligned and `offset` is in units of T, so the result is aligned for T.
        Ok(unsafe { self.base().add(offset * std::mem::size_of::<T>()) } as *mut T)
    }

    /// Copies bytes in.
    pub(crate) fn write_bytes(&self, byte_offset: usize, src: &[u8]) -> Result<(), CpuError> {
        if byte_offset == 0 && src.len() == self.len {
            // The whole buffer: no need to zero it first.
            // SAFETY: `Backend::write` has the buffer to itself while it runs; the copy
            // writes every byte and reads none of them.
            unsafe {
                std::ptr::copy_nonoverlapping(src.as_ptr(), self.overwrite_ptr(), src.len());
                self.written();
            }
            return Ok(());
        }
        let dst = self.ptr::<u8>(byte_offset, src.len())?;
        // SAFETY: the destination range was bounds-checked; `src` is a distinct host slice.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
        Ok(())
    }

    /// Copies bytes out.
    pub(crate) fn read_bytes(&self, byte_offset: usize, dst: &mut [u8]) -> Result<(), CpuError> {
        let src = self.ptr::<u8>(byte_offset, dst.len())?;
        // SAFETY: the source range was bounds-checked; `dst` is a distinct host slice.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    /// Copies bytes between buffers (or within one; ranges may overlap).
    ///
    /// Copies of at least [`PAR_COPY`] bytes between ranges that do not overlap run in
    /// parallel pieces: one thread's `memmove` reached 0.73× of a two-thread copy at 4 MiB
    /// in `benches/cpu_vs_ndarray.rs`.
    pub(crate) fn copy_to(
        &self,
        src_offset: usize,
        dst: &CpuBuffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<(), CpuError> {
        let s = self.ptr::<u8>(src_offset, bytes)? as *const u8;
        let whole = dst_offset == 0 && bytes == dst.len && !std::ptr::eq(self, dst);
        let d = if whole {
            // The whole of another buffer (a copy into a new array): no need to zero it.
            // SAFETY: a copy has its destination to itself while it runs; every byte is
            // written below, none read, and `written` is called after.
            unsafe { dst.overwrite_ptr() }
        } else {
            dst.ptr::<u8>(dst_offset, bytes)?
        };
        let disjoint = (s as usize + bytes <= d as usize) || (d as usize + bytes <= s as usize);
        if bytes < PAR_COPY || !disjoint {
            // SAFETY: both ranges were bounds-checked; `copy` allows overlap. A whole
            // destination is written in full.
            unsafe {
                std::ptr::copy(s, d, bytes);
                if whole {
                    dst.written();
                }
            }
            return Ok(());
        }
        let (s, d) = (s as usize, d as usize);
        (0..bytes.div_ceil(COPY_PIECE))
            .into_par_iter()
            .for_each(|i| {
                let at = i * COPY_PIECE;
                let n = COPY_PIECE.min(bytes - at);
                // SAFETY: both ranges were bounds-checked and do not overlap; each piece is
                // a distinct part of them.
                unsafe {
                    std::ptr::copy_nonoverlapping((s + at) as *const u8, (d + at) as *mut u8, n)
                };
            });
        if whole {
            // SAFETY: the pieces covered every byte of the destination.
            unsafe { dst.written() };
        }
        Ok(())
    }
}

/// Copies of at least this many bytes run in parallel.
const PAR_COPY: usize = 1 << 20;
/// Bytes per piece of a parallel copy.
const COPY_PIECE: usize = 1 << 18;

impl Drop for CpuBuffer {
    fn drop(&mut self) {
        if let (Some(alloc), Some(layout)) = (self.alloc, Self::layout(self.len)) {
            // SAFETY: `alloc` came from `alloc` or `alloc_zeroed` with this same layout and is
            // freed once.
            unsafe { std::alloc::dealloc(alloc.as_ptr(), layout) };
        }
    }
}

impl std::fmt::Debug for CpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBuffer({} bytes)", self.len)
    }
}

impl CpuBuffer {
    /// Elements `offset..offset + len` as a shared slice.
    ///
    /// # Safety
    /// No one may write that range while the slice lives.
    pub(crate) unsafe fn slice<T>(&self, offset: usize, len: usize) -> Result<&[T], CpuError> {
        let p = self.ptr::<T>(offset, len)?;
        // SAFETY: bounds-checked and aligned by `ptr`; the caller excludes writers.
        Ok(unsafe { std::slice::from_raw_parts(p as *const T, len) })
    }

    /// Elements `offset..offset + len` as an exclusive slice.
    ///
    /// # Safety
    /// No one else may read or write that range while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice_mut<T>(
        &self,
        offset: usize,
        len: usize,
    ) -> Result<&mut [T], CpuError> {
        let p = self.ptr::<T>(offset, len)?;
        // SAFETY: bounds-checked and aligned by `ptr`; the caller guarantees exclusivity.
        Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
    }
}
