//! `CpuBuffer`: 64-byte-aligned host memory shared between arrays.
//!
//! Kernels read and write through raw pointers because core lets one buffer be read and
//! written in one call (an expression evaluated into one of its own inputs, element for
//! element); Rust slices would make that aliasing undefined. Every access is bounds-checked
//! against the buffer's length before any pointer is formed.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use crate::error::CpuError;

mod access;
mod foreign;
mod storage;
use access::AccessLock;
pub(crate) use access::Accesses;
pub(crate) use storage::{Stored, distinct};

/// Alignment of a buffer's base.
const ALIGN: usize = 64;
/// Buffers of at least this many bytes are allocated zeroed (glibc's largest mmap
/// threshold: such a `calloc` is always fresh zero pages, with no `memset`).
const ZEROED_FROM: usize = 32 << 20;

/// Host memory of one array buffer.
///
/// Buffers below `ZEROED_FROM` bytes come from `alloc` (uninitialised) and are zeroed on
/// first access (`CpuBuffer::ptr`), unless a kernel that writes every byte comes first
/// (`CpuBuffer::overwrite_ptr`, `CpuBuffer::written`): `Backend::alloc` promises
/// unspecified contents, and an allocating `eval` overwrites its whole output. Zeroing at
/// allocation cost 17 % of an allocating 1 M-element `eval` (`perf`, docs/results/
/// 2026-12-01-cpu-vs-ndarray-2.md): once glibc has raised its mmap threshold, a 4 MiB
/// `calloc` reuses heap memory and clears it with one `memset` on the calling thread.
///
/// **Two threads at once.** A whole overwrite and another thread's first access of the same
/// fresh buffer may run at the same time (a race of the caller's, but it must not lose the
/// write for good): the first access claims the zeroing (`FRESH` → `ZEROING` → `READY`),
/// and the overwrite succeeds only if the buffer is still `FRESH` when it finishes
/// (`written` returns false otherwise, after the zeroing ended, and the caller writes again
/// through the ordinary accessors). So the final bytes are those of some serial order of
/// the two. Nothing ever waits except on a `memset` in progress: no lock is held while a
/// kernel runs (a lock there could deadlock rayon workers that steal work).
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
    /// `FRESH` (never accessed, bytes uninitialised), `ZEROING` (a first access is zeroing
    /// them) or `READY` (zeroed, or written whole).
    state: AtomicU8,
    /// Orders the backend calls of different threads that use this buffer ([`access`]).
    access: AccessLock,
}

/// Never accessed: the bytes are uninitialised.
const FRESH: u8 = 0;
/// A first access is zeroing the bytes.
const ZEROING: u8 = 1;
/// The bytes are initialised.
const READY: u8 = 2;

