//! The variant of an error without its data, for matching and counting errors (tests,
//! the conformance suite's expected errors) without comparing messages.

use std::fmt;

/// The variant of an [`Error`](crate::Error) without its data
/// ([`Error::kind`](crate::Error::kind)); its [`name`](Self::name)
/// is the variant's name, e.g. `"InvalidDType"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    Unsupported,
    InvalidDType,
    DTypeMismatch,
    Freed,
    ShapeMismatch,
    WrongShape,
    IndexOutOfRange,
    ViewOutOfBounds,
    NonContiguousView,
    Reshape,
    Reinterpret,
    AxisOutOfRange,
    RankMismatch,
    RankTooLarge,
    EmptyReduction,
    LengthMismatch,
    DeviceMismatch,
    ScalarOutOfRange,
    InvalidArgument,
    OutOfMemory,
    NotCapturable,
    Backend,
}

impl ErrorKind {
    /// Every kind, in the order of [`Error`](crate::Error)'s variants.
    pub const ALL: [ErrorKind; 22] = [
        ErrorKind::Unsupported,
        ErrorKind::InvalidDType,
        ErrorKind::DTypeMismatch,
        ErrorKind::Freed,
        ErrorKind::ShapeMismatch,
        ErrorKind::WrongShape,
        ErrorKind::IndexOutOfRange,
        ErrorKind::ViewOutOfBounds,
        ErrorKind::NonContiguousView,
        ErrorKind::Reshape,
        ErrorKind::Reinterpret,
        ErrorKind::AxisOutOfRange,
        ErrorKind::RankMismatch,
        ErrorKind::RankTooLarge,
        ErrorKind::EmptyReduction,
        ErrorKind::LengthMismatch,
        ErrorKind::DeviceMismatch,
        ErrorKind::ScalarOutOfRange,
        ErrorKind::InvalidArgument,
        ErrorKind::OutOfMemory,
        ErrorKind::NotCapturable,
        ErrorKind::Backend,
    ];

    /// The variant's name, e.g. `"InvalidDType"` (stable: tools compare it).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::InvalidDType => "InvalidDType",
            ErrorKind::DTypeMismatch => "DTypeMismatch",
            ErrorKind::Freed => "Freed",
            ErrorKind::ShapeMismatch => "ShapeMismatch",
            ErrorKind::WrongShape => "WrongShape",
            ErrorKind::IndexOutOfRange => "IndexOutOfRange",
            ErrorKind::ViewOutOfBounds => "ViewOutOfBounds",
            ErrorKind::NonContiguousView => "NonContiguousView",
            ErrorKind::Reshape => "Reshape",
            ErrorKind::Reinterpret => "Reinterpret",
            ErrorKind::AxisOutOfRange => "AxisOutOfRange",
            ErrorKind::RankMismatch => "RankMismatch",
            ErrorKind::RankTooLarge => "RankTooLarge",
            ErrorKind::EmptyReduction => "EmptyReduction",
            ErrorKind::LengthMismatch => "LengthMismatch",
            ErrorKind::DeviceMismatch => "DeviceMismatch",
            ErrorKind::ScalarOutOfRange => "ScalarOutOfRange",
            ErrorKind::InvalidArgument => "InvalidArgument",
            ErrorKind::OutOfMemory => "OutOfMemory",
            ErrorKind::NotCapturable => "NotCapturable",
            ErrorKind::Backend => "Backend",
        }
    }

    /// Parses [`ErrorKind::name`].
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
