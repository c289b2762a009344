//! Arrays: a shared buffer ([`DataRef`]), a shape and an element offset on one device.
//!
//! [`RawArray`] is the untyped form (element type known at run time) that expressions and
//! backends work with; [`Array<T, B>`] is the typed form users hold.
//!
//! An array is strided: element `(i0, .., in)` sits at element position
//! `offset + Σ ik · strides[k]` of its buffer. Strides are in elements and may be negative
//! (reversed axes) or zero (broadcast views). Arrays made by allocation are contiguous and
//! row-major; views (`derive.rs`, `views.rs`, `slicing.rs`) share the buffer with other
//! strides. Elementwise expressions read and write strided arrays directly; every other
//! kernel family reads a contiguous run, so core copies a strided operand into a contiguous
//! temporary first (`RawArray::dense`).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use crate::backend::Backend;
use crate::data_ref::{BufferGuard, DataRef};
use crate::dtype::DType;
use crate::element::{self, Element};
use crate::error::{Error, Result};
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// An array whose element type is known at run time.
pub struct RawArray<B: Backend> {
    pub(crate) backend: B,
    pub(crate) data: DataRef<B::Buffer>,
    pub(crate) dims: Vec<usize>,
    /// One stride per dimension, in elements of `dtype`.
    pub(crate) strides: Vec<isize>,
    /// Position of element `(0, .., 0)` in the buffer, in elements of `dtype`.
    pub(crate) offset: usize,
    pub(crate) dtype: DType,
}

impl<B: Backend> RawArray<B> {
    /// Allocates an uninitialised array (contents unspecified; every caller writes it).
    pub(crate) fn alloc(backend: &B, dtype: DType, dims: &[usize]) -> Result<Self> {
        shape::check_rank(dims.len())?;
        ensure_supported(backend, dtype, OpKind::Storage)?;
        let n = shape::checked_numel(dims)?;
        let bytes = n.checked_mul(dtype.size()).ok_or_else(|| {
            Error::invalid_arg(
                "alloc",
                format!("{n} elements of {dtype} overflow usize bytes"),
            )
        })?;
        let data = crate::graph::alloc(backend, bytes, || {
            let buffer = backend.alloc(bytes)?;
            let owner = backend.clone();
            Ok(DataRef::new(buffer, move |b| owner.release(b)))
        })?;
        Ok(RawArray {
            backend: backend.clone(),
            data,
            strides: shape::contiguous_strides(dims),
            dims: dims.to_vec(),
            offset: 0,
            dtype,
        })
    }

    /// A new contiguous array sharing this one's buffer (a derived array).
    pub(crate) fn derive(&self, dtype: DType, dims: Vec<usize>, offset: usize) -> Self {
        let strides = shape::contiguous_strides(&dims);
        self.derive_strided(dtype, dims, strides, offset)
    }

    /// A new array sharing this one's buffer with any strides (a view). The caller
    /// guarantees every element it reaches lies in the buffer.
    pub(crate) fn derive_strided(
        &self,
        dtype: DType,
        dims: Vec<usize>,
        strides: Vec<isize>,
        offset: usize,
    ) -> Self {
        debug_assert_eq!(dims.len(), strides.len());
        RawArray {
            backend: self.backend.clone(),
            data: self.data.clone(),
            dims,
            strides,
            offset,
            dtype,
        }
    }

