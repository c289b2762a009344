//! Construction and copies: zeros/ones/full/arange, deep copies, fill, casts. Copies and
//! fills take strided arrays on either side.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::data_ref::DataRef;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
use crate::ops::eval::check_writable;
use crate::ops::expr::Expr;
use crate::ops::strided_output;
use crate::scalar::Scalar;
use crate::support::{OpKind, ensure_supported};

/// Copies `src` into `dst` (same type and element count, row-major order), device to
/// device. Contiguous arrays are one backend copy; a strided side is an elementwise copy
/// (which also handles overlap within one buffer).
pub(crate) fn copy_raw<B: Backend>(src: &RawArray<B>, dst: &RawArray<B>) -> Result<()> {
    src.same_device("copy", dst)?;
    if src.dtype != dst.dtype || src.len() != dst.len() {
        return Err(Error::WrongShape {
            op: "copy".into(),
            expected: dst.dims.clone(),
            got: src.dims.clone(),
        });
    }
    if !(src.is_contiguous() && dst.is_contiguous()) {
        if src.dtype == DType::Bool {
            // A copy moves bytes, like the contiguous path: any nonzero byte stays as it is
            // (computing operations would write 0/1).
            return copy_raw(&src.reinterpret(DType::U8)?, &dst.reinterpret(DType::U8)?);
        }
        let src = if src.dims == dst.dims {
            src.clone()
        } else {
            src.reshape(&dst.dims.iter().map(|&d| d as isize).collect::<Vec<_>>())?
        };
        return Expr::array(&src).eval_into_raw(dst);
    }
    ensure_supported(&src.backend, src.dtype, OpKind::Storage)?;
    let bytes = src.len() * src.dtype.size();
    let (s, d) = (src.buffer()?, dst.buffer()?);
    if bytes == 0 {
        return Ok(());
    }
    let overlapping = DataRef::same_buffer(&src.data, &dst.data)
        && src.byte_offset() < dst.byte_offset() + bytes
        && dst.byte_offset() < src.byte_offset() + bytes;
    if overlapping {
        if src.byte_offset() == dst.byte_offset() {
            return Ok(());
        }
        drop((s, d));
        let tmp = RawArray::alloc(&src.backend, src.dtype, &src.dims)?;
        copy_raw(src, &tmp)?;
        return copy_raw(&tmp, dst);
    }
    let _span = crate::profiling::kernel("copy", src.dtype);
    crate::graph::dispatch::copy(
        &src.backend,
        &s,
        src.byte_offset(),
        &d,
        dst.byte_offset(),
        bytes,
    )
}

impl<B: Backend> RawArray<B> {
    /// A new array of `dims` filled with `value`.
    pub fn full(backend: &B, dims: &[usize], value: Scalar) -> Result<Self> {
        let out = RawArray::alloc(backend, value.dtype(), dims)?;
        out.fill(value)?;
        Ok(out)
    }

    /// Sets every element to `value` (which must have the array's type).
    pub fn fill(&self, value: Scalar) -> Result<()> {
        if value.dtype() != self.dtype {
            return Err(Error::DTypeMismatch {
                op: "fill".into(),
                lhs: self.dtype,
                rhs: value.dtype(),
            });
        }
        let program = Program {
            inputs: vec![],
            scalars: vec![self.dtype],
            instrs: vec![Instr {
                node: Node::Scalar(0),
                dtype: self.dtype,
            }],
        };
        ensure_supported(&self.backend, self.dtype, OpKind::Elementwise)?;
        check_writable("fill", self)?;
        if self.is_empty() {
            return self.buffer().map(drop);
        }
        let (shape, strides) = if self.is_contiguous() {
            (vec![self.len()], vec![1])
        } else {
            let (dims, mut st) = simplify_layout(&self.dims, std::slice::from_ref(&self.strides));
            (dims, st.pop().unwrap_or_default())
        };
        let d = self.buffer()?;
        let args = ElementwiseArgs {
            shape: &shape,
            inputs: &[],
            scalars: &[value],
            output: Operand {
                buffer: &*d,
                dtype: self.dtype,
                offset: self.offset,
                strides: &strides,
            },
        };
        strided_output::elementwise(&self.backend, &program, &args)
    }

    /// A deep copy into a new, contiguous buffer.
    pub fn copy(&self) -> Result<Self> {
        let out = RawArray::alloc(&self.backend, self.dtype, &self.dims)?;
        copy_raw(self, &out)?;
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// A new array of `dims` filled with `value`.
    pub fn full(backend: &B, dims: &[usize], value: T) -> Result<Self> {
        Ok(Array::from_raw(RawArray::full(
            backend,
            dims,
            value.to_scalar(),
        )?))
    }

    /// A new array of zeros (`false` for bool).
    pub fn zeros(backend: &B, dims: &[usize]) -> Result<Self> {
        Self::full(backend, dims, T::zero())
    }

    /// A new array of ones (`true` for bool).
    pub fn ones(backend: &B, dims: &[usize]) -> Result<Self> {
        Self::full(backend, dims, T::one())
    }

    /// `[start, start + step, start + 2·step, ...]` with `len` elements, computed as
    /// `start + i·step` in `T` (integers wrap). Numeric types only.
    pub fn arange(backend: &B, start: T, step: T, len: usize) -> Result<Self> {
        if !T::DTYPE.is_numeric() {
            return Err(Error::invalid_dtype(
                "arange",
                T::DTYPE,
                "use a numeric type",
            ));
        }
        let idx = Expr::index(backend, &[len]).cast(T::DTYPE);
        (idx * step.to_scalar() + start.to_scalar()).eval()
    }

    /// A deep copy (a new buffer), unlike [`share`](Array::share) and the derived arrays.
    pub fn copy(&self) -> Result<Self> {
        Ok(Array::from_raw(self.raw.copy()?))
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.raw.fill(value.to_scalar())
    }

    /// Copies the elements of `src` (same shape) into this array.
    pub fn assign(&mut self, src: &Array<T, B>) -> Result<()> {
        if src.dims() != self.dims() {
            return Err(Error::WrongShape {
                op: "assign".into(),
                expected: self.dims().to_vec(),
                got: src.dims().to_vec(),
            });
        }
        copy_raw(&src.raw, &self.raw)
    }

    /// Converts to another element type (rules in [`crate::scalar`]).
    pub fn cast<U: Element>(&self) -> Result<Array<U, B>> {
        self.ex().cast(U::DTYPE).eval()
    }

    /// Converts to an element type chosen at run time.
    pub fn cast_dyn(&self, to: DType) -> Result<RawArray<B>> {
        self.ex().cast(to).eval_raw()
    }
}
