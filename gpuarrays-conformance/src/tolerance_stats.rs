//! Tolerances of the operations core composes ([`StatOp`]): each is a few sums and
//! elementwise steps, so each allowance is a sum's ([`accumulation_units`]) plus a few ε for
//! the steps around it, measured against what was summed.

use gpuarrays_core::NormOrd;

use crate::case::StatOp;
use crate::host::HostArray;
use crate::oracle::{magnitude, matmul_magnitudes};
use crate::tolerance::{Scale, Tolerance, accumulation_units};

/// Per lane of a reduction along `axis`: (n, the lane's magnitudes).
fn lanes(a: &HostArray, axis: Option<usize>) -> (usize, Vec<Vec<f64>>) {
    let dims = &a.dims;
    let (outer, len, inner) = match axis {
        None => (1, dims.iter().product(), 1),
        Some(ax) if ax < dims.len() => (
            dims[..ax].iter().product(),
            dims[ax],
            dims[ax + 1..].iter().product(),
        ),
        Some(_) => return (0, Vec::new()),
    };
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            out.push(
                (0..len)
                    .map(|k| magnitude(a.data.get(o * len * inner + k * inner + i)))
                    .collect(),
            );
        }
    }
    (len, out)
}

fn eps(units: f64, scale: Scale) -> Tolerance {
    Tolerance::Eps { units, scale }
}

/// A variance's error is absolute: each deviation carries the mean's error (up to the
/// lane's Σ|x|/n) and its own rounding, so it is measured against Σ(|x| + Σ|x|/n)² over
/// the divisor; a standard deviation's against the square root of that.
fn variance(a: &HostArray, axis: Option<usize>, ddof: usize, std: bool) -> Tolerance {
    let (n, lanes) = lanes(a, axis);
    let div = n.saturating_sub(ddof).max(1) as f64;
    let scale = lanes
        .iter()
        .map(|l| {
            let mean = l.iter().sum::<f64>() / (l.len().max(1) as f64);
            let s = l.iter().map(|x| (x + mean) * (x + mean)).sum::<f64>() / div;
            if std { s.sqrt() } else { s }
        })
        .collect();
    eps(accumulation_units(n) + 8.0, Scale::PerElement(scale))
}

/// The tolerance of `op` on `a` (and `b`), whose expected result is `expected`.
pub fn tolerance(
    op: StatOp,
    a: &HostArray,
    b: Option<&HostArray>,
    expected: &HostArray,
) -> Tolerance {
    let complex = a.dtype().is_complex();
    match op {
        StatOp::Var { axis, ddof, std } => variance(a, axis, ddof, std),
        // m + log Σ exp(x − m): every term is at most 1 and one is 1, so the sum's relative
        // error (the sum's units, plus exp's) is the log's absolute error.
        StatOp::LogSumExp(axis) => {
            let (n, _) = lanes(a, axis);
            let s = expected
                .data
                .scalars()
                .map(|v| magnitude(v) + 1.0)
                .collect();
            eps(accumulation_units(n) + 16.0, Scale::PerElement(s))
        }
        StatOp::Norm(ord) => {
            let n = a.len();
            match ord {
                NormOrd::Two => eps(accumulation_units(n) + 8.0, Scale::Value),
                NormOrd::One => eps(accumulation_units(n) + 4.0, Scale::Value),
                NormOrd::Inf => eps(4.0, Scale::Value),
            }
        }
        StatOp::Dot | StatOp::Vdot => {
            let Some(b) = b else {
                return Tolerance::Exact;
            };
            let flat = op == StatOp::Vdot;
            let k = if flat {
                a.len()
            } else {
                a.dims.last().copied().unwrap_or(0)
            };
            let two_d = |x: &HostArray, row: bool| {
                let dims = match (flat, x.dims.len(), row) {
                    (true, _, true) | (false, 1, true) => vec![1, x.len()],
                    (true, _, false) | (false, 1, false) => vec![x.len(), 1],
                    _ => x.dims.clone(),
                };
                HostArray::new(dims, x.data.clone())
            };
            let s = matmul_magnitudes(&two_d(a, true), &two_d(b, false));
            eps(accumulation_units(k), Scale::PerElement(s))
        }
        StatOp::Outer if complex => eps(8.0, Scale::Value),
        StatOp::Outer => eps(2.0, Scale::Value),
    }
}