    /// An array over a buffer that came from outside gpuarrays (DLPack import, another
    /// library's allocation): `data` already holds the buffer and the destructor that hands
    /// it back to its owner, `bytes` is the buffer's length, and `dims`, `strides` (in
    /// elements, negative or zero allowed) and `offset` (element position of `(0, .., 0)`)
    /// place the array in it. Checks the rank, that `dtype` can be stored on `backend`, and
    /// that every element the array reaches lies inside `bytes`; on an error `data` is
    /// dropped here, so its destructor still runs (exactly once, as always).
    pub fn from_external(
        backend: &B,
        data: DataRef<B::Buffer>,
        bytes: usize,
        dtype: DType,
        dims: Vec<usize>,
        strides: Vec<isize>,
        offset: usize,
    ) -> Result<Self> {
        let op = "from_external";
        shape::check_rank(dims.len())?;
        if dims.len() != strides.len() {
            return Err(Error::invalid_arg(
                op,
                format!("{} dims but {} strides", dims.len(), strides.len()),
            ));
        }
        ensure_supported(backend, dtype, OpKind::Storage)?;
        shape::checked_numel(&dims)?;
        if !dims.contains(&0) {
            // Not `shape::span`, which clamps at 0: a stride that reaches before the buffer
            // must be refused, not hidden.
            let (mut lo, mut hi) = (offset as i128, offset as i128);
            for (&d, &s) in dims.iter().zip(&strides) {
                let reach = (d as i128 - 1) * s as i128;
                if reach < 0 {
                    lo += reach;
                } else {
                    hi += reach;
                }
            }
            let end = (hi + 1) * dtype.size() as i128;
            if lo < 0 || end > bytes as i128 {
                return Err(Error::invalid_arg(
                    op,
                    format!(
                        "the array reaches elements {lo}..={hi} of {dtype}, outside the \
                         buffer's {bytes} bytes"
                    ),
                ));
            }
        }
        Ok(RawArray {
            backend: backend.clone(),
            data,
            dims,
            strides,
            offset,
            dtype,
        })
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }
    pub fn ndim(&self) -> usize {
        self.dims.len()
    }
    pub fn len(&self) -> usize {
        shape::numel(&self.dims)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Position of element `(0, .., 0)` in the shared buffer, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Position of element `(0, .., 0)` in the shared buffer, in bytes.
    pub fn byte_offset(&self) -> usize {
        self.offset * self.dtype.size()
    }
    /// The step between neighbours along each dimension, in elements (may be negative or 0).
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Whether the elements are one row-major run from [`offset`](Self::offset) (NumPy's
    /// C-contiguous: strides of dimensions of length 1 do not matter, nor do any of an empty
    /// array's).
    pub fn is_contiguous(&self) -> bool {
        shape::is_contiguous(&self.dims, &self.strides)
    }
    /// The lowest and highest buffer positions (elements) the array reaches; `None` when
    /// empty.
    pub fn span(&self) -> Option<(usize, usize)> {
        shape::span(self.offset, &self.dims, &self.strides)
    }
    /// This array if it is contiguous, else a contiguous copy: what every kernel family but
    /// elementwise reads.
    pub(crate) fn dense(&self) -> Result<Cow<'_, Self>> {
        if self.is_contiguous() {
            Ok(Cow::Borrowed(self))
        } else {
            Ok(Cow::Owned(self.copy()?))
        }
    }
    /// This array if it is contiguous (sharing the buffer), else a contiguous copy.
    pub fn contiguous(&self) -> Result<Self> {
        Ok(self.dense()?.into_owned())
    }
    /// The shared buffer handle (for identity checks and reference counts).
    pub fn data(&self) -> &DataRef<B::Buffer> {
        &self.data
    }
    /// Borrows the buffer for one backend call.
    pub fn buffer(&self) -> Result<BufferGuard<'_, B::Buffer>> {
        self.data.read()
    }

    /// Fails with [`Error::Freed`] if the buffer was released. Operations on empty arrays
    /// read no element and call no kernel, but an empty view of a freed buffer is still a
    /// use of it: they check this before returning their (empty or identity) result.
    pub(crate) fn ensure_alive(&self) -> Result<()> {
        self.data.read().map(drop)
    }

    /// Copies the elements to host bytes, in row-major order.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        if !self.is_contiguous() {
            return self.copy()?.to_bytes();
        }
        let mut out = vec![0u8; self.len() * self.dtype.size()];
        if !out.is_empty() {
            let buf = self.buffer()?;
            crate::graph::dispatch::read(&self.backend, &buf, self.byte_offset(), &mut out)?;
        } else {
            drop(self.buffer()?);
        }
        Ok(out)
    }

    /// A contiguous copy of this array on `to`, another handle of its backend (see
    /// [`Array::to_device`]).
    pub fn to_device(&self, to: &B) -> Result<RawArray<B>> {
        crate::graph::refuse_while_recording(&self.backend, "a copy to another device")?;
        crate::graph::refuse_while_recording(to, "a copy to another device")?;
        let src = self.dense()?;
        let out = RawArray::alloc(to, self.dtype, &self.dims)?;
        let bytes = self.len() * self.dtype.size();
        let src_buf = src.buffer()?;
        if bytes > 0 {
            let dst_buf = out.buffer()?;
            self.backend
                .copy_to_device(&src_buf, src.byte_offset(), to, &dst_buf, 0, bytes)?;
        }
        Ok(out)
    }

    /// Fails with [`Error::DeviceMismatch`] unless `other` is on the same device.
    pub fn same_device(&self, op: &str, other: &RawArray<B>) -> Result<()> {
        let (a, b) = (self.backend.device(), other.backend.device());
        if a.id == b.id {
            Ok(())
        } else {
            Err(Error::DeviceMismatch {
                op: op.to_string(),
                a: a.to_string(),
                b: b.to_string(),
            })
        }
    }

    /// Typed view of this array (fails unless `T` is its element type).
    pub fn into_typed<T: Element>(self) -> Result<Array<T, B>> {
        if self.dtype != T::DTYPE {
            return Err(Error::DTypeMismatch {
                op: "into_typed".into(),
                lhs: self.dtype,
                rhs: T::DTYPE,
            });
        }
        Ok(Array {
            raw: self,
            _t: PhantomData,
        })
    }
}

impl<B: Backend> Clone for RawArray<B> {
    /// Another reference to the same buffer (shares the data, like a derived array).
    fn clone(&self) -> Self {
        self.derive_strided(
            self.dtype,
            self.dims.clone(),
            self.strides.clone(),
            self.offset,
        )
    }
}

impl<B: Backend> fmt::Debug for RawArray<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawArray")
            .field("dtype", &self.dtype)
            .field("dims", &self.dims)
            .field("strides", &self.strides)
            .field("offset", &self.offset)
            .field("device", &self.backend.device().to_string())
            .field("data", &self.data)
            .finish()
    }
}

