//! The one error type of gpuarrays-core. Every variant says what was wrong and, where there
//! is one, what to do instead: these messages are what users see.

use crate::capability::OpKind;
use crate::dtype::DType;

/// Result alias used throughout gpuarrays.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a gpuarrays operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The backend cannot run this element type for this kind of operation.
    #[error(
        "{dtype} is not supported by {backend} on '{device}' for {op}: {reason}{}",
        alternative.as_ref().map(|a| format!("; {a}")).unwrap_or_default()
    )]
    Unsupported {
        dtype: DType,
        op: OpKind,
        backend: String,
        device: String,
        reason: String,
        /// What to use instead, e.g. "use f32".
        alternative: Option<String>,
    },

    /// The operation is not defined for this element type on any backend (e.g. `sqrt` of an
    /// integer, `min` of a complex number).
    #[error("{op} is not defined for {dtype}: {hint}")]
    InvalidDType {
        op: String,
        dtype: DType,
        hint: String,
    },

    /// Two operands of a binary operation have different element types.
    #[error(
        "{op} needs operands of one element type, got {lhs} and {rhs}; cast one side first (e.g. `.cast(DType::{lhs:?})`)"
    )]
    DTypeMismatch { op: String, lhs: DType, rhs: DType },

    /// The array's buffer was released for every holder by `free_all_shared()`.
    #[error("the array's buffer was released by free_all_shared(); it can no longer be used")]
    Freed,

    /// Shapes that do not broadcast together (NumPy rules: trailing dimensions equal or 1).
    #[error(
        "shapes {lhs:?} and {rhs:?} do not broadcast in {op}: trailing dimensions must be equal or 1"
    )]
    ShapeMismatch {
        op: String,
        lhs: Vec<usize>,
        rhs: Vec<usize>,
    },

    /// A destination or operand has the wrong shape for an operation that needs exact shapes.
    #[error("{op} expected shape {expected:?}, got {got:?}")]
    WrongShape {
        op: String,
        expected: Vec<usize>,
        got: Vec<usize>,
    },

    /// A view reaches outside its array.
    #[error("view {ranges:?} is out of bounds for an array of shape {dims:?}")]
    ViewOutOfBounds {
        dims: Vec<usize>,
        ranges: Vec<std::ops::Range<usize>>,
    },

    /// A view whose elements are not one contiguous row-major run.
    #[error(
        "view {ranges:?} of an array of shape {dims:?} is not contiguous: only the first \
         partially-selected axis may select a sub-range, every axis before it must select one \
         index and every axis after it must be whole; copy the data with `permute`/`copy` instead"
    )]
    NonContiguousView {
        dims: Vec<usize>,
        ranges: Vec<std::ops::Range<usize>>,
    },

    /// A reshape that changes the element count or cannot infer its free dimension.
    #[error("cannot reshape {from:?} ({count} elements) into {to:?}: {reason}")]
    Reshape {
        from: Vec<usize>,
        count: usize,
        to: Vec<isize>,
        reason: String,
    },

    /// A reinterpret whose byte size or alignment does not fit the new element type.
    #[error("cannot reinterpret {from} as {to}: {reason}")]
    Reinterpret {
        from: DType,
        to: DType,
        reason: String,
    },

    /// An axis argument outside `0..ndim`.
    #[error("axis {axis} is out of range for {op} on an array with {ndim} dimensions")]
    AxisOutOfRange {
        op: String,
        axis: usize,
        ndim: usize,
    },

    /// An operation that needs a particular number of dimensions.
    #[error("{op} needs {expected}, got an array with {got} dimensions")]
    RankMismatch {
        op: String,
        expected: String,
        got: usize,
    },

    /// More dimensions than kernels index.
    #[error("arrays have at most {max} dimensions, got {got}")]
    RankTooLarge { max: usize, got: usize },

    /// A reduction without identity over zero elements (min, max, argmin, argmax).
    #[error("{op} of an empty array (or along an empty axis) has no value; check the length first")]
    EmptyReduction { op: String },

    /// Host data whose length does not match the requested shape.
    #[error("{op}: expected {expected} elements, got {got}")]
    LengthMismatch {
        op: String,
        expected: usize,
        got: usize,
    },

    /// Operands that live on different devices or backends.
    #[error(
        "{op}: operands live on different devices ({a} and {b}); move data explicitly with `Array::to_backend`"
    )]
    DeviceMismatch { op: String, a: String, b: String },

    /// A scalar that cannot be represented in the element type of the expression.
    #[error(
        "scalar {value} cannot be represented as {dtype}; use a {dtype} value or cast the array"
    )]
    ScalarOutOfRange { value: String, dtype: DType },

    /// An argument outside what the operation accepts.
    #[error("{op}: {reason}")]
    InvalidArgument { op: String, reason: String },

    /// Device memory ran out, after cached memory was released and the allocation retried.
    #[error("out of device memory on {device}: requested {requested} bytes, {free} bytes free{}", hint.as_ref().map(|h| format!("; {h}")).unwrap_or_default())]
    OutOfMemory {
        device: String,
        requested: usize,
        free: usize,
        hint: Option<String>,
    },

    /// An error reported by a backend (driver, compiler, runtime library).
    #[error("{backend}: {source}")]
    Backend {
        backend: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

impl Error {
    /// Wraps a backend's own error type.
    pub fn backend(
        backend: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Backend {
            backend: backend.into(),
            source: Box::new(source),
        }
    }

    pub(crate) fn invalid_dtype(op: &str, dtype: DType, hint: impl Into<String>) -> Self {
        Error::InvalidDType {
            op: op.to_string(),
            dtype,
            hint: hint.into(),
        }
    }

    pub(crate) fn invalid_arg(op: &str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            op: op.to_string(),
            reason: reason.into(),
        }
    }
}
