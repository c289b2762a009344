//! The oracle of reductions (sum, prod, min, max, argmin, argmax, any, all, mean): one
//! sequential loop per output element over its lane, with wide accumulators.

use gpuarrays_core::kernel::ReduceOp;
use gpuarrays_core::{Complex64, DType, Scalar};

use super::index::{numel, split};
use super::rules::{self, EMPTY_REDUCTION, Expected};
use super::value::{
    Accumulator, CompensatedSum, Product, Wide, complex_div, from_complex, from_int, from_real,
    round_to, truthy, widen,
};
use crate::host::{HostArray, HostData};

/// The lanes of a reduction: (outer, len, inner) and the output shape.
struct Lanes {
    outer: usize,
    len: usize,
    inner: usize,
    out_dims: Vec<usize>,
}

fn lanes(dims: &[usize], axis: Option<usize>) -> Result<Lanes, Expected> {
    match axis {
        None => Ok(Lanes {
            outer: 1,
            len: numel(dims),
            inner: 1,
            out_dims: vec![],
        }),
        Some(ax) => {
            rules::check_axis(ax, dims.len())?;
            let (outer, len, inner) = split(dims, ax);
            let mut out_dims = dims.to_vec();
            out_dims.remove(ax);
            Ok(Lanes {
                outer,
                len,
                inner,
                out_dims,
            })
        }
    }
}

/// Applies `f` to every lane (the values along the axis) and collects the results.
fn per_lane(
    a: &HostArray,
    l: &Lanes,
    out_dtype: DType,
    f: impl Fn(&[Scalar]) -> Scalar,
) -> HostArray {
    let mut out = HostData::with_capacity(out_dtype, l.outer * l.inner);
    let mut lane = Vec::with_capacity(l.len);
    for o in 0..l.outer {
        for i in 0..l.inner {
            lane.clear();
            lane.extend((0..l.len).map(|k| a.data.get(o * l.len * l.inner + k * l.inner + i)));
            out.push(f(&lane));
        }
    }
    HostArray::new(l.out_dims.clone(), out)
}

/// Whether `x < y` for ordered, non-NaN values of one type.
fn less(x: Scalar, y: Scalar) -> bool {
    match (widen(x), widen(y)) {
        (Wide::Bool(a), Wide::Bool(b)) => !a & b,
        (Wide::Int(a), Wide::Int(b)) => a < b,
        (Wide::Real(a), Wide::Real(b)) => a < b,
        _ => false,
    }
}

fn is_nan(x: Scalar) -> bool {
    matches!(widen(x), Wide::Real(v) if v.is_nan())
}

/// The position of the first extreme (`smallest`: minimum), or of the first NaN if any.
fn arg_extreme(lane: &[Scalar], smallest: bool) -> usize {
    let mut best = 0;
    for (k, &x) in lane.iter().enumerate().skip(1) {
        let b = lane[best];
        if is_nan(b) {
            break;
        }
        let better = if smallest { less(x, b) } else { less(b, x) };
        if is_nan(x) || better {
            best = k;
        }
    }
    best
}

/// sum, prod, min, max, argmin, argmax, any, all through `RawArray::reduce`.
pub fn reduce(op: ReduceOp, axis: Option<usize>, a: &HostArray) -> Result<HostArray, Expected> {
    let t = a.dtype();
    let out_t = rules::reduce(op, t)?;
    reduce_lanes(op, axis, a, t, out_t)
}

/// The typed `any`/`all`, which accept every type (`x != 0`).
pub fn any_all(all: bool, axis: Option<usize>, a: &HostArray) -> Result<HostArray, Expected> {
    let op = if all { ReduceOp::All } else { ReduceOp::Any };
    reduce_lanes(op, axis, a, a.dtype(), DType::Bool)
}

fn reduce_lanes(
    op: ReduceOp,
    axis: Option<usize>,
    a: &HostArray,
    t: DType,
    out_t: DType,
) -> Result<HostArray, Expected> {
    let l = lanes(&a.dims, axis)?;
    if l.outer * l.inner == 0 {
        return Ok(HostArray::new(l.out_dims, HostData::empty(out_t)));
    }
    let has_identity = matches!(
        op,
        ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Any | ReduceOp::All
    );
    if l.len == 0 && !has_identity {
        return Err(EMPTY_REDUCTION);
    }
    Ok(per_lane(a, &l, out_t, |lane| match op {
        ReduceOp::Sum => {
            let mut acc = Accumulator::new(t);
            lane.iter().for_each(|&x| acc.add(x));
            acc.value(out_t)
        }
        ReduceOp::Prod => {
            let mut acc = Product::new(t);
            lane.iter().for_each(|&x| acc.mul(x));
            acc.value(out_t)
        }
        ReduceOp::Min | ReduceOp::Max => {
            if let Some(&nan) = lane.iter().find(|&&x| is_nan(x)) {
                return nan;
            }
            let pick_smaller = op == ReduceOp::Min;
            lane.iter().copied().fold(lane[0], |b, x| {
                let replace = if pick_smaller { less(x, b) } else { less(b, x) };
                if replace { x } else { b }
            })
        }
        ReduceOp::ArgMin => from_int(arg_extreme(lane, true) as i128, out_t),
        ReduceOp::ArgMax => from_int(arg_extreme(lane, false) as i128, out_t),
        ReduceOp::Any => Scalar::Bool(lane.iter().any(|&x| truthy(x))),
        ReduceOp::All => Scalar::Bool(lane.iter().all(|&x| truthy(x))),
    }))
}

/// The typed `mean`/`mean_axis`: the sum (exact, then rounded to the element type, as a
/// `sum` returns it) divided by `n` in the element type; complex means divide by `n + 0i`
/// with the documented division formula, so an infinite part makes the other part NaN.
/// f16 and bf16 take both steps in f32 and round the quotient once.
pub fn mean(axis: Option<usize>, a: &HostArray) -> Result<HostArray, Expected> {
    let out = rules::mean(a.dtype())?;
    let t = super::stats::computed_in(out);
    let l = lanes(&a.dims, axis)?;
    if l.len == 0 {
        return Err(EMPTY_REDUCTION);
    }
    let n = round_to(t, l.len as f64);
    Ok(per_lane(a, &l, out, |lane| {
        let (mut re, mut im) = (CompensatedSum::default(), CompensatedSum::default());
        for &x in lane {
            match widen(x) {
                Wide::Real(v) => re.add(v),
                Wide::Complex(z) => {
                    re.add(z.re);
                    im.add(z.im);
                }
                _ => {}
            }
        }
        let (re, im) = (round_to(t, re.value()), round_to(t, im.value()));
        if t.is_complex() {
            let q = complex_div(Complex64::new(re, im), Complex64::new(n, 0.0), t);
            from_complex(q, t)
        } else {
            from_real(round_to(t, re / n), out)
        }
    }))
}