/// An n-dimensional array of `T` on a device of backend `B`.
///
/// Dropping an array (or calling [`free`](Array::free)) releases its own reference to the
/// buffer; the buffer is released when the last array sharing it goes, or at once by
/// [`free_all_shared`](Array::free_all_shared).
pub struct Array<T: Element, B: Backend> {
    pub(crate) raw: RawArray<B>,
    pub(crate) _t: PhantomData<T>,
}

impl<T: Element, B: Backend> Array<T, B> {
    pub(crate) fn from_raw(raw: RawArray<B>) -> Self {
        debug_assert_eq!(raw.dtype, T::DTYPE);
        Array {
            raw,
            _t: PhantomData,
        }
    }

    /// Uploads host data in row-major order.
    pub fn from_slice(backend: &B, dims: &[usize], data: &[T]) -> Result<Self> {
        let n = shape::checked_numel(dims)?;
        if n != data.len() {
            return Err(Error::LengthMismatch {
                op: "from_slice".into(),
                expected: n,
                got: data.len(),
            });
        }
        let raw = RawArray::alloc(backend, T::DTYPE, dims)?;
        if n > 0 {
            let buf = raw.buffer()?;
            crate::graph::dispatch::write(backend, &buf, 0, element::as_bytes(data))?;
        }
        Ok(Array::from_raw(raw))
    }

    /// Uploads a one-dimensional array.
    pub fn from_vec(backend: &B, data: Vec<T>) -> Result<Self> {
        Self::from_slice(backend, &[data.len()], &data)
    }

    /// Downloads the elements in row-major order.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        T::from_bytes(&self.raw.to_bytes()?)
    }

    /// The single element of a one-element array.
    pub fn item(&self) -> Result<T> {
        if self.len() != 1 {
            return Err(Error::LengthMismatch {
                op: "item".into(),
                expected: 1,
                got: self.len(),
            });
        }
        Ok(self.to_vec()?[0])
    }

    pub fn backend(&self) -> &B {
        &self.raw.backend
    }
    pub fn dims(&self) -> &[usize] {
        &self.raw.dims
    }
    pub fn ndim(&self) -> usize {
        self.raw.dims.len()
    }
    pub fn len(&self) -> usize {
        self.raw.len()
    }
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }
    /// Position of element `(0, .., 0)` in the shared buffer, in elements of `T`.
    pub fn offset(&self) -> usize {
        self.raw.offset
    }
    /// The step between neighbours along each dimension, in elements of `T`.
    pub fn strides(&self) -> &[isize] {
        &self.raw.strides
    }
    /// Whether the elements are one row-major run (see [`RawArray::is_contiguous`]).
    pub fn is_contiguous(&self) -> bool {
        self.raw.is_contiguous()
    }
    /// This array if contiguous (sharing its buffer), else a contiguous copy.
    pub fn contiguous(&self) -> Result<Self> {
        Ok(Array::from_raw(self.raw.contiguous()?))
    }
    /// The shared buffer handle: `DataRef::same_buffer(a.data(), b.data())` tells whether
    /// two arrays share storage.
    pub fn data(&self) -> &DataRef<B::Buffer> {
        &self.raw.data
    }
    /// The untyped array.
    pub fn raw(&self) -> &RawArray<B> {
        &self.raw
    }
    pub fn into_raw(self) -> RawArray<B> {
        self.raw
    }

    /// Releases this array's reference to its buffer (same as dropping it).
    pub fn free(self) {
        drop(self)
    }

    /// Releases the buffer for every array that shares it. Later use of any of them returns
    /// [`Error::Freed`]. Fails with [`Error::InvalidArgument`], releasing nothing, if this
    /// thread holds a borrow of the buffer ([`RawArray::buffer`]); see
    /// [`DataRef::free_all_shared`].
    pub fn free_all_shared(&self) -> Result<()> {
        self.raw.data.free_all_shared()
    }

    /// Copies this array to `to`, another handle of its backend (another device, or the
    /// same one), without going through the host where the backend copies between devices
    /// directly ([`Backend::copy_to_device`]: GPU peer copies). The result is contiguous and
    /// shares nothing with this array. Ordered like any operation: it reads this array after
    /// the work that wrote it, and later work on the result runs after the copy.
    pub fn to_device(&self, to: &B) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.to_device(to)?))
    }

    /// Copies this array to another backend or device. Between two handles of one backend
    /// this is [`Array::to_device`] (device to device); between two backends it goes through
    /// host memory.
    pub fn to_backend<B2: Backend>(&self, other: &B2) -> Result<Array<T, B2>> {
        if let Some(same) = (other as &dyn std::any::Any).downcast_ref::<B>() {
            let moved: Box<dyn std::any::Any> = Box::new(self.to_device(same)?);
            if let Ok(moved) = moved.downcast::<Array<T, B2>>() {
                return Ok(*moved);
            }
        }
        Array::from_slice(other, self.dims(), &self.to_vec()?)
    }
}
