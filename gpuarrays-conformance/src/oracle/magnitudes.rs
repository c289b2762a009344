//! Magnitudes that tolerances are measured against: Σ|x| of the values a result was
//! accumulated from (per lane, per prefix, per dot product), computed with the oracle's
//! index arithmetic.

use gpuarrays_core::Scalar;

use super::elementwise::broadcast_map;
use super::index::{numel, split};
use super::value::{Wide, widen};
use crate::host::{HostArray, HostData};

/// |x| of any value (complex: modulus; bool: 0 or 1), counting NaN and infinite values or
/// parts as 0: they compare exactly, and tolerances are for the finite rest (the real part of
/// a sum whose imaginary part is infinite is measured against the finite terms).
pub fn magnitude(s: Scalar) -> f64 {
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    match widen(s) {
        Wide::Bool(b) => b as u8 as f64,
        Wide::Int(x) => (x as f64).abs(),
        Wide::Real(x) => finite(x).abs(),
        Wide::Complex(z) => finite(z.re).hypot(finite(z.im)),
    }
}

/// `f` of the broadcast operands at every element of their broadcast shape.
pub fn scale_map(inputs: &[&HostArray], f: impl Fn(&[Scalar]) -> f64) -> Vec<f64> {
    match broadcast_map(inputs, gpuarrays_core::DType::F64, |v| Scalar::F64(f(v))) {
        Ok(HostArray {
            data: HostData::F64(v),
            ..
        }) => v,
        _ => Vec::new(),
    }
}

/// Σ|x| over each lane of a reduction along `axis` (everything when `None`).
pub fn lane_magnitudes(a: &HostArray, axis: Option<usize>) -> Vec<f64> {
    let (outer, len, inner) = match axis {
        None => (1, numel(&a.dims), 1),
        Some(ax) if ax < a.dims.len() => split(&a.dims, ax),
        Some(_) => return Vec::new(),
    };
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let s = (0..len)
                .map(|k| magnitude(a.data.get(o * len * inner + k * inner + i)))
                .sum();
            out.push(s);
        }
    }
    out
}

/// Σ|x| over each prefix of each lane along `axis`, in the array's own layout.
pub fn prefix_magnitudes(a: &HostArray, axis: usize) -> Vec<f64> {
    if axis >= a.dims.len() {
        return Vec::new();
    }
    let (outer, len, inner) = split(&a.dims, axis);
    let mut out = vec![0.0; a.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut s = 0.0;
            for k in 0..len {
                let p = o * len * inner + k * inner + i;
                s += magnitude(a.data.get(p));
                out[p] = s;
            }
        }
    }
    out
}

/// Σ_k |a_ik|·|b_kj| for every element of a (batched) matrix product.
pub fn matmul_magnitudes(a: &HostArray, b: &HostArray) -> Vec<f64> {
    let split3 = |d: &[usize]| match *d {
        [r, c] => Some((1, r, c)),
        [bt, r, c] => Some((bt, r, c)),
        _ => None,
    };
    let (Some((ba, m, k)), Some((bb, k2, n))) = (split3(&a.dims), split3(&b.dims)) else {
        return Vec::new();
    };
    let Some(batch) = super::matmul::broadcast_batch(ba, bb).filter(|_| k == k2) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(batch * m * n);
    for bi in 0..batch {
        let a0 = if ba == 1 { 0 } else { bi * m * k };
        let b0 = if bb == 1 { 0 } else { bi * k * n };
        for i in 0..m {
            for j in 0..n {
                let s = (0..k)
                    .map(|kk| {
                        magnitude(a.data.get(a0 + i * k + kk))
                            * magnitude(b.data.get(b0 + kk * n + j))
                    })
                    .sum();
                out.push(s);
            }
        }
    }
    out
}
