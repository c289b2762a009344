//! The oracle of `repeat_counts`, `logspace` and `einsum`, from their documentation: the
//! repeated elements listed one by one; `base^y` in f64 over the oracle's own `linspace`;
//! Einstein sums as nested loops over every summed subscript, one product per term.

use gpuarrays_core::Scalar;

use super::index::{numel, ravel, unravel};
use super::magnitudes::magnitude;
use super::matmul::dot;
use super::rules::{
    self, AXIS_OUT_OF_RANGE, DTYPE_MISMATCH, Expected, INVALID_ARGUMENT, INVALID_DTYPE,
    RANK_MISMATCH, SHAPE_MISMATCH,
};
use super::value::{Wide, from_int, from_real, real, widen};
use crate::host::{HostArray, HostData};

/// NumPy `repeat(a, counts, axis)`: integer counts (0-d or 1-D), one per element along the
/// axis or one for all, none negative.
pub fn repeat_counts(
    a: &HostArray,
    counts: &HostArray,
    axis: Option<usize>,
) -> Result<HostArray, Expected> {
    if !counts.dtype().is_integer() {
        return Err(INVALID_DTYPE);
    }
    if counts.dims.len() > 1 {
        return Err(RANK_MISMATCH);
    }
    let (dims, axis) = match axis {
        Some(ax) if ax < a.dims.len() => (a.dims.clone(), ax),
        Some(_) => return Err(AXIS_OUT_OF_RANGE),
        None => (vec![a.len()], 0),
    };
    let c: Vec<i128> = counts
        .data
        .scalars()
        .map(|s| match widen(s) {
            Wide::Int(x) => x,
            _ => -1,
        })
        .collect();
    let n = dims[axis];
    let c = match c.len() {
        1 => vec![c[0]; n],
        len if len == n => c,
        _ => return Err(SHAPE_MISMATCH),
    };
    if c.iter().any(|&x| x < 0) {
        return Err(INVALID_ARGUMENT);
    }
    // Output position q along the axis comes from source[q].
    let mut source = Vec::new();
    for (k, &times) in c.iter().enumerate() {
        for _ in 0..times {
            source.push(k);
        }
    }
    let mut out_dims = dims.clone();
    out_dims[axis] = source.len();
    let mut out = HostData::with_capacity(a.dtype(), numel(&out_dims));
    for p in 0..numel(&out_dims) {
        let mut idx = unravel(p, &out_dims);
        idx[axis] = source[idx[axis]];
        out.push(a.data.get(ravel(&idx, &dims)));
    }
    Ok(HostArray::new(out_dims, out))
}

/// NumPy `logspace`: `base^y` for `y` the oracle's `linspace`, each power in f64 rounded
/// once to the type.
pub fn logspace(
    start: Scalar,
    stop: Scalar,
    num: usize,
    endpoint: bool,
    base: Scalar,
) -> Result<HostArray, Expected> {
    let y = super::construct::linspace(start, stop, num, endpoint)?;
    let t = y.dtype();
    let b = real(base);
    let values = y.data.scalars().map(|v| from_real(b.powf(real(v)), t));
    let data = HostData::from_scalars(t, values.collect::<Vec<_>>()).map_err(|_| INVALID_DTYPE)?;
    Ok(HostArray::new(vec![num], data))
}

/// The parsed subscripts: letters per operand, the output's, and each letter's length.
struct Spec {
    inputs: Vec<Vec<u8>>,
    output: Vec<u8>,
    length: [usize; 128],
}

