//! Names of error variants, for comparing a backend's error with the reference's.

use gpuarrays_core::Error;

/// The variant name of `e` (`"InvalidDType"`, `"Unsupported"`, ...).
pub fn error_kind(e: &Error) -> &'static str {
    match e {
        Error::Unsupported { .. } => "Unsupported",
        Error::InvalidDType { .. } => "InvalidDType",
        Error::DTypeMismatch { .. } => "DTypeMismatch",
        Error::Freed => "Freed",
        Error::ShapeMismatch { .. } => "ShapeMismatch",
        Error::WrongShape { .. } => "WrongShape",
        Error::ViewOutOfBounds { .. } => "ViewOutOfBounds",
        Error::NonContiguousView { .. } => "NonContiguousView",
        Error::Reshape { .. } => "Reshape",
        Error::Reinterpret { .. } => "Reinterpret",
        Error::AxisOutOfRange { .. } => "AxisOutOfRange",
        Error::RankMismatch { .. } => "RankMismatch",
        Error::RankTooLarge { .. } => "RankTooLarge",
        Error::EmptyReduction { .. } => "EmptyReduction",
        Error::LengthMismatch { .. } => "LengthMismatch",
        Error::DeviceMismatch { .. } => "DeviceMismatch",
        Error::ScalarOutOfRange { .. } => "ScalarOutOfRange",
        Error::InvalidArgument { .. } => "InvalidArgument",
        Error::OutOfMemory { .. } => "OutOfMemory",
        Error::Backend { .. } => "Backend",
        _ => "other",
    }
}
