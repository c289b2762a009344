//! The one error type of gpuarrays-core. Every variant says what was wrong and, where there
//! is one, what to do instead: these messages are what users see.
//!
//! [`Error::kind`] names the variant without its data ([`ErrorKind`]), for programs and
//! tests that compare errors (the conformance suite checks that a backend fails with the
//! same kind as the reference). Its match is exhaustive, with no catch-all, so a new variant
//! cannot be added without giving it a kind.

use crate::capability::OpKind;
use std::fmt;

use crate::dtype::DType;

/// Result alias used throughout gpuarrays.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a gpuarrays operation.
///
/// `Debug` prints what `Display` prints, after the variant's name, with the causes that the
/// message does not already contain, one per line: it is what a `main` returning
/// `Result<(), Error>` shows, so it is written for people (the fields of nested backend
/// errors, dumped structurally, ran to thousands of characters).
#[derive(thiserror::Error)]
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

    /// Two values that must share an element type do not (the operands of a binary
    /// operation, an array and the value written into it, an array and the type asked for).
    #[error(
        "{op}: element types {lhs} and {rhs} differ, and they must be the same; cast one side first (e.g. `.cast(DType::{lhs:?})`)"
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

    /// An index array holding a position outside the indexed axis (gathers and scatters
    /// under [`IndexMode::Raise`](crate::kernel::IndexMode), `bincount` of a negative value).
    #[error("{op}: index {index} is out of range for an axis of {len} elements; {hint}")]
    IndexOutOfRange {
        op: String,
        index: i64,
        len: usize,
        hint: String,
    },

    /// A view reaches outside its array.
    #[error("view {ranges:?} is out of bounds for an array of shape {dims:?}")]
    ViewOutOfBounds {
        dims: Vec<usize>,
        ranges: Vec<std::ops::Range<usize>>,
    },

    /// A derived array (reshape, flatten, reinterpret) that a strided view's layout cannot
    /// give without moving elements.
    #[error(
        "{op} of a strided view (shape {dims:?}, strides {strides:?}) cannot share its buffer: \
         {reason}; make it contiguous first with `contiguous()` (a copy)"
    )]
    NonContiguousView {
        op: String,
        dims: Vec<usize>,
        strides: Vec<isize>,
        reason: String,
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
    /// `requested` is `None` where a library allocated for itself and did not say how much;
    /// `free` is `None` where the device cannot tell (a host allocator's refusal).
    #[error(
        "out of device memory on {device}: {}, {}{}",
        requested.map_or_else(|| "the size asked for is not known".into(), |r| format!("requested {r} bytes")),
        free.map_or_else(|| "free memory not known".into(), |f| format!("{f} bytes free")),
        hint.as_ref().map(|h| format!("; {h}")).unwrap_or_default()
    )]
    OutOfMemory {
        device: String,
        requested: Option<usize>,
        free: Option<usize>,
        hint: Option<String>,
    },

    /// Work that cannot be recorded into a graph capture ([`crate::graph`]): something that
    /// needs the host now (a read back to the host, a synchronisation, a host write), a
    /// capture inside a capture, or a backend that records no graphs.
    #[error("{what} cannot be recorded into a graph on {backend}: {reason}")]
    NotCapturable {
        what: String,
        backend: String,
        reason: String,
    },

    /// An error reported by a backend (driver, compiler, runtime library).
    #[error("{backend}: {source}")]
    Backend {
        backend: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {self}", self.kind().name())?;
        let mut parent = self.to_string();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            let message = cause.to_string();
            if !parent.contains(&message) {
                write!(f, "\n  caused by: {message}")?;
            }
            parent = message;
            next = cause.source();
        }
        Ok(())
    }
}

