//! The one generic check that turns a backend's "no" into a structured error, and the one
//! that turns a core type rule into the same error on every backend.
//!
//! Checked at allocation and at dispatch, before anything is computed, so an unsupported
//! type is reported, never mis-computed. The vocabulary ([`OpKind`], [`Support`],
//! [`TypeRule`]) lives in [`crate::capability`], a leaf module; only these checks need the
//! [`Backend`] trait and the error type, so they sit above both.

use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};

pub use crate::capability::{OpKind, Support, TypeRule};

/// The generic check every operation calls before dispatch: `Ok(())`, or the structured
/// [`Error::Unsupported`] naming the type, backend, device, reason and alternative.
pub fn ensure_supported<B: Backend>(backend: &B, dtype: DType, op: OpKind) -> Result<()> {
    match backend.supports(dtype, op) {
        Support::Yes => Ok(()),
        Support::No {
            reason,
            alternative,
        } => Err(Error::Unsupported {
            dtype,
            op,
            backend: backend.name().to_string(),
            device: backend.device().name.clone(),
            reason,
            alternative,
        }),
    }
}

/// `Ok(())`, or [`Error::InvalidDType`] for the operation `op_name` (e.g. "cumsum") when
/// core's [type rule](OpKind::type_rule) for `kind` excludes `dtype`. Checked before
/// [`ensure_supported`], so the answer does not depend on the backend.
pub(crate) fn ensure_type_rule(op_name: &str, dtype: DType, kind: OpKind) -> Result<()> {
    match kind.type_rule(dtype) {
        None => Ok(()),
        Some(rule) => Err(Error::invalid_dtype(op_name, dtype, rule.to_string())),
    }
}

/// The check of [`Backend::supports_fft_lengths`]: `Ok(())`, or [`Error::Unsupported`] for
/// the precision's complex type, before anything is allocated.
pub(crate) fn ensure_fft_lengths_supported<B: Backend>(
    backend: &B,
    real: DType,
    complex: DType,
    lengths: &[usize],
) -> Result<()> {
    match backend.supports_fft_lengths(real, lengths) {
        Support::Yes => Ok(()),
        Support::No {
            reason,
            alternative,
        } => Err(Error::Unsupported {
            dtype: complex,
            op: OpKind::Fft,
            backend: backend.name().to_string(),
            device: backend.device().name.clone(),
            reason,
            alternative,
        }),
    }
}
