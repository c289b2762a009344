//! `Col`: a chunk of values of one element type, the unit the evaluator works on. A column
//! of length 1 stands for a value broadcast over the whole chunk (scalars, broadcast inputs).

use gpuarrays_core::kernel::Operand;
use gpuarrays_core::{Complex32, Complex64, DType, Element, Scalar, dispatch_dtype};

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};

/// A chunk of values.
pub(crate) enum Col {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C32(Vec<Complex32>),
    C64(Vec<Complex64>),
}

macro_rules! col_from {
    ($($V:ident: $t:ty),*) => {$(
        impl From<Vec<$t>> for Col {
            fn from(v: Vec<$t>) -> Col { Col::$V(v) }
        }
    )*};
}
col_from!(Bool: bool, U8: u8, I32: i32, U32: u32, I64: i64, U64: u64, F32: f32, F64: f64, C32: Complex32, C64: Complex64);

impl Col {
    pub(crate) fn dtype(&self) -> DType {
        dispatch_dtype!(self, Col(_v: T) => T::DTYPE)
    }

    pub(crate) fn len(&self) -> usize {
        dispatch_dtype!(self, Col(v: T) => v.len())
    }

    /// A length-1 column holding `s`.
    pub(crate) fn scalar(s: Scalar) -> Col {
        dispatch_dtype!(s, Scalar(v: T) => Col::from(vec![v]))
    }
}

/// Walks the buffer positions of an operand over a range of output linear indices.
pub(crate) struct Layout {
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
    pub(crate) offset: isize,
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

    /// Whether positions are consecutive (1-D, stride 1).
    pub(crate) fn is_contiguous(&self) -> bool {
        self.strides.len() == 1 && self.strides[0] == 1
    }

    /// Checks that every position lies inside `0..capacity` elements.
    pub(crate) fn check(&self, capacity: usize) -> Result<(), CpuError> {
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

    /// Positions of output linear indices `start..start + len`.
    pub(crate) fn positions(&self, start: usize, len: usize) -> Vec<isize> {
        let nd = self.shape.len();
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
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            out.push(pos);
            let mut d = nd;
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
        out
    }
}

/// Reads `len` elements of type `T` (given as raw loads) for output indices `start..`.
fn gather_typed<T: Copy>(
    buf: &CpuBuffer,
    layout: &Layout,
    start: usize,
    len: usize,
) -> Result<Vec<T>, CpuError> {
    let base = buf.ptr::<T>(0, 0)? as *const T;
    if layout.is_broadcast() {
        // SAFETY: `Layout::check` was called on this operand for the buffer's capacity.
        return Ok(vec![unsafe { base.offset(layout.offset).read() }]);
    }
    if layout.is_contiguous() {
        let first = layout.offset + start as isize;
        // SAFETY: as above; the range first..first+len lies inside the checked span.
        let s = unsafe { std::slice::from_raw_parts(base.offset(first), len) };
        return Ok(s.to_vec());
    }
    // SAFETY: as above; every position comes from the checked layout.
    Ok(layout
        .positions(start, len)
        .into_iter()
        .map(|p| unsafe { base.offset(p).read() })
        .collect())
}

/// Reads an operand's values for output indices `start..start + len` into a column.
pub(crate) fn gather(
    buf: &CpuBuffer,
    dtype: DType,
    layout: &Layout,
    start: usize,
    len: usize,
) -> Result<Col, CpuError> {
    Ok(match dtype {
        DType::Bool => Col::Bool(
            gather_typed::<u8>(buf, layout, start, len)?
                .into_iter()
                .map(|b| b != 0)
                .collect(),
        ),
        DType::U8 => Col::U8(gather_typed(buf, layout, start, len)?),
        DType::I32 => Col::I32(gather_typed(buf, layout, start, len)?),
        DType::U32 => Col::U32(gather_typed(buf, layout, start, len)?),
        DType::I64 => Col::I64(gather_typed(buf, layout, start, len)?),
        DType::U64 => Col::U64(gather_typed(buf, layout, start, len)?),
        DType::F32 => Col::F32(gather_typed(buf, layout, start, len)?),
        DType::F64 => Col::F64(gather_typed(buf, layout, start, len)?),
        DType::C32 => Col::C32(gather_typed(buf, layout, start, len)?),
        DType::C64 => Col::C64(gather_typed(buf, layout, start, len)?),
    })
}

fn scatter_typed<T: Copy>(
    buf: &CpuBuffer,
    layout: &Layout,
    start: usize,
    len: usize,
    v: &[T],
) -> Result<(), CpuError> {
    let base = buf.ptr::<T>(0, 0)?;
    let value = |i: usize| if v.len() == 1 { v[0] } else { v[i] };
    if layout.is_contiguous() {
        for i in 0..len {
            // SAFETY: the output layout was checked; rayon chunks write disjoint ranges.
            unsafe {
                base.offset(layout.offset + (start + i) as isize)
                    .write(value(i))
            };
        }
    } else {
        for (i, p) in layout.positions(start, len).into_iter().enumerate() {
            // SAFETY: as above.
            unsafe { base.offset(p).write(value(i)) };
        }
    }
    Ok(())
}

/// Writes a column to an operand's positions for output indices `start..start + len`.
pub(crate) fn scatter(
    buf: &CpuBuffer,
    dtype: DType,
    layout: &Layout,
    start: usize,
    len: usize,
    col: &Col,
) -> Result<(), CpuError> {
    if col.dtype() != dtype || (col.len() != len && col.len() != 1) {
        return Err(invalid(format!(
            "a {} result of {} values for {len} {dtype} outputs",
            col.dtype(),
            col.len()
        )));
    }
    match col {
        Col::Bool(v) => {
            let bytes: Vec<u8> = v.iter().map(|&b| b as u8).collect();
            scatter_typed(buf, layout, start, len, &bytes)
        }
        Col::U8(v) => scatter_typed(buf, layout, start, len, v),
        Col::I32(v) => scatter_typed(buf, layout, start, len, v),
        Col::U32(v) => scatter_typed(buf, layout, start, len, v),
        Col::I64(v) => scatter_typed(buf, layout, start, len, v),
        Col::U64(v) => scatter_typed(buf, layout, start, len, v),
        Col::F32(v) => scatter_typed(buf, layout, start, len, v),
        Col::F64(v) => scatter_typed(buf, layout, start, len, v),
        Col::C32(v) => scatter_typed(buf, layout, start, len, v),
        Col::C64(v) => scatter_typed(buf, layout, start, len, v),
    }
}
