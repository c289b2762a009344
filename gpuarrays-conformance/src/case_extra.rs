//! The array extras of core (`repeat_counts`, `logspace`, `einsum`) as one family of
//! [`crate::case::Op`]: their parameters and descriptions. (`pad`'s `reflect` and
//! `symmetric` modes are rows of [`crate::case::Op::Pad`].)

use gpuarrays_core::Scalar;

/// One extra operation with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExtraCase {
    /// `a.repeat_counts(counts, axis)`; inputs: the array, then the counts.
    RepeatCounts(Option<usize>),
    /// `logspace(start, stop, num, endpoint, base)` in the type of `start` (no inputs).
    Logspace {
        start: Scalar,
        stop: Scalar,
        num: usize,
        endpoint: bool,
        base: Scalar,
    },
    /// `einsum(subscripts, inputs)`.
    Einsum(&'static str),
}

impl ExtraCase {
    /// The parameters, for a case's description.
    pub fn label(&self) -> String {
        match self {
            ExtraCase::RepeatCounts(axis) => format!(" counts along axis {axis:?}"),
            ExtraCase::Logspace {
                start,
                stop,
                num,
                endpoint,
                base,
            } => format!(
                " {start}..{stop} num {num} base {base}{}",
                if *endpoint { "" } else { " no endpoint" }
            ),
            ExtraCase::Einsum(s) => format!(" \"{s}\""),
        }
    }
}

/// The (type, kind) pairs an extra needs, all auxiliary: each is composed in core of
/// copies, expressions, reductions, scans, gathers, scatters and matrix products, which
/// of them depending on the case (`t`: the first input's type).
pub fn needs(c: &ExtraCase, t: gpuarrays_core::DType, n: &mut crate::requirements::Needs) {
    use gpuarrays_core::DType;
    use gpuarrays_core::OpKind::*;
    match c {
        ExtraCase::RepeatCounts(_) => n.auxiliary.extend([
            (t, Elementwise),
            (t, Gather),
            (DType::I64, Storage),
            (DType::I64, Elementwise),
            (DType::I64, Reduce),
            (DType::I64, Scan),
            (DType::I64, Gather),
            (DType::I64, Scatter),
            (DType::Bool, Elementwise),
            (DType::Bool, Reduce),
        ]),
        ExtraCase::Logspace { start, .. } => {
            n.primary.push((start.dtype(), Elementwise));
            n.auxiliary
                .extend([(DType::I64, Elementwise), (DType::Bool, Elementwise)]);
        }
        ExtraCase::Einsum(_) => {
            n.auxiliary
                .extend([(t, Elementwise), (t, Reduce), (t, Matmul)]);
        }
    }
}