fn parse(spec: &str, ins: &[&HostArray]) -> Result<Spec, Expected> {
    if spec.contains('.') {
        return Err(INVALID_ARGUMENT);
    }
    let spec: String = spec.chars().filter(|c| *c != ' ').collect();
    let (lhs, rhs) = match spec.find("->") {
        Some(p) => (&spec[..p], Some(&spec[p + 2..])),
        None => (&spec[..], None),
    };
    let word = |w: &str| -> Result<Vec<u8>, Expected> {
        if w.bytes().all(|b| b.is_ascii_alphabetic()) {
            Ok(w.bytes().collect())
        } else {
            Err(INVALID_ARGUMENT)
        }
    };
    let inputs: Vec<Vec<u8>> = lhs.split(',').map(word).collect::<Result<_, _>>()?;
    if inputs.len() != ins.len() {
        return Err(INVALID_ARGUMENT);
    }
    let mut length = [usize::MAX; 128];
    let mut seen = [0usize; 128];
    for (w, a) in inputs.iter().zip(ins) {
        if w.len() != a.dims.len() {
            return Err(RANK_MISMATCH);
        }
        for (&l, &d) in w.iter().zip(&a.dims) {
            let slot = &mut length[l as usize];
            if *slot != usize::MAX && *slot != d {
                return Err(SHAPE_MISMATCH);
            }
            *slot = d;
            seen[l as usize] += 1;
        }
    }
    let output = match rhs {
        Some(r) => {
            let o = word(r)?;
            let mut sorted = o.clone();
            sorted.sort();
            sorted.dedup();
            if sorted.len() != o.len() || o.iter().any(|&l| seen[l as usize] == 0) {
                return Err(INVALID_ARGUMENT);
            }
            o
        }
        None => (b'A'..=b'z').filter(|&l| seen[l as usize] == 1).collect(),
    };
    Ok(Spec {
        inputs,
        output,
        length,
    })
}

/// NumPy `einsum` for one or two operands of one numeric type, and for each output
/// element the bound `Σ |x|·|y|` of its terms and the number of terms (for the tolerance).
pub fn einsum_with_bounds(
    spec: &str,
    ins: &[&HostArray],
) -> Result<(HostArray, Vec<f64>, usize), Expected> {
    if !(1..=2).contains(&ins.len()) {
        return Err(INVALID_ARGUMENT);
    }
    let t = ins[0].dtype();
    if ins.iter().any(|a| a.dtype() != t) {
        return Err(DTYPE_MISMATCH);
    }
    rules::numeric_only(t)?;
    let s = parse(spec, ins)?;
    let mut summed: Vec<u8> = Vec::new();
    for w in &s.inputs {
        for &l in w {
            if !s.output.contains(&l) && !summed.contains(&l) {
                summed.push(l);
            }
        }
    }
    let len = |ls: &[u8]| -> Vec<usize> { ls.iter().map(|&l| s.length[l as usize]).collect() };
    let (out_dims, sum_dims) = (len(&s.output), len(&summed));
    let terms = numel(&sum_dims);
    let one = widen(from_int(1, t));
    let mut out = HostData::with_capacity(t, numel(&out_dims));
    let mut bounds = Vec::with_capacity(numel(&out_dims));
    let mut value_of = [0usize; 128];
    for p in 0..numel(&out_dims) {
        for (&l, &i) in s.output.iter().zip(&unravel(p, &out_dims)) {
            value_of[l as usize] = i;
        }
        let mut pairs = Vec::with_capacity(terms);
        let mut bound = 0.0;
        for q in 0..terms {
            for (&l, &i) in summed.iter().zip(&unravel(q, &sum_dims)) {
                value_of[l as usize] = i;
            }
            let element = |k: usize| -> Scalar {
                let idx: Vec<usize> = s.inputs[k].iter().map(|&l| value_of[l as usize]).collect();
                ins[k].data.get(ravel(&idx, &ins[k].dims))
            };
            let x = element(0);
            let y = if ins.len() == 2 {
                Some(element(1))
            } else {
                None
            };
            bound += magnitude(x) * y.map_or(1.0, magnitude);
            pairs.push((widen(x), y.map_or(one, widen)));
        }
        out.push(dot(pairs.into_iter(), t));
        bounds.push(bound);
    }
    Ok((HostArray::new(out_dims, out), bounds, terms))
}

/// NumPy `einsum` (see [`einsum_with_bounds`]).
pub fn einsum(spec: &str, ins: &[&HostArray]) -> Result<HostArray, Expected> {
    einsum_with_bounds(spec, ins).map(|(a, _, _)| a)
}
