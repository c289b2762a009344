//! The statistics and vector operations composed in core (`ops/statistics.rs`,
//! `ops/linalg.rs`) as one family of [`crate::case::Op`]: their parameters and names.

use gpuarrays_core::NormOrd;

/// One composed operation with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatOp {
    /// `var(axis, ddof)`, or `std(axis, ddof)` when `std`.
    Var {
        axis: Option<usize>,
        ddof: usize,
        std: bool,
    },
    /// `logsumexp(axis)`.
    LogSumExp(Option<usize>),
    /// `norm(ord)`.
    Norm(NormOrd),
    /// `dot(a, b)`.
    Dot,
    /// `vdot(a, b)`.
    Vdot,
    /// `outer(a, b)`.
    Outer,
}

impl StatOp {
    /// The axis, for a case's description.
    pub fn axis(self) -> Option<usize> {
        match self {
            StatOp::Var { axis, .. } | StatOp::LogSumExp(axis) => axis,
            _ => None,
        }
    }

    /// Whether the result sums products of two operands (dot, vdot).
    pub fn sums_products(self) -> bool {
        matches!(self, StatOp::Dot | StatOp::Vdot)
    }
}