// SAFETY: the buffer is plain bytes, accessed through raw pointers. Backend calls of
// different threads are ordered by the buffer's access lock (`access`: shared for calls that
// only read it, exclusive for calls that write it, held for the whole kernel), so a write
// never runs at the same time as another call's access. Within one call, core keeps writers
// disjoint (outputs never overlap inputs except element for element) and rayon tasks write
// disjoint chunks.
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
        if len == 0 {
            // A well-aligned dangling pointer: `ALIGN` is not null and no byte is accessed.
            let base = NonNull::new(ALIGN as *mut u8).ok_or(CpuError::OutOfMemory { bytes: 0 })?;
            return Ok(CpuBuffer {
                alloc: None,
                base,
                len,
                state: AtomicU8::new(READY),
                access: AccessLock::default(),
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
        // SAFETY: `skip < ALIGN`, so `base..base + len` lies inside the `len + ALIGN` bytes.
        let base = unsafe { alloc.add(skip) };
        Ok(CpuBuffer {
            alloc: Some(alloc),
            base,
            len,
            state: AtomicU8::new(if zeroed { READY } else { FRESH }),
            access: AccessLock::default(),
        })
    }

    /// Makes sure the bytes are initialised: zeroes them on the first access if no whole
    /// overwrite completed first.
    #[inline]
    fn initialised(&self) {
        if self.state.load(Ordering::Acquire) != READY {
            self.zero_or_wait();
        }
    }

    #[cold]
    fn zero_or_wait(&self) {
        match self
            .state
            .compare_exchange(FRESH, ZEROING, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                // SAFETY: `base..base + len` is this buffer's allocation. A whole overwrite
                // running at the same time on another thread (the caller's race) sees the
                // claim when it finishes and writes again after this (`written`).
                unsafe { std::ptr::write_bytes(self.base(), 0, self.len) };
                self.state.store(READY, Ordering::Release);
            }
            Err(_) => self.wait_ready(),
        }
    }

    /// Waits for another thread's zeroing (a `memset`) to finish.
    fn wait_ready(&self) {
        while self.state.load(Ordering::Acquire) != READY {
            std::thread::yield_now();
        }
    }

    /// The base pointer for a kernel that writes all `len` bytes before reading any of them,
    /// without zeroing them first: `None` if the buffer was accessed before (use the ordinary
    /// accessors). After the kernel succeeded, call [`CpuBuffer::written`]; if it fails, the
    /// next access zeroes the buffer (nothing uninitialised is ever read).
    ///
    /// # Safety
    /// The caller must not read a byte through the pointer before writing it, and must call
    /// `written` only after writing every byte.
    pub(crate) unsafe fn overwrite_ptr(&self) -> Option<*mut u8> {
        (self.state.load(Ordering::Acquire) == FRESH).then(|| self.base())
    }

    /// Marks the buffer initialised after a kernel wrote every byte through
    /// [`CpuBuffer::overwrite_ptr`]. Returns false if another thread's first access zeroed
    /// the buffer meanwhile (it has finished when this returns): the write may be partly
    /// wiped, and the caller must write again through the ordinary accessors.
    ///
    /// # Safety
    /// Every byte of the buffer has been written since `overwrite_ptr` returned the pointer.
    #[must_use = "a false return means the write must be done again"]
    pub(crate) unsafe fn written(&self) -> bool {
        match self
            .state
            .compare_exchange(FRESH, READY, Ordering::Release, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(_) => {
                self.wait_ready();
                false
            }
        }
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
        // Buffers allocated here are 64-byte aligned; a foreign one (`CpuBuffer::foreign`)
        // may be aligned to less than some element type it is read as.
        let align = std::mem::align_of::<T>();
        if (self.base() as usize) % align != 0 {
            return Err(CpuError::Misaligned {
                address: self.base() as usize,
                align,
            });
        }
        self.initialised();
        // SAFETY: `check` proved `offset * size_of::<T>()` is within the allocation; the base
        // is aligned for T (checked above) and `offset` is in units of T, so the result is too.
        Ok(unsafe { self.base().add(offset * std::mem::size_of::<T>()) } as *mut T)
    }

    /// Copies bytes in.
    pub(crate) fn write_bytes(&self, byte_offset: usize, src: &[u8]) -> Result<(), CpuError> {
        if byte_offset == 0 && src.len() == self.len {
            // The whole buffer: no need to zero it first.
            // SAFETY: the copy writes every byte and reads none of them, then `written`.
            let done = unsafe {
                self.overwrite_ptr().is_some_and(|d| {
                    std::ptr::copy_nonoverlapping(src.as_ptr(), d, src.len());
                    self.written()
                })
            };
            if done {
                return Ok(());
            }
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
        if whole {
            // The whole of another buffer (a copy into a new array): no need to zero it.
            // SAFETY: every byte is written by `copy_raw`, none read, and `written` is
            // called after.
            if let Some(d) = unsafe { dst.overwrite_ptr() } {
                // SAFETY: `s` was bounds-checked for `bytes`; `d` is the whole of `dst`, a
                // different buffer, so the ranges do not overlap.
                unsafe { copy_raw(s, d, bytes) };
                // SAFETY: `copy_raw` wrote every byte of `dst`.
                if unsafe { dst.written() } {
                    return Ok(());
                }
            }
        }
        let d = dst.ptr::<u8>(dst_offset, bytes)?;
        // SAFETY: both ranges were bounds-checked; `copy_raw` allows overlap.
        unsafe { copy_raw(s, d, bytes) };
        Ok(())
    }
}

/// Copies `bytes` from `s` to `d` (the ranges may overlap): in parallel pieces from
/// [`PAR_COPY`] bytes when they do not overlap.
///
/// # Safety
/// `s..s + bytes` must be readable and `d..d + bytes` writable for the whole call.
unsafe fn copy_raw(s: *const u8, d: *mut u8, bytes: usize) {
    let disjoint = (s as usize + bytes <= d as usize) || (d as usize + bytes <= s as usize);
    if bytes < PAR_COPY || !disjoint || crate::parallel::is_serial() {
        // SAFETY: the caller's contract; `copy` allows overlap.
        unsafe { std::ptr::copy(s, d, bytes) };
        return;
    }
    let (s, d) = (s as usize, d as usize);
    (0..bytes.div_ceil(COPY_PIECE))
        .into_par_iter()
        .for_each(|i| {
            let at = i * COPY_PIECE;
            let n = COPY_PIECE.min(bytes - at);
            // SAFETY: the caller's contract, and the ranges do not overlap; each piece is a
            // distinct part of them.
            unsafe { std::ptr::copy_nonoverlapping((s + at) as *const u8, (d + at) as *mut u8, n) };
        });
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

#[cfg(test)]
mod tests;
