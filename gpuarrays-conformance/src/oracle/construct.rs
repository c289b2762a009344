//! Constructors made from a rule: `linspace`, `eye`/`tri` (diagonal bands) and `meshgrid`,
//! as plain loops over the documented definitions.

use gpuarrays_core::kernel::BinaryOp;
use gpuarrays_core::{DType, Indexing, Scalar};

use super::elementwise::binary_value;
use super::rules::{self, Expected};
use super::value::{from_int, from_real};
use crate::host::{HostArray, HostData};

/// The value of a real float scalar, as f64.
fn real(s: Scalar) -> f64 {
    match s {
        Scalar::F16(_) | Scalar::BF16(_) => super::value::real(s),
        Scalar::F32(v) => f64::from(v),
        Scalar::F64(v) => v,
        _ => f64::NAN,
    }
}

/// `num` values: the step `(stop − start)/div` in f64 rounded once to the type
/// (`div = num − 1` with the endpoint, `num` without; 0 when `div` is 0), element `i` the
/// type's `i·step + start`, and the last exactly `stop` with the endpoint.
pub fn linspace(
    start: Scalar,
    stop: Scalar,
    num: usize,
    endpoint: bool,
) -> Result<HostArray, Expected> {
    let t = rules::float_only(start.dtype())?;
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let step = if div == 0 {
        0.0
    } else {
        (real(stop) - real(start)) / div as f64
    };
    let step = from_real(step, t);
    let mut out = HostData::with_capacity(t, num);
    for i in 0..num {
        if endpoint && num > 1 && i == num - 1 {
            out.push(stop);
        } else {
            let p = binary_value(BinaryOp::Mul, from_real(i as f64, t), step, t);
            out.push(binary_value(BinaryOp::Add, p, start, t));
        }
    }
    Ok(HostArray::new(vec![num], out))
}

/// `[n, m]`: one where `j − i == k` (`eye`), or `j − i ≤ k` when `lower` (`tri`).
pub fn band(dtype: DType, n: usize, m: usize, k: isize, lower: bool) -> HostArray {
    let mut out = HostData::with_capacity(dtype, n * m);
    for i in 0..n {
        for j in 0..m {
            let d = j as i128 - i as i128;
            let on = if lower {
                d <= k as i128
            } else {
                d == k as i128
            };
            out.push(from_int(i128::from(on), dtype));
        }
    }
    HostArray::new(vec![n, m], out)
}

/// Output `which` of `meshgrid(inputs)`: element at coordinates `c` is input `which`'s
/// element `c[axis]`, where `axis` is `which` but for the swap of the first two axes in
/// Cartesian indexing with two or more inputs.
pub fn meshgrid(
    inputs: &[&HostArray],
    which: usize,
    indexing: Indexing,
) -> Result<HostArray, Expected> {
    let src = inputs.get(which).ok_or(rules::INVALID_ARGUMENT)?;
    let mut dims: Vec<usize> = inputs.iter().map(|a| a.len()).collect();
    let xy = indexing == Indexing::Xy && dims.len() >= 2;
    if xy {
        dims.swap(0, 1);
    }
    let axis = match (xy, which) {
        (true, 0) => 1,
        (true, 1) => 0,
        _ => which,
    };
    let total: usize = dims.iter().product();
    // The coordinate along `axis` of row-major position `flat` is `(flat / inner) % n`.
    let inner: usize = dims[axis + 1..].iter().product();
    let mut out = HostData::with_capacity(src.dtype(), total);
    for flat in 0..total {
        let coord = (flat / inner) % dims[axis];
        out.push(src.data.get(coord));
    }
    Ok(HostArray::new(dims, out))
}
