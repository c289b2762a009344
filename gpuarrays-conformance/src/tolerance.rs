//! How close a finite result must be to the reference, per operation and element type (the
//! table is in the crate documentation). Bool and integer results are always exact. A float
//! or complex element passes when `|got − expected| ≤ units · ε · scale`, with ε the machine
//! epsilon of the (real) type and `scale` either `|expected|` or a bound on the magnitude of
//! what was summed. Special values (NaN, infinities, signed zeros) follow
//! [`crate::criterion`].

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, Distribution, ReduceOp, ScanOp, UnaryOp};

use crate::case::{Case, ExtraCase, Op};
use crate::host::HostArray;
use crate::oracle::magnitude;

/// What the error of one element is measured against.
#[derive(Debug, Clone, PartialEq)]
pub enum Scale {
    /// `max(|expected|, smallest normal)`: relative error.
    Value,
    /// `max(|expected|, 1)`: relative, but absolute near zero (sin, cos, normal draws).
    ValueOrOne,
    /// One magnitude per element (e.g. Σ|x| of the summed values), floored at the smallest
    /// normal; `Value` for elements beyond the vector.
    PerElement(Vec<f64>),
}

/// The tolerance of one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Tolerance {
    /// Equal values (special values as [`crate::criterion`] says).
    Exact,
    /// `|got − expected| ≤ units · ε · scale`.
    Eps { units: f64, scale: Scale },
}

impl Tolerance {
    fn eps(units: f64, scale: Scale) -> Self {
        Tolerance::Eps { units, scale }
    }
}

/// The allowance, in ε, of a sum (or product, or dot product) of `n` terms: the worst case
/// of any order is `n`; rounding errors of random data in any order grow like √n, so the
/// suite uses `min(n + 2, 4√n + 16)`.
pub fn accumulation_units(n: usize) -> f64 {
    let n = n as f64;
    (n + 2.0).min(4.0 * n.sqrt() + 16.0)
}