impl Error {
    /// Which variant this is, without its data.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::InvalidDType { .. } => ErrorKind::InvalidDType,
            Error::DTypeMismatch { .. } => ErrorKind::DTypeMismatch,
            Error::Freed => ErrorKind::Freed,
            Error::ShapeMismatch { .. } => ErrorKind::ShapeMismatch,
            Error::WrongShape { .. } => ErrorKind::WrongShape,
            Error::IndexOutOfRange { .. } => ErrorKind::IndexOutOfRange,
            Error::ViewOutOfBounds { .. } => ErrorKind::ViewOutOfBounds,
            Error::NonContiguousView { .. } => ErrorKind::NonContiguousView,
            Error::Reshape { .. } => ErrorKind::Reshape,
            Error::Reinterpret { .. } => ErrorKind::Reinterpret,
            Error::AxisOutOfRange { .. } => ErrorKind::AxisOutOfRange,
            Error::RankMismatch { .. } => ErrorKind::RankMismatch,
            Error::RankTooLarge { .. } => ErrorKind::RankTooLarge,
            Error::EmptyReduction { .. } => ErrorKind::EmptyReduction,
            Error::LengthMismatch { .. } => ErrorKind::LengthMismatch,
            Error::DeviceMismatch { .. } => ErrorKind::DeviceMismatch,
            Error::ScalarOutOfRange { .. } => ErrorKind::ScalarOutOfRange,
            Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::OutOfMemory { .. } => ErrorKind::OutOfMemory,
            Error::NotCapturable { .. } => ErrorKind::NotCapturable,
            Error::Backend { .. } => ErrorKind::Backend,
        }
    }

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

pub use crate::error_kind::ErrorKind;

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind's name is the variant's name as `Debug` prints it, for every kind.
    #[test]
    fn kind_names_are_the_variant_names() {
        let (op, d) = ("op".to_string(), DType::F32);
        let samples = [
            Error::Unsupported {
                dtype: d,
                op: OpKind::Sort,
                backend: "b".into(),
                device: "d".into(),
                reason: "r".into(),
                alternative: None,
            },
            Error::invalid_dtype("op", d, "hint"),
            Error::DTypeMismatch {
                op: op.clone(),
                lhs: d,
                rhs: d,
            },
            Error::Freed,
            Error::ShapeMismatch {
                op: op.clone(),
                lhs: vec![],
                rhs: vec![],
            },
            Error::WrongShape {
                op: op.clone(),
                expected: vec![],
                got: vec![],
            },
            Error::IndexOutOfRange {
                op: op.clone(),
                index: 3,
                len: 2,
                hint: "h".into(),
            },
            Error::ViewOutOfBounds {
                dims: vec![],
                ranges: vec![],
            },
            Error::NonContiguousView {
                op: op.clone(),
                dims: vec![],
                strides: vec![],
                reason: "r".into(),
            },
            Error::Reshape {
                from: vec![],
                count: 0,
                to: vec![],
                reason: "r".into(),
            },
            Error::Reinterpret {
                from: d,
                to: d,
                reason: "r".into(),
            },
            Error::AxisOutOfRange {
                op: op.clone(),
                axis: 1,
                ndim: 1,
            },
            Error::RankMismatch {
                op: op.clone(),
                expected: "2".into(),
                got: 1,
            },
            Error::RankTooLarge { max: 8, got: 9 },
            Error::EmptyReduction { op: op.clone() },
            Error::LengthMismatch {
                op: op.clone(),
                expected: 1,
                got: 2,
            },
            Error::DeviceMismatch {
                op: op.clone(),
                a: "a".into(),
                b: "b".into(),
            },
            Error::ScalarOutOfRange {
                value: "1".into(),
                dtype: d,
            },
            Error::invalid_arg("op", "reason"),
            Error::OutOfMemory {
                device: "d".into(),
                requested: Some(1),
                free: None,
                hint: None,
            },
            Error::NotCapturable {
                what: "a read".into(),
                backend: "b".into(),
                reason: "r".into(),
            },
            Error::backend("test", std::io::Error::other("driver")),
        ];
        let kinds: Vec<ErrorKind> = samples.iter().map(Error::kind).collect();
        assert_eq!(kinds, ErrorKind::ALL, "one sample per variant, in order");
        for e in samples {
            let debug = format!("{e:?}");
            let variant: String = debug.chars().take_while(|c| c.is_alphanumeric()).collect();
            assert_eq!(e.kind().name(), variant);
            assert_eq!(e.kind().to_string(), variant);
        }
        let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(k.name()), Some(k));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len(), "kind names are distinct");
        assert_eq!(ErrorKind::from_name("other"), None);
    }
}
