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
/// Returns (primary, auxiliary) pairs.
pub fn needs(c: &ExtraCase, t: gpuarrays_core::DType) -> [Pairs; 2] {
    use gpuarrays_core::DType;
    use gpuarrays_core::OpKind::*;
    let mut n: [Pairs; 2] = Default::default();
    match c {
        ExtraCase::RepeatCounts(_) => n[1].extend([
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
            n[0].push((start.dtype(), Elementwise));
            n[1].extend([(DType::I64, Elementwise), (DType::Bool, Elementwise)]);
        }
        ExtraCase::Einsum(_) => {
            n[1].extend([(t, Elementwise), (t, Reduce), (t, Matmul)]);
        }
    }
    n
}

/// (element type, operation kind) pairs.
pub type Pairs = Vec<(gpuarrays_core::DType, gpuarrays_core::OpKind)>;
