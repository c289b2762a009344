//! Everything a comparison checks about one case: the [`Tolerance`] of finite values, and
//! how special values compare where the documentation leaves them open.
//!
//! - NaN matches NaN whatever its sign and payload (the documentation promises neither);
//!   infinities match exactly.
//! - The sign of a zero is specified by IEEE arithmetic, the C library and Rust's `as`, and
//!   must match, except where `gpuarrays_core::kernel` documents it as unspecified: results
//!   of sums in any order (`sum`, `cumsum`, `mean`, `matmul`), of `min`/`max` (elementwise
//!   and reductions), the order of `-0.0` and `0.0` in `sort`, and complex products of
//!   several factors.
//! - A complex product of three or more factors with a non-finite part (an infinite factor,
//!   or an overflow) has a pattern of NaN and infinite parts that depends on the order of
//!   multiplication; the documentation specifies only that some part is non-finite, so such
//!   elements pass when the result has a non-finite part too. Products of one factor (that
//!   element) and two factors (one multiplication) compare exactly.
//! - On a device that declares it flushes subnormals to zero, results of a flushed
//!   precision compare under the FTZ rule ([`crate::ftz`]); elsewhere subnormals are exact.

use gpuarrays_core::kernel::{BinaryOp, ReduceOp, ScanOp};

use crate::case::{Case, Op};
use crate::host::HostArray;
use crate::tolerance::{Tolerance, tolerance};

/// Whether the sign of a zero result must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroSigns {
    Match,
    /// `-0.0` and `0.0` are equal.
    Either,
}

/// How non-finite results compare.
#[derive(Debug, Clone, PartialEq)]
pub enum NonFinite {
    /// NaN matches NaN, infinities match exactly (complex: part by part).
    Exact,
    /// A complex product: the number of factors of each element. Elements of three or more
    /// factors whose expected value has a non-finite part pass when the result has one.
    ComplexProducts(Vec<usize>),
    /// Sums of complex products (matmul): which parts of a non-finite result are NaN or
    /// infinite depends on the vendor library's formulation (cuBLAS gives NaN+NaN·i where
    /// the textbook sum gives NaN+∞·i); an element whose expected value has a non-finite
    /// part passes when the result has one.
    ComplexSums,
}

/// What a comparison checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Criterion {
    pub tolerance: Tolerance,
    pub zeros: ZeroSigns,
    pub non_finite: NonFinite,
    /// The device flushes subnormals of the result's precision to zero (declared in its
    /// `DeviceInfo`): compare under the FTZ rule of [`crate::ftz`]. Never set by
    /// [`criterion`]; the runner sets it from the backend's declaration.
    pub flushed_subnormals: bool,
}

/// The criterion of `case`, whose expected result is `expected`.
pub fn criterion(case: &Case, expected: &HostArray) -> Criterion {
    let input = case.inputs.first().map(|i| &i.array);
    let complex = expected.dtype().is_complex();
    let zeros = match &case.op {
        Op::Reduce(ReduceOp::Sum | ReduceOp::Min | ReduceOp::Max, _)
        | Op::Mean(_)
        | Op::Scan(ScanOp::Sum | ScanOp::Max | ScanOp::Min, _)
        | Op::Binary(BinaryOp::Min | BinaryOp::Max)
        | Op::BinaryLit(BinaryOp::Min | BinaryOp::Max)
        | Op::Sort
        | Op::Matmul
        | Op::Stat(_)
        | Op::Fft(_) => ZeroSigns::Either,
        Op::Index(c) if c.adds() => ZeroSigns::Either,
        Op::Order(c) if c.sorts_values() => ZeroSigns::Either,
        Op::Extra(crate::case::ExtraCase::Einsum(_)) => ZeroSigns::Either,
        Op::Reduce(ReduceOp::Prod, _) | Op::Scan(ScanOp::Prod, _) if complex => ZeroSigns::Either,
        _ => ZeroSigns::Match,
    };
    let non_finite = match (&case.op, input) {
        (Op::Reduce(ReduceOp::Prod, axis), Some(a)) if complex => {
            let n = match axis {
                None => a.len(),
                Some(ax) => a.dims.get(*ax).copied().unwrap_or(0),
            };
            NonFinite::ComplexProducts(vec![n; expected.len()])
        }
        (Op::Scan(ScanOp::Prod, axis), Some(a)) if complex => {
            NonFinite::ComplexProducts(scan_factors(&a.dims, *axis))
        }
        (Op::Matmul, _) if complex => NonFinite::ComplexSums,
        (Op::Extra(crate::case::ExtraCase::Einsum(_)), _) if complex => NonFinite::ComplexSums,
        (Op::Stat(s), _) if complex && s.sums_products() => NonFinite::ComplexSums,
        _ => NonFinite::Exact,
    };
    Criterion {
        tolerance: tolerance(case, expected),
        zeros,
        non_finite,
        flushed_subnormals: false,
    }
}

/// For an inclusive scan along `axis` of an array of `dims`: `k + 1` at position `k` along
/// the axis, in row-major order.
fn scan_factors(dims: &[usize], axis: usize) -> Vec<usize> {
    if axis >= dims.len() {
        return Vec::new();
    }
    let inner: usize = dims[axis + 1..].iter().product();
    let len = dims[axis];
    let n: usize = dims.iter().product();
    (0..n)
        .map(|p| (p / inner.max(1)) % len.max(1) + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_factors_count_along_the_axis() {
        assert_eq!(scan_factors(&[2, 3], 1), vec![1, 2, 3, 1, 2, 3]);
        assert_eq!(scan_factors(&[2, 3], 0), vec![1, 1, 1, 2, 2, 2]);
        assert_eq!(scan_factors(&[3], 0), vec![1, 2, 3]);
        assert!(scan_factors(&[3], 1).is_empty());
    }
}
