//! Where an operand's values live, and moving them between buffers and columns.
//!
//! An operand's position for output index `i` is `offset + Σ idx_d(i) · strides[d]`. Rather
//! than computing one position per element (the earlier evaluator built a vector of
//! positions per chunk and read through it), gather and scatter walk *runs*: stretches along
//! the last axis, each copied as a slice (stride 1), filled with one value (stride 0, a
//! broadcast axis) or stepped through (any other stride). A contiguous operand is one run.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Operand;

use super::column::{Col, ColElem, ColRef, Pool};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};

/// Walks the buffer positions of an operand over a range of output linear indices.
pub(crate) struct Layout {
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
}

impl Layout {
    pub(crate) fn of<B>(shape: &[usize], op: &Operand<'_, B>) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: op.strides.clone(),
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
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 && s != expect {
                return false;
            }
            expect *= d as isize;
        }
        true
    }

    /// Checks that every position lies inside `0..capacity` elements.
    pub(crate) fn check(&self, capacity: usize) -> Result<(), CpuError> {
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
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
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
    /// indices `start..start + len`, in order.
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
        let mut idx = vec![0usize; nd];
        let mut rem = start;
        for d in (0..nd).rev() {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut pos = self.offset
            + idx
                .iter()
                .zip(&self.strides)
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

/// An instruction's values over one block: computed (owned) or read in place from an input
/// buffer (borrowed).
pub(crate) enum Val<'a> {
    Owned(Col),
    Borrowed(ColRef<'a>),
}

impl Val<'_> {
    pub(crate) fn get(&self) -> ColRef<'_> {
        match self {
            Val::Owned(c) => c.as_ref(),
            Val::Borrowed(r) => *r,
        }
    }
}

/// Reads `len` values through `layout` into a pooled column, converting each with `conv`.
///
/// # Safety
/// `base` is the start of a buffer for which `layout.check` passed, and nothing writes the
/// positions read while this runs.
unsafe fn gather_owned<S: Copy, T: ColElem>(
    base: *const S,
    layout: &Layout,
    start: usize,
    len: usize,
    pool: &mut Pool,
    conv: impl Fn(S) -> T,
) -> Col {
    let mut v = pool.take::<T>();
    v.reserve(len);
    layout.for_each_run(start, len, |pos, stride, count| {
        // SAFETY: every position of a run lies inside the checked layout (caller's contract).
        let first = unsafe { base.offset(pos) };
        match stride {
            1 => {
                // SAFETY: `count` consecutive checked positions, not written meanwhile.
                let s = unsafe { std::slice::from_raw_parts(first, count) };
                v.extend(s.iter().map(|&x| conv(x)));
            }
            0 => {
                // SAFETY: a checked position.
                let x = conv(unsafe { first.read() });
                v.extend(std::iter::repeat_n(x, count));
            }
            _ => v.extend((0..count as isize).map(|i| {
                // SAFETY: each `pos + i·stride` is a checked position of this run.
                conv(unsafe { first.offset(i * stride).read() })
            })),
        }
    });
    T::owned(v)
}