/// The tolerance of `case`, whose expected result is `expected`.
pub fn tolerance(case: &Case, expected: &HostArray) -> Tolerance {
    let t = expected.dtype();
    if !(t.is_float() || t.is_complex()) {
        return Tolerance::Exact;
    }
    let input = |k: usize| case.inputs.get(k).map(|i| &i.array);
    match &case.op {
        Op::Unary(op) => match op {
            UnaryOp::Abs if input(0).is_some_and(|a| a.dtype().is_complex()) => {
                Tolerance::eps(4.0, Scale::Value)
            }
            UnaryOp::Sqrt => Tolerance::eps(2.0, Scale::Value),
            UnaryOp::Exp | UnaryOp::Log | UnaryOp::Tanh => Tolerance::eps(8.0, Scale::Value),
            // Compositions of exp, log, sin/cos and Cephes' atan (core's lowering), each a
            // few ulps on top of its parts.
            UnaryOp::Log1p
            | UnaryOp::Expm1
            | UnaryOp::Tan
            | UnaryOp::Atan
            | UnaryOp::Asin
            | UnaryOp::Acos
            | UnaryOp::Sinh
            | UnaryOp::Cosh
            | UnaryOp::Sigmoid
            | UnaryOp::Angle => Tolerance::eps(8.0, Scale::Value),
            UnaryOp::Sin | UnaryOp::Cos => Tolerance::eps(8.0, Scale::ValueOrOne),
            _ => Tolerance::Exact,
        },
        Op::Binary(op) | Op::BinaryLit(op) => match op {
            BinaryOp::Add | BinaryOp::Sub => Tolerance::eps(2.0, Scale::Value),
            BinaryOp::Mul | BinaryOp::Div if t.is_complex() => Tolerance::eps(8.0, Scale::Value),
            BinaryOp::Mul | BinaryOp::Div => Tolerance::eps(2.0, Scale::Value),
            BinaryOp::Pow => Tolerance::eps(16.0, Scale::Value),
            BinaryOp::Atan2 => Tolerance::eps(8.0, Scale::Value),
            BinaryOp::Hypot => Tolerance::eps(4.0, Scale::Value),
            _ => Tolerance::Exact,
        },
        Op::Fused => match (input(0), input(1)) {
            (Some(a), Some(b)) => {
                let s =
                    crate::oracle::scale_map(&[a, b], |v| 4.0 * magnitude(v[0]) + magnitude(v[1]));
                Tolerance::eps(4.0, Scale::PerElement(s))
            }
            _ => Tolerance::Exact,
        },
        Op::EvalInto { .. } => Tolerance::eps(2.0, Scale::Value),
        Op::Arange { start, step, len } => {
            let s = (0..*len)
                .map(|i| i as f64 * magnitude(*step) + magnitude(*start))
                .collect();
            Tolerance::eps(4.0, Scale::PerElement(s))
        }
        // start + i·step like arange, with the step's own rounding: |stop − start| bounds
        // every i·|step|.
        Op::Linspace {
            start, stop, num, ..
        } => {
            let span = magnitude(*stop) + magnitude(*start);
            Tolerance::eps(4.0, Scale::PerElement(vec![span + magnitude(*start); *num]))
        }
        Op::Reduce(ReduceOp::Sum, axis) => lanes(input(0), *axis, false, 0.0),
        Op::Reduce(ReduceOp::Prod, axis) => match input(0) {
            Some(a) => Tolerance::eps(accumulation_units(lane_len(&a.dims, *axis)), Scale::Value),
            None => Tolerance::Exact,
        },
        Op::Mean(axis) => lanes(input(0), *axis, true, 2.0),
        Op::Scan(ScanOp::Sum, axis) => match input(0) {
            Some(a) => Tolerance::eps(
                accumulation_units(lane_len(&a.dims, Some(*axis))),
                Scale::PerElement(crate::oracle::prefix_magnitudes(a, *axis)),
            ),
            None => Tolerance::Exact,
        },
        Op::Scan(ScanOp::Prod, axis) => match input(0) {
            Some(a) => Tolerance::eps(
                accumulation_units(lane_len(&a.dims, Some(*axis))),
                Scale::Value,
            ),
            None => Tolerance::Exact,
        },
        Op::Random {
            dist: Distribution::Normal,
            ..
        } => Tolerance::eps(64.0, Scale::ValueOrOne),
        Op::Matmul => match (input(0), input(1)) {
            (Some(a), Some(b)) => {
                let k = a.dims.last().copied().unwrap_or(0);
                Tolerance::eps(
                    accumulation_units(k),
                    Scale::PerElement(crate::oracle::matmul_magnitudes(a, b)),
                )
            }
            _ => Tolerance::Exact,
        },
        Op::Stat(s) => match input(0) {
            Some(a) => crate::tolerance_stats::tolerance(*s, a, input(1), expected),
            None => Tolerance::Exact,
        },
        Op::Index(c) if c.adds() || matches!(c, crate::case::IndexCase::Bincount(_)) => {
            // Sums of several updates in an order the backend chooses: every element is
            // bounded by what its buffer held plus everything added (a loose, safe bound).
            let magnitude_of = |k: usize| -> f64 {
                input(k).map_or(0.0, |a| {
                    a.data.scalars().map(crate::oracle::magnitude).sum()
                })
            };
            let bound = magnitude_of(0).max(0.0) + magnitude_of(2) + magnitude_of(1);
            let n = input(2).or(input(0)).map_or(0, |v| v.len());
            Tolerance::eps(
                accumulation_units(n) + 2.0,
                Scale::PerElement(vec![bound; expected.len()]),
            )
        }
        Op::Extra(ExtraCase::Einsum(spec)) => {
            let ins: Vec<&HostArray> = case.inputs.iter().map(|i| &i.array).collect();
            match crate::oracle::einsum_with_bounds(spec, &ins) {
                Ok((_, bounds, terms)) => {
                    Tolerance::eps(accumulation_units(terms) + 2.0, Scale::PerElement(bounds))
                }
                Err(_) => Tolerance::Exact,
            }
        }
        // The elementwise power (as `BinaryOp::Pow`) of an exponent computed as linspace
        // computes it, whose few ulps grow by |y·ln(base)| through the power.
        Op::Extra(ExtraCase::Logspace {
            start, stop, base, ..
        }) => {
            let y = magnitude(*start).max(magnitude(*stop));
            let ln = crate::oracle::value::real(*base).abs().ln().abs();
            Tolerance::eps(16.0 + 8.0 * y * ln, Scale::Value)
        }
        Op::Fft(f) => match input(0) {
            Some(a) => match crate::oracle::fft_tolerance(f, a) {
                Some((units, scale)) => Tolerance::eps(units, Scale::PerElement(scale)),
                None => Tolerance::Exact,
            },
            None => Tolerance::Exact,
        },
        _ => Tolerance::Exact,
    }
}

fn lane_len(dims: &[usize], axis: Option<usize>) -> usize {
    match axis {
        None => dims.iter().product(),
        Some(ax) => dims.get(ax).copied().unwrap_or(0),
    }
}

/// Sum-like tolerance: Σ|x| per lane (divided by the lane length for means).
fn lanes(a: Option<&HostArray>, axis: Option<usize>, mean: bool, extra: f64) -> Tolerance {
    let Some(a) = a else {
        return Tolerance::Exact;
    };
    let n = lane_len(&a.dims, axis);
    let mut s = crate::oracle::lane_magnitudes(a, axis);
    if mean && n > 0 {
        s.iter_mut().for_each(|x| *x /= n as f64);
    }
    Tolerance::eps(accumulation_units(n) + extra, Scale::PerElement(s))
}

/// ε of the real type underlying `t`.
pub fn epsilon(t: DType) -> f64 {
    match t.real() {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    }
}

/// The smallest magnitude that rounds to infinity in the real type underlying `t` (the
/// largest finite value plus half a unit in its last place; infinite for f64, where that
/// is not a number the comparison can measure from, so an f64 overflow is never forgiven).
pub fn overflow_threshold(t: DType) -> f64 {
    match t.real() {
        DType::F16 => 65520.0,
        DType::BF16 => (2.0 - 2f64.powi(-8)) * 2f64.powi(127),
        DType::F32 => (2.0 - 2f64.powi(-24)) * 2f64.powi(127),
        _ => f64::INFINITY,
    }
}

/// The smallest positive normal of the real type underlying `t`.
pub fn tiny(t: DType) -> f64 {
    match t.real() {
        DType::F16 => 2f64.powi(-14),
        DType::BF16 => 2f64.powi(-126),
        DType::F32 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    }
}
