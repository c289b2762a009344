//! Where an operand's values live, and moving them between buffers and columns.
//!
//! An operand's position for output index `i` is `offset + Σ idx_d(i) · strides[d]`. Rather
//! than computing one position per element (the earlier evaluator built a vector of
//! positions per chunk and read through it), gather and scatter walk *runs*: stretches along
//! the last axis, each copied as a slice (stride 1), filled with one value (stride 0, a
//! broadcast axis) or stepped through (any other stride). A contiguous operand is one run.

use gpuarrays_core::kernel::Operand;
use gpuarrays_core::shape::MAX_DIMS;
use gpuarrays_core::{Complex32, Complex64, DType};

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};

/// Walks the buffer positions of an operand over a range of output linear indices.
pub(crate) struct Layout<'a> {
    shape: &'a [usize],
    strides: &'a [isize],
    offset: isize,
}

impl<'a> Layout<'a> {
    pub(crate) fn of<B>(shape: &'a [usize], op: &Operand<'a, B>) -> Layout<'a> {
        Layout {
            shape,
            strides: op.strides,
            offset: op.offset as isize,
        }
    }

    /// Whether every stride is 0 (one value everywhere).
    pub(crate) fn is_broadcast(&self) -> bool {
        self.strides.iter().all(|&s| s == 0)
    }

    /// Whether output index `i` sits at position `offset + i` (row-major, no gaps).
    pub(crate) fn is_linear(&self) -> bool {
        let mut expect = 1isize;
        for (&d, &s) in self.shape.iter().zip(self.strides).rev() {
            if d != 1 && s != expect {
                return false;
            }
            expect *= d as isize;
        }
        true
    }

    /// Checks that every position lies inside `0..capacity` elements.
    pub(crate) fn check(&self, capacity: usize) -> Result<(), CpuError> {
        if self.shape.len() > MAX_DIMS {
            return Err(invalid(format!(
                "a {}-dimensional shape (at most {MAX_DIMS})",
                self.shape.len()
            )));
        }
        if self.shape.len() != self.strides.len() {
            return Err(invalid(format!(
                "{} strides for a {}-dimensional shape",
                self.strides.len(),
                self.shape.len()
            )));
        }
        if self.shape.contains(&0) {
            return Ok(());
        }
        let (mut lo, mut hi) = (self.offset, self.offset);
        for (&d, &s) in self.shape.iter().zip(self.strides) {
            let span = (d as isize - 1) * s;
            if span < 0 { lo += span } else { hi += span }
        }
        if lo < 0 || hi as usize >= capacity {
            return Err(invalid(format!(
                "an operand reaching elements {lo}..={hi} of a {capacity}-element buffer"
            )));
        }
        Ok(())
    }

    /// Calls `f(position, stride, count)` for the runs along the last axis that cover output
    /// indices `start..start + len`, in order. Needs a layout that passed [`Layout::check`]
    /// (at most `MAX_DIMS` dimensions).
    fn for_each_run(&self, start: usize, len: usize, mut f: impl FnMut(isize, isize, usize)) {
        let nd = self.shape.len();
        if len == 0 {
            return;
        }
        if nd == 0 || self.is_linear() {
            f(self.offset + start as isize, 1, len);
            return;
        }
        let last = nd - 1;
        // On the stack: this runs once per block and operand.
        let mut idx = [0usize; MAX_DIMS];
        let mut rem = start;
        for d in (0..nd).rev() {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut pos = self.offset
            + idx
                .iter()
                .zip(self.strides)
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>();
        let mut remaining = len;
        loop {
            let run = (self.shape[last] - idx[last]).min(remaining);
            f(pos, self.strides[last], run);
            remaining -= run;
            if remaining == 0 {
                return;
            }
            // The run reached the end of its row: back to column 0, then carry upwards.
            pos -= self.strides[last] * idx[last] as isize;
            idx[last] = 0;
            let mut d = last;
            while d > 0 {
                d -= 1;
                idx[d] += 1;
                pos += self.strides[d];
                if idx[d] < self.shape[d] {
                    break;
                }
                pos -= self.strides[d] * self.shape[d] as isize;
                idx[d] = 0;
            }
        }
    }
}

/// Writes the `len` values of `layout` for output indices `start..start + len` to `dst`,
/// converting each with `conv`.
///
/// # Safety
/// `base` is the start of a buffer for which `layout.check` passed, nothing writes the
/// positions read while this runs, and `dst` points at `len` aligned writable slots of `T`
/// that overlap none of them.
unsafe fn gather_typed<S: Copy, T>(
    base: *const S,
    layout: &Layout<'_>,
    start: usize,
    len: usize,
    dst: *mut T,
    conv: impl Fn(S) -> T,
) {
    let mut done = 0usize;
    layout.for_each_run(start, len, |pos, stride, count| {
        // SAFETY: the runs cover `len` values in all, so `done + count <= len` slots of `dst`.
        let out = unsafe { std::slice::from_raw_parts_mut(dst.add(done), count) };
        // SAFETY: every position of a run lies inside the checked layout (caller's contract).
        let first = unsafe { base.offset(pos) };
        match stride {
            1 => {
                // SAFETY: `count` consecutive checked positions, not written meanwhile.
                let s = unsafe { std::slice::from_raw_parts(first, count) };
                for (o, &x) in out.iter_mut().zip(s) {
                    *o = conv(x);
                }
            }
            0 => {
                // SAFETY: a checked position.
                let x = unsafe { first.read() };
                for o in out.iter_mut() {
                    *o = conv(x);
                }
            }
            _ => {
                for (i, o) in out.iter_mut().enumerate() {
                    // SAFETY: each `pos + i·stride` is a checked position of this run.
                    *o = conv(unsafe { first.offset(i as isize * stride).read() });
                }
            }
        }
        done += count;
    });
}

