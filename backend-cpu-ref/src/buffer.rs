//! `CpuBuffer`: 64-byte-aligned host memory shared between arrays.
//!
//! Kernels read and write through raw pointers because core lets one buffer be read and
//! written in one call (an expression evaluated into one of its own inputs, element for
//! element); Rust slices would make that aliasing undefined. Every access is bounds-checked
//! against the buffer's length before any pointer is formed.

use std::alloc::Layout;
use std::ptr::NonNull;

use gpuarrays_core::{Complex32, Complex64};
use rayon::prelude::*;

use crate::error::CpuError;

/// Alignment of a buffer's base.
const ALIGN: usize = 64;

/// Host memory of one array buffer.
///
/// The memory comes from `alloc_zeroed` with an alignment of 16 and is aligned to 64 inside
/// the allocation. Asking the allocator for 64 directly made std zero the memory with one
/// `memset` on the calling thread (its zeroed path for alignments above 16), 120 ms for a
/// 256 MiB `eval` output before the kernel had started; at 16 it is `calloc`, whose large
/// allocations are fresh zero pages that the kernel's threads fault in as they write.
pub struct CpuBuffer {
    /// The allocation (`None` for zero bytes).
    alloc: Option<NonNull<u8>>,
    /// The first 64-byte-aligned byte of the allocation (dangling, but aligned, if empty).
    base: NonNull<u8>,
    len: usize,
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

    /// Allocates `len` zeroed bytes.
    pub(crate) fn new(len: usize) -> Result<Self, CpuError> {
        if len == 0 {
            // A well-aligned dangling pointer: `ALIGN` is not null and no byte is accessed.
            let base = NonNull::new(ALIGN as *mut u8).ok_or(CpuError::OutOfMemory { bytes: 0 })?;
            return Ok(CpuBuffer {
                alloc: None,
                base,
                len,
            });
        }
        let layout = Self::layout(len).ok_or(CpuError::OutOfMemory { bytes: len })?;
        // SAFETY: the layout's size is at least `ALIGN` > 0.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
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
        })
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
        // SAFETY: `check` proved `offset * size_of::<T>()` is within the allocation; the base
        // is 64-byte aligned and `offset` is in units of T, so the result is aligned for T.
        Ok(unsafe { self.base().add(offset * std::mem::size_of::<T>()) } as *mut T)
    }

    /// Copies bytes in.
    pub(crate) fn write_bytes(&self, byte_offset: usize, src: &[u8]) -> Result<(), CpuError> {
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
        let d = dst.ptr::<u8>(dst_offset, bytes)?;
        let disjoint = (s as usize + bytes <= d as usize) || (d as usize + bytes <= s as usize);
        if bytes < PAR_COPY || !disjoint {
            // SAFETY: both ranges were bounds-checked; `copy` allows overlap.
            unsafe { std::ptr::copy(s, d, bytes) };
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
            // SAFETY: `alloc` came from `alloc_zeroed` with this same layout and is freed once.
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

/// How a CPU buffer holds an element type: as itself, except bool, held as its byte.
///
/// Kernels are dispatched with [`gpuarrays_core::dispatch_dtype!`], which binds the Rust
/// element type (`bool` for Bool); they read and write `Stored<T>`. A buffer may hold any
/// byte where a bool is expected (a `u8` array reinterpreted as bool), and reading such a
/// byte as a Rust `bool` would be undefined behaviour, so bool kernels work on the byte
/// (ordering and comparing bytes orders and compares the bools they stand for).
pub(crate) trait Storage {
    type Repr: Copy + Send + Sync + 'static;
}

/// The type a CPU buffer holds for the element type `T` (see [`Storage`]).
pub(crate) type Stored<T> = <T as Storage>::Repr;

impl Storage for bool {
    type Repr = u8;
}

macro_rules! stored_as_itself {
    ($($t:ty),*) => {$(
        impl Storage for $t {
            type Repr = $t;
        }
    )*};
}
stored_as_itself!(u8, i32, u32, i64, u64, f32, f64, Complex32, Complex64);

/// Fails unless `a` and `b` are different buffers (kernels that read one buffer while
/// writing another rely on it).
pub(crate) fn distinct(a: &CpuBuffer, b: &CpuBuffer) -> Result<(), CpuError> {
    if std::ptr::eq(a, b) {
        Err(crate::error::invalid("the same buffer as input and output"))
    } else {
        Ok(())
    }
}
