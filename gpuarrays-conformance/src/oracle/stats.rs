//! The oracle of the operations core composes from other kernels (`var`, `std`,
//! `logsumexp`, `norm`, `dot`, `vdot`, `outer`), written from their documentation: each
//! documented step (a sum, an elementwise operation) computed wide and rounded to the
//! result's type, so overflow and special values arise where the documented steps make
//! them; sums are compensated f64 (the tolerance covers the order of the backend's sums).

use gpuarrays_core::kernel::BinaryOp;
use gpuarrays_core::{Complex64, DType, NormOrd, Scalar};

use super::elementwise::binary_value;
use super::index::{numel, split};
use super::rules::{self, EMPTY_REDUCTION, Expected, INVALID_DTYPE, RANK_MISMATCH, SHAPE_MISMATCH};
use super::value::{CompensatedSum, Wide, complex_div, from_complex, from_real, round_to, widen};
use crate::case::StatOp;
use crate::host::{HostArray, HostData};

/// The result type of a mean, variance, standard deviation or norm of `t`.
fn moment_type(t: DType) -> Result<DType, Expected> {
    match t {
        DType::Bool => Err(INVALID_DTYPE),
        DType::F16 => Ok(DType::F16),
        DType::BF16 => Ok(DType::BF16),
        DType::F32 | DType::C32 => Ok(DType::F32),
        _ => Ok(DType::F64),
    }
}

/// The type every documented step of a statistic of result type `t` is rounded to: f32 for
/// the half types (their statistics are computed in f32 and rounded once at the end), `t`
/// itself otherwise.
pub(super) fn computed_in(t: DType) -> DType {
    if matches!(t, DType::F16 | DType::BF16) {
        DType::F32
    } else {
        t
    }
}

/// A value as complex f64 (reals with a zero imaginary part; integers converted).
fn as_complex(s: Scalar) -> Complex64 {
    match widen(s) {
        Wide::Bool(b) => Complex64::new(b as u8 as f64, 0.0),
        Wide::Int(v) => Complex64::new(v as f64, 0.0),
        Wide::Real(v) => Complex64::new(v, 0.0),
        Wide::Complex(z) => z,
    }
}

/// (output dims, outer, len, inner) of a reduction over `axis` (every element for `None`).
fn lanes(dims: &[usize], axis: Option<usize>) -> Result<(Vec<usize>, [usize; 3]), Expected> {
    match axis {
        None => Ok((vec![], [1, numel(dims), 1])),
        Some(ax) => {
            rules::check_axis(ax, dims.len())?;
            let (o, l, i) = split(dims, ax);
            let mut out = dims.to_vec();
            out.remove(ax);
            Ok((out, [o, l, i]))
        }
    }
}

/// `f` of every lane, as values of `out_t`.
fn per_lane(
    a: &HostArray,
    axis: Option<usize>,
    out_t: DType,
    f: impl Fn(&[Complex64]) -> f64,
) -> Result<HostArray, Expected> {
    let (dims, [o, l, i]) = lanes(&a.dims, axis)?;
    let mut out = HostData::with_capacity(out_t, o * i);
    let mut lane = Vec::with_capacity(l);
    for p in 0..o {
        for q in 0..i {
            lane.clear();
            lane.extend((0..l).map(|k| as_complex(a.data.get(p * l * i + k * i + q))));
            out.push(from_real(f(&lane), out_t));
        }
    }
    Ok(HostArray::new(dims, out))
}

/// A compensated sum of `xs`, rounded to `t`.
fn sum(t: DType, xs: impl Iterator<Item = f64>) -> f64 {
    let mut s = CompensatedSum::default();
    xs.for_each(|x| s.add(x));
    round_to(t, s.value())
}

/// The documented steps of `var`: the mean (the sum rounded, divided by n; complex by
/// `n + 0i` with the documented division), the deviations, their squared moduli (`|d|·|d|`),
/// their sum, divided by `max(n − ddof, 0)`.
fn variance(lane: &[Complex64], ddof: usize, t: DType, complex: bool) -> f64 {
    let r = |v: f64| round_to(t, v);
    let n = lane.len() as f64;
    let (sre, sim) = (
        sum(t, lane.iter().map(|z| z.re)),
        sum(t, lane.iter().map(|z| z.im)),
    );
    let mean = if complex {
        complex_div(Complex64::new(sre, sim), Complex64::new(n, 0.0), t)
    } else {
        Complex64::new(r(sre / n), 0.0)
    };
    let sq = lane.iter().map(|z| {
        let (dre, dim) = (r(z.re - mean.re), r(z.im - mean.im));
        let m = if complex { r(dre.hypot(dim)) } else { dre };
        r(m * m)
    });
    let ss = sum(t, sq);
    r(ss / lane.len().saturating_sub(ddof) as f64)
}