/// Writes an input's values for output indices `start..start + len` to `dst`, as the
/// evaluator holds them (bools as `bool`, from bytes that may hold any value).
///
/// # Safety
/// `layout.check` passed for `buf`; nothing writes the positions read while this runs;
/// `dst` points at `len` aligned writable slots of `dtype`'s type that overlap none of them.
pub(crate) unsafe fn gather(
    buf: &CpuBuffer,
    dtype: DType,
    layout: &Layout<'_>,
    start: usize,
    len: usize,
    dst: *mut u8,
) -> Result<(), CpuError> {
    macro_rules! arms {
        ($($V:ident: $t:ty),*) => {
            match dtype {
                DType::Bool => {
                    let base = buf.ptr::<u8>(0, 0)? as *const u8;
                    // SAFETY: the caller's contract.
                    unsafe { gather_typed(base, layout, start, len, dst.cast::<bool>(), |b: u8| b != 0) }
                }
                $(DType::$V => {
                    let base = buf.ptr::<$t>(0, 0)? as *const $t;
                    // SAFETY: the caller's contract.
                    unsafe { gather_typed(base, layout, start, len, dst.cast::<$t>(), |x: $t| x) }
                })*
            }
        };
    }
    arms!(I8: i8, U8: u8, I16: i16, U16: u16, I32: i32, U32: u32, I64: i64, U64: u64,
        F16: gpuarrays_core::f16, BF16: gpuarrays_core::bf16, F32: f32, F64: f64,
        C32: Complex32, C64: Complex64);
    Ok(())
}

/// Writes `len` values at `src` (or one, `uniform`, for all of them) to the output positions
/// of output indices `start..start + len`, converting each with `conv`.
///
/// # Safety
/// `base` is the start of a buffer for which `layout.check` passed; `src` points at `len`
/// (one if `uniform`) initialised, aligned values of `T` outside those positions; no one
/// else reads or writes those positions while this runs.
unsafe fn scatter_typed<T: Copy, S: Copy>(
    base: *mut S,
    layout: &Layout<'_>,
    (start, len): (usize, usize),
    src: *const T,
    uniform: bool,
    conv: impl Fn(T) -> S,
) {
    let mut done = 0usize;
    layout.for_each_run(start, len, |pos, stride, count| {
        // SAFETY: a checked position (caller's contract).
        let first = unsafe { base.offset(pos) };
        let value = |i: usize| {
            // SAFETY: `i < len` values, or the one uniform value (caller's contract).
            unsafe {
                if uniform {
                    src.read()
                } else {
                    src.add(i).read()
                }
            }
        };
        if stride == 1 {
            // SAFETY: `count` consecutive checked positions that only this call touches.
            let out = unsafe { std::slice::from_raw_parts_mut(first, count) };
            if uniform {
                out.fill(conv(value(0)));
            } else {
                // SAFETY: `done + count <= len` values of `src`, apart from the output.
                let v = unsafe { std::slice::from_raw_parts(src.add(done), count) };
                for (o, &x) in out.iter_mut().zip(v) {
                    *o = conv(x);
                }
            }
        } else {
            for i in 0..count {
                // SAFETY: each `pos + i·stride` is a checked position of this run.
                unsafe {
                    first
                        .offset(i as isize * stride)
                        .write(conv(value(done + i)))
                };
            }
        }
        done += count;
    });
}

/// Writes a block's results (`len` values of `dtype` at `src`, or one for all if `uniform`)
/// to the output positions of output indices `start..start + len`, in the buffer whose first
/// byte is `base`.
///
/// # Safety
/// `base` is the start of a buffer for which `layout.check` passed, 64-byte aligned; `src`
/// points at such values, outside the output positions; no one else reads or writes those
/// positions meanwhile.
pub(crate) unsafe fn scatter(
    base: *mut u8,
    dtype: DType,
    layout: &Layout<'_>,
    (start, len): (usize, usize),
    src: *const u8,
    uniform: bool,
) {
    macro_rules! arms {
        ($($V:ident: $t:ty),*) => {
            match dtype {
                DType::Bool => {
                    // SAFETY: the caller's contract.
                    unsafe {
                        scatter_typed(base, layout, (start, len), src.cast::<bool>(), uniform, |b: bool| b as u8)
                    }
                }
                $(DType::$V => {
                    // SAFETY: the caller's contract; the base is aligned for any type.
                    unsafe {
                        scatter_typed(base.cast::<$t>(), layout, (start, len), src.cast::<$t>(), uniform, |x: $t| x)
                    }
                })*
            }
        };
    }
    arms!(I8: i8, U8: u8, I16: i16, U16: u16, I32: i32, U32: u32, I64: i64, U64: u64,
        F16: gpuarrays_core::f16, BF16: gpuarrays_core::bf16, F32: f32, F64: f64,
        C32: Complex32, C64: Complex64);
}