/// Reads an input's values for output indices `start..start + len`: in place when the
/// input is contiguous (no copy), as one value when it is broadcast, else gathered.
///
/// # Safety
/// `layout.check` passed for `buf`, and nothing writes the positions read while the
/// returned value lives.
pub(crate) unsafe fn gather<'a>(
    buf: &'a CpuBuffer,
    dtype: DType,
    layout: &Layout,
    start: usize,
    len: usize,
    pool: &mut Pool,
) -> Result<Val<'a>, CpuError> {
    if dtype == DType::Bool {
        // A bool is held as its byte, which may be any value (a reinterpreted u8): always
        // converted, never borrowed as `bool`.
        let base = buf.ptr::<u8>(0, 0)? as *const u8;
        let (start, len) = if layout.is_broadcast() {
            (0, 1)
        } else {
            (start, len)
        };
        // SAFETY: the caller's contract.
        return Ok(Val::Owned(unsafe {
            gather_owned(base, layout, start, len, pool, |b: u8| b != 0)
        }));
    }
    gpuarrays_core::dispatch_dtype!(dtype, [U8, I32, U32, I64, U64, F32, F64, C32, C64], T => {
        let base = buf.ptr::<T>(0, 0)? as *const T;
        if layout.is_broadcast() {
            // SAFETY: the caller's contract; one position.
            Ok(Val::Owned(unsafe { gather_owned(base, layout, 0, 1, pool, |x: T| x) }))
        } else if layout.is_linear() {
            // SAFETY: the checked layout covers `offset + start .. offset + start + len`;
            // the caller keeps writers away while the slice lives.
            let s = unsafe {
                std::slice::from_raw_parts(base.offset(layout.offset + start as isize), len)
            };
            Ok(Val::Borrowed(T::borrowed(s)))
        } else {
            // SAFETY: the caller's contract.
            Ok(Val::Owned(unsafe { gather_owned(base, layout, start, len, pool, |x: T| x) }))
        }
    }, else other => Err(invalid(format!("an input of type {other}"))))
}

/// Writes `v` (length `len`, or 1 for a broadcast value) to positions of `layout`.
///
/// # Safety
/// `base` is the start of a buffer for which `layout.check` passed; no one else reads or
/// writes the positions of output indices `start..start + len` while this runs.
unsafe fn scatter_typed<T: Copy, S: Copy>(
    base: *mut S,
    layout: &Layout,
    start: usize,
    v: &[T],
    len: usize,
    conv: impl Fn(T) -> S,
) {
    let mut done = 0usize;
    layout.for_each_run(start, len, |pos, stride, count| {
        // SAFETY: a checked position (caller's contract).
        let first = unsafe { base.offset(pos) };
        if stride == 1 {
            // SAFETY: `count` consecutive checked positions that only this call touches.
            let out = unsafe { std::slice::from_raw_parts_mut(first, count) };
            if v.len() == 1 {
                out.fill(conv(v[0]));
            } else {
                for (o, &x) in out.iter_mut().zip(&v[done..done + count]) {
                    *o = conv(x);
                }
            }
        } else {
            for i in 0..count {
                let x = if v.len() == 1 { v[0] } else { v[done + i] };
                // SAFETY: each `pos + i·stride` is a checked position of this run.
                unsafe { first.offset(i as isize * stride).write(conv(x)) };
            }
        }
        done += count;
    });
}

/// Writes a column to the output positions of output indices `start..start + len`.
///
/// # Safety
/// `layout.check` passed for `buf`; no one else reads or writes those positions meanwhile
/// (in particular, no borrowed input column of this block is still alive).
pub(crate) unsafe fn scatter(
    buf: &CpuBuffer,
    dtype: DType,
    layout: &Layout,
    start: usize,
    len: usize,
    col: ColRef<'_>,
) -> Result<(), CpuError> {
    if col.dtype() != dtype || (col.len() != len && col.len() != 1) {
        return Err(invalid(format!(
            "a {} result of {} values for {len} {dtype} outputs",
            col.dtype(),
            col.len()
        )));
    }
    macro_rules! arms {
        ($($V:ident: $t:ty),*) => {
            match col {
                ColRef::Bool(v) => {
                    let base = buf.ptr::<u8>(0, 0)?;
                    // SAFETY: the caller's contract.
                    unsafe { scatter_typed(base, layout, start, v, len, |b: bool| b as u8) }
                }
                $(ColRef::$V(v) => {
                    let base = buf.ptr::<$t>(0, 0)?;
                    // SAFETY: the caller's contract.
                    unsafe { scatter_typed(base, layout, start, v, len, |x: $t| x) }
                })*
            }
        };
    }
    use gpuarrays_core::{Complex32, Complex64};
    arms!(U8: u8, I32: i32, U32: u32, I64: i64, U64: u64, F32: f32, F64: f64,
        C32: Complex32, C64: Complex64);
    Ok(())
}