/// SciPy's `logsumexp` by the documented steps: the maximum (NaN if any is NaN), a shift of
/// it where finite and 0 otherwise, `exp(x − shift)` summed, `log` of it plus the shift.
fn logsumexp(lane: &[Complex64], t: DType) -> f64 {
    let r = |v: f64| round_to(t, v);
    if lane.is_empty() {
        return f64::NEG_INFINITY;
    }
    let m = if lane.iter().any(|z| z.re.is_nan()) {
        f64::NAN
    } else {
        lane.iter().fold(f64::NEG_INFINITY, |m, z| m.max(z.re))
    };
    let shift = if m.is_finite() { m } else { 0.0 };
    let s = sum(t, lane.iter().map(|z| r(r(z.re - shift).exp())));
    r(r(s.ln()) + shift)
}

fn norm(a: &HostArray, ord: NormOrd) -> Result<HostArray, Expected> {
    let out = moment_type(a.dtype())?;
    let t = computed_in(out);
    if ord != NormOrd::Two && a.dims.len() != 1 {
        return Err(RANK_MISMATCH);
    }
    if ord == NormOrd::Inf && a.is_empty() {
        return Err(EMPTY_REDUCTION);
    }
    let complex = a.dtype().is_complex();
    per_lane(a, None, out, |lane| {
        let abs = lane.iter().map(|z| {
            let (re, im) = (round_to(t, z.re), round_to(t, z.im));
            if complex {
                round_to(t, re.hypot(im))
            } else {
                re.abs()
            }
        });
        match ord {
            NormOrd::Two => round_to(t, sum(t, abs.map(|m| round_to(t, m * m))).sqrt()),
            NormOrd::One => sum(t, abs),
            NormOrd::Inf => abs.fold(f64::NEG_INFINITY, |m, v| {
                if m.is_nan() || v.is_nan() {
                    f64::NAN
                } else {
                    m.max(v)
                }
            }),
        }
    })
}

/// `a` with its dimensions replaced (the same elements).
fn reshaped(a: &HostArray, dims: Vec<usize>) -> HostArray {
    HostArray::new(dims, a.data.clone())
}

fn dot(a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    for x in [a, b] {
        if !(1..=2).contains(&x.dims.len()) {
            return Err(RANK_MISMATCH);
        }
    }
    let k = a.dims[a.dims.len() - 1];
    if k != b.dims[0] {
        return Err(SHAPE_MISMATCH);
    }
    let (a2, b2) = (
        reshaped(
            a,
            if a.dims.len() == 1 {
                vec![1, k]
            } else {
                a.dims.clone()
            },
        ),
        reshaped(
            b,
            if b.dims.len() == 1 {
                vec![k, 1]
            } else {
                b.dims.clone()
            },
        ),
    );
    let p = super::matmul::matmul(&a2, &b2)?;
    let mut dims = Vec::new();
    if a.dims.len() == 2 {
        dims.push(a.dims[0]);
    }
    if b.dims.len() == 2 {
        dims.push(b.dims[1]);
    }
    Ok(reshaped(&p, dims))
}

fn vdot(a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    if a.len() != b.len() {
        return Err(SHAPE_MISMATCH);
    }
    let t = a.dtype();
    let conj = if t.is_complex() {
        let mut d = HostData::with_capacity(t, a.len());
        for s in a.data.scalars() {
            let z = as_complex(s);
            d.push(from_complex(Complex64::new(z.re, -z.im), t));
        }
        d
    } else {
        a.data.clone()
    };
    dot(
        &HostArray::new(vec![a.len()], conj),
        &reshaped(b, vec![b.len()]),
    )
}

fn outer(a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    let t = rules::binary(BinaryOp::Mul, a.dtype(), b.dtype())?;
    let mut out = HostData::with_capacity(t, a.len() * b.len());
    for x in a.data.scalars() {
        for y in b.data.scalars() {
            out.push(binary_value(BinaryOp::Mul, x, y, t));
        }
    }
    Ok(HostArray::new(vec![a.len(), b.len()], out))
}

/// The expected result of `op` on `a` (and `b`).
pub fn evaluate(op: StatOp, a: &HostArray, b: Option<&HostArray>) -> Result<HostArray, Expected> {
    let b = || b.ok_or(rules::INVALID_ARGUMENT);
    match op {
        StatOp::Var { axis, ddof, std } => {
            let t = moment_type(a.dtype())?;
            let (ct, complex) = (computed_in(t), a.dtype().is_complex());
            per_lane(a, axis, t, |lane| {
                let v = variance(lane, ddof, ct, complex);
                if std { round_to(ct, v.sqrt()) } else { v }
            })
        }
        StatOp::LogSumExp(axis) => {
            let t = rules::float_only(a.dtype())?;
            per_lane(a, axis, t, |lane| logsumexp(lane, computed_in(t)))
        }
        StatOp::Norm(ord) => norm(a, ord),
        StatOp::Dot => dot(a, b()?),
        StatOp::Vdot => vdot(a, b()?),
        StatOp::Outer => outer(a, b()?),
    }
}
