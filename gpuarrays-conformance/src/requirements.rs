//! Which (element type, operation kind) pairs a case needs from a backend, so that a backend
//! saying "no" to one of them is checked for reporting `Error::Unsupported` instead of
//! computing.
//!
//! `primary` pairs are certainly checked (the case's own element types); `auxiliary` pairs
//! are helper types that core may or may not need depending on how it lowers the operation
//! (the i64 index of `arange`, the u64 seed of random draws, bool masks, i64 positions): a
//! backend refusing one of those may report `Unsupported` for it or succeed.

use gpuarrays_core::{Backend, DType, OpKind};

use crate::case::{Case, IndexCase, Layout, Op};

/// The pairs a case needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Needs {
    pub primary: Vec<(DType, OpKind)>,
    pub auxiliary: Vec<(DType, OpKind)>,
}

impl Needs {
    /// The element types of pairs in `pairs` that `backend` refuses.
    pub fn refused<B: Backend>(backend: &B, pairs: &[(DType, OpKind)]) -> Vec<DType> {
        let mut out: Vec<DType> = pairs
            .iter()
            .filter(|(d, k)| !backend.supports(*d, *k).is_yes())
            .map(|(d, _)| *d)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// The pairs `case` needs.
pub fn needs(case: &Case) -> Needs {
    use OpKind::*;
    let mut n = Needs::default();
    for i in &case.inputs {
        n.primary.push((i.array.dtype(), Storage));
        if i.layout == Layout::Reinterpret {
            n.auxiliary.push((DType::U8, Storage));
        }
    }
    let t = case
        .inputs
        .first()
        .map(|i| i.array.dtype())
        .unwrap_or(DType::Bool);
    let inputs: Vec<DType> = case.inputs.iter().map(|i| i.array.dtype()).collect();
    let each = |kind: OpKind, n: &mut Needs| {
        for &d in &inputs {
            n.primary.push((d, kind));
        }
    };
    match &case.op {
        Op::Unary(op) => {
            each(Elementwise, &mut n);
            // A result of another type (abs, real, imag, angle of complex; isnan ... of
            // anything: bool) is a type the backend must also support.
            if let Some(r) = op.result_dtype(t).ok().filter(|&r| r != t) {
                n.auxiliary.push((r, Elementwise));
            }
        }
        Op::Binary(_) | Op::BinaryLit(_) => {
            each(Elementwise, &mut n);
            n.auxiliary.push((DType::Bool, Elementwise));
        }
        Op::Cast(to) => {
            each(Elementwise, &mut n);
            n.primary.push((*to, Elementwise));
            n.primary.push((*to, Storage));
        }
        Op::Select | Op::Fused | Op::EvalInto { .. } | Op::BroadcastTo(_) => {
            each(Elementwise, &mut n)
        }
        // Views: a copy (an elementwise kernel) only where the result is not already
        // contiguous (an identity permutation, an empty or 0-d array needs none), so a
        // backend holding the type but refusing its kernels may compute those.
        Op::Reverse(_) | Op::Permute(_) | Op::Transpose => {
            for &d in &inputs {
                n.auxiliary.push((d, Elementwise));
            }
        }
        Op::Fill(_) | Op::FftShift { .. } => each(Elementwise, &mut n),
        Op::Full { value, .. } => n.primary.push((value.dtype(), Elementwise)),
        Op::Zeros { dtype, .. } | Op::Ones { dtype, .. } => n.primary.push((*dtype, Elementwise)),
        Op::Arange { start, .. } => {
            n.primary.push((start.dtype(), Elementwise));
            n.auxiliary.push((DType::I64, Elementwise));
        }
        Op::Linspace { start, .. } => {
            n.primary.push((start.dtype(), Elementwise));
            n.auxiliary.push((DType::I64, Elementwise));
            n.auxiliary.push((DType::Bool, Elementwise));
        }
        Op::Band { dtype, .. } => {
            n.primary.push((*dtype, Elementwise));
            n.auxiliary.push((DType::I64, Elementwise));
            n.auxiliary.push((DType::Bool, Elementwise));
        }
        Op::Meshgrid { .. }
        | Op::Concatenate(_)
        | Op::Stack(_)
        | Op::ArraySplit { .. }
        | Op::Tile(_)
        | Op::Repeat { .. }
        | Op::Pad { .. } => {
            each(Elementwise, &mut n);
            if let Op::Pad {
                mode: gpuarrays_core::Pad::Reflect | gpuarrays_core::Pad::Symmetric,
                ..
            } = &case.op
            {
                // The mirrored margins are a gather through an i64 index map per axis.
                n.auxiliary.extend([
                    (t, Gather),
                    (DType::I64, Storage),
                    (DType::I64, Elementwise),
                    (DType::I64, Reduce),
                    (DType::I64, Gather),
                ]);
            }
        }
        Op::Random { dtype, .. } => {
            n.primary.push((*dtype, Elementwise));
            n.auxiliary.push((DType::U64, Elementwise));
        }
        Op::Copy | Op::Assign => {}
        Op::Reduce(..) => {
            each(Reduce, &mut n);
            n.auxiliary.push((DType::I64, Reduce));
            n.auxiliary.push((DType::I64, Storage));
        }
        Op::AnyAll { .. } | Op::FindFirst => {
            if t == DType::Bool {
                n.primary.push((t, Reduce));
            } else {
                n.primary.push((t, Elementwise));
            }
            n.auxiliary
                .extend([(DType::Bool, Elementwise), (DType::Bool, Reduce)]);
            n.auxiliary
                .extend([(DType::I64, Reduce), (DType::I64, Storage)]);
        }
        Op::Mean(_) => {
            each(Reduce, &mut n);
            each(Elementwise, &mut n);
        }
        Op::Scan(..) => each(Scan, &mut n),
        Op::Sort => each(Sort, &mut n),
        Op::Find => {
            if t == DType::Bool {
                n.primary.push((t, Find));
            } else {
                n.primary.push((t, Elementwise));
            }
            n.auxiliary
                .extend([(DType::Bool, Find), (DType::Bool, Elementwise)]);
            n.auxiliary
                .extend([(DType::I64, Find), (DType::I64, Storage)]);
        }
        Op::Matmul => each(Matmul, &mut n),
        Op::Extra(c) => {
            let [primary, auxiliary] = crate::case_extra::needs(c, t);
            n.primary.extend(primary);
            n.auxiliary.extend(auxiliary);
        }
        Op::Stat(s) => {
            // Composed in core: products, reductions and expressions, in the input's type,
            // its real type (results of complex input) and f64 (integers are converted).
            if s.sums_products() {
                each(Matmul, &mut n);
            }
            each(Elementwise, &mut n);
            n.auxiliary.extend([
                (t, Reduce),
                (t.real(), Reduce),
                (t.real(), Elementwise),
                (DType::F64, Reduce),
                (DType::F64, Elementwise),
                (DType::Bool, Elementwise),
            ]);
        }
        Op::Index(c) => {
            // The moved type gathers or scatters; indices are converted to i64 and checked
            // with an expression and reductions; masks are found; bincount may sum f64
            // weights; argwhere stacks its columns.
            match c {
                IndexCase::Nonzero(_) | IndexCase::Argwhere | IndexCase::Bincount(_) => {
                    n.auxiliary.extend([(t, Elementwise), (t, Reduce)]);
                }
                c if c.in_place() => n.primary.push((t, Scatter)),
                _ => n.primary.push((t, Gather)),
            }
            n.auxiliary.extend([
                (DType::I64, Storage),
                (DType::I64, Elementwise),
                (DType::I64, Reduce),
                (DType::I64, Gather),
                (DType::I64, Scatter),
                (DType::Bool, Elementwise),
                (DType::Bool, Reduce),
                (DType::Bool, Find),
                (DType::I64, Find),
                (DType::F64, Storage),
                (DType::F64, Elementwise),
                (DType::F64, Scatter),
                (t, Elementwise),
            ]);
            for &d in inputs.iter().skip(1) {
                n.auxiliary.push((d, Elementwise));
            }
        }
        Op::Order(c) => {
            // Keys are computed elementwise from the values and sorted as u64 words with
            // positions; values and positions are gathered; unique and searchsorted join,
            // select, scan and scatter i64 positions.
            if c.sorts_values() {
                n.primary.push((t, Sort));
            } else {
                n.primary.push((t, Elementwise));
            }
            n.auxiliary
                .extend([(t, Gather), (t, Sort), (t, Elementwise), (t, Storage)]);
            for d in [DType::U64, DType::U32, DType::I64, DType::Bool] {
                for k in [
                    Storage,
                    Elementwise,
                    Sort,
                    Gather,
                    Scatter,
                    Scan,
                    Find,
                    Reduce,
                ] {
                    n.auxiliary.push((d, k));
                }
            }
        }
        Op::Fft(_) => {
            each(Fft, &mut n);
            // The precision's other type (the spectrum of real data, the real result of
            // irfft), and the copies and scaling core may lower to.
            let other = if t.is_complex() {
                t.real()
            } else if t == DType::F32 {
                DType::C32
            } else {
                DType::C64
            };
            n.primary.push((other, Fft));
            n.auxiliary.extend([
                (other, Storage),
                (other, Elementwise),
                (t, Elementwise),
                (t.real(), Elementwise),
            ]);
        }
    }
    n
}
