//! Construction and copies: zeros/ones/full/arange, deep copies, fill, casts, broadcasts,
//! and strided copies (the kernel behind reverse and permute).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::data_ref::DataRef;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
use crate::ops::expr::Expr;
use crate::scalar::Scalar;
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// Copies `src` into `dst` (same type and element count), device to device.
pub(crate) fn copy_raw<B: Backend>(src: &RawArray<B>, dst: &RawArray<B>) -> Result<()> {
    src.same_device("copy", dst)?;
    if src.dtype != dst.dtype || src.len() != dst.len() {
        return Err(Error::WrongShape {
            op: "copy".into(),
            expected: dst.dims.clone(),
            got: src.dims.clone(),
        });
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
    src.backend
        .copy(&s, src.byte_offset(), &d, dst.byte_offset(), bytes)
}

/// Writes `dst[i] = src[offset + Σ i_k · strides[k]]` for every multi-index `i` of `dst`'s
/// shape: one elementwise kernel reading `src` with arbitrary (possibly negative) strides.
pub(crate) fn strided_copy<B: Backend>(
    src: &RawArray<B>,
    offset: usize,
    strides: Vec<isize>,
    dst: &RawArray<B>,
) -> Result<()> {
    ensure_supported(&src.backend, src.dtype, OpKind::Elementwise)?;
    src.same_device("copy", dst)?;
    if dst.is_empty() {
        src.ensure_alive()?;
        return dst.ensure_alive();
    }
    let program = Program {
        inputs: vec![src.dtype],
        scalars: vec![],
        instrs: vec![Instr {
            node: Node::Input(0),
            dtype: src.dtype,
        }],
    };
    let (dims, st) = simplify_layout(&dst.dims, &[shape::contiguous_strides(&dst.dims), strides]);
    let (s, d) = (src.buffer()?, dst.buffer()?);
    let args = ElementwiseArgs {
        shape: dims,
        inputs: vec![Operand {
            buffer: &*s,
            dtype: src.dtype,
            offset,
            strides: st[1].clone(),
        }],
        scalars: vec![],
        output: Operand {
            buffer: &*d,
            dtype: dst.dtype,
            offset: dst.offset,
            strides: st[0].clone(),
        },
    };
    src.backend.elementwise(&program, &args)
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
        if self.is_empty() {
            return self.buffer().map(drop);
        }
        let d = self.buffer()?;
        let args = ElementwiseArgs {
            shape: vec![self.len()],
            inputs: vec![],
            scalars: vec![value],
            output: Operand {
                buffer: &*d,
                dtype: self.dtype,
                offset: self.offset,
                strides: vec![1],
            },
        };
        self.backend.elementwise(&program, &args)
    }

    /// A deep copy into a new buffer.
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

    /// Materialises this array broadcast to `dims` (NumPy rules).
    pub fn broadcast_to(&self, dims: &[usize]) -> Result<Self> {
        let out = shape::broadcast_shapes("broadcast_to", self.dims(), dims)?;
        if out != dims {
            return Err(Error::ShapeMismatch {
                op: "broadcast_to".into(),
                lhs: self.dims().to_vec(),
                rhs: dims.to_vec(),
            });
        }
        let dst = RawArray::alloc(self.backend(), T::DTYPE, dims)?;
        strided_copy(
            &self.raw,
            self.raw.offset,
            shape::broadcast_strides(self.dims(), dims),
            &dst,
        )?;
        Ok(Array::from_raw(dst))
    }
}
