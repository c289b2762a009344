//! The oracle of matrix products: three plain loops per output element, accumulating in
//! i128 (integers, modulo 2^128), compensated f64 (reals) or compensated complex f64. Each
//! product of two elements is rounded in the element type (so it overflows, or turns
//! infinities into NaN, where the element type's arithmetic does), f16 and bf16 products in
//! f32, the type their products are documented to accumulate in; only the sum is wide.

use gpuarrays_core::{Complex64, DType};

use super::rules::{self, DTYPE_MISMATCH, Expected, RANK_MISMATCH, SHAPE_MISMATCH};
use super::value::{
    CompensatedSum, Wide, complex_mul, from_complex, from_int, from_real, round_to, widen,
};
use crate::host::{HostArray, HostData};

/// (batch, rows, cols, is 3-D) of a 2-D or 3-D shape.
fn split(dims: &[usize]) -> Result<(usize, usize, usize, bool), Expected> {
    match *dims {
        [r, c] => Ok((1, r, c, false)),
        [b, r, c] => Ok((b, r, c, true)),
        _ => Err(RANK_MISMATCH),
    }
}

/// `a · b`, batched; a batch of 1 (or a 2-D operand) repeats across the other's batch,
/// whatever its size, 0 included (NumPy: `(0, 3, 4) @ (1, 4, 5)` is `(0, 3, 5)`).
pub fn matmul(a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    if a.dtype() != b.dtype() {
        return Err(DTYPE_MISMATCH);
    }
    let t = rules::numeric_only(a.dtype())?;
    let (ba, m, k, a3) = split(&a.dims)?;
    let (bb, k2, n, b3) = split(&b.dims)?;
    let Some(batch) = broadcast_batch(ba, bb).filter(|_| k == k2) else {
        return Err(SHAPE_MISMATCH);
    };
    let dims = if a3 || b3 {
        vec![batch, m, n]
    } else {
        vec![m, n]
    };
    let mut out = HostData::with_capacity(t, batch * m * n);
    for bi in 0..batch {
        let a0 = if ba == 1 { 0 } else { bi * m * k };
        let b0 = if bb == 1 { 0 } else { bi * k * n };
        for i in 0..m {
            for j in 0..n {
                let terms = (0..k).map(|kk| {
                    (
                        widen(a.data.get(a0 + i * k + kk)),
                        widen(b.data.get(b0 + kk * n + j)),
                    )
                });
                out.push(dot(terms, t));
            }
        }
    }
    Ok(HostArray::new(dims, out))
}

/// The batch of a product of batches `ba` and `bb` (NumPy broadcasting: equal, or one of
/// them 1, which takes the other's size, 0 included); `None` when they do not broadcast.
pub(super) fn broadcast_batch(ba: usize, bb: usize) -> Option<usize> {
    match (ba, bb) {
        (1, b) | (b, 1) => Some(b),
        (a, b) if a == b => Some(a),
        _ => None,
    }
}

/// Σ x·y over the pairs, narrowed to `t`.
pub(super) fn dot(terms: impl Iterator<Item = (Wide, Wide)>, t: DType) -> gpuarrays_core::Scalar {
    let mut int: i128 = 0;
    let (mut re, mut im) = (CompensatedSum::default(), CompensatedSum::default());
    let product_type = if matches!(t, DType::F16 | DType::BF16) {
        DType::F32
    } else {
        t
    };
    for pair in terms {
        match pair {
            (Wide::Int(x), Wide::Int(y)) => int = int.wrapping_add(x.wrapping_mul(y)),
            (Wide::Real(x), Wide::Real(y)) => re.add(round_to(product_type, x * y)),
            (Wide::Complex(x), Wide::Complex(y)) => {
                let p = complex_mul(x, y, t);
                re.add(p.re);
                im.add(p.im);
            }
            _ => {}
        }
    }
    if t.is_complex() {
        from_complex(Complex64::new(re.value(), im.value()), t)
    } else if t.is_float() {
        from_real(re.value(), t)
    } else {
        from_int(int, t)
    }
}
