//! Capability queries: which element types a backend can run for which kind of operation,
//! and the one generic check that turns a "no" into a structured error (third seed).
//!
//! Checked at allocation and at dispatch, before anything is computed, so an unsupported
//! type is reported, never mis-computed.

use std::fmt;

use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The kinds of operation a backend is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Allocation and host/device/device copies.
    Storage,
    /// Fused elementwise expressions (including fill, casts, views materialised by copy,
    /// random numbers).
    Elementwise,
    /// Reductions (sum, prod, min, max, argmin, argmax, any, all).
    Reduce,
    /// Cumulative sums and products.
    Scan,
    /// Sorting.
    Sort,
    /// Finding indices where a mask is true.
    Find,
    /// Matrix multiplication.
    Matmul,
}

impl OpKind {
    pub const ALL: [OpKind; 7] = [
        OpKind::Storage,
        OpKind::Elementwise,
        OpKind::Reduce,
        OpKind::Scan,
        OpKind::Sort,
        OpKind::Find,
        OpKind::Matmul,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            OpKind::Storage => "storage",
            OpKind::Elementwise => "elementwise",
            OpKind::Reduce => "reduce",
            OpKind::Scan => "scan",
            OpKind::Sort => "sort",
            OpKind::Find => "find",
            OpKind::Matmul => "matmul",
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend's answer to "can you run `dtype` for `op`?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Yes,
    No {
        /// Why not, in the backend's terms, e.g. "the adapter lacks SHADER_F64".
        reason: String,
        /// What to use instead, e.g. "use f32".
        alternative: Option<String>,
    },
}

impl Support {
    pub fn no(reason: impl Into<String>, alternative: Option<&str>) -> Support {
        Support::No {
            reason: reason.into(),
            alternative: alternative.map(str::to_string),
        }
    }

    pub fn is_yes(&self) -> bool {
        matches!(self, Support::Yes)
    }
}

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
