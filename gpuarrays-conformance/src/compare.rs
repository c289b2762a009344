//! Comparing a result with the reference under a [`Criterion`] (a tolerance, and the rules
//! for special values: see [`crate::criterion`]).
//!
//! The error of an element is reported in these units:
//! - bool and integers: `|got − expected|` (must be 0);
//! - floats and complex: `|got − expected| / (ε · scale)` ("ε-units"; with `Scale::Value`
//!   this is the relative error in units of ε, about ULPs); infinite when a NaN, an
//!   infinity or (where it is specified) the sign of a zero does not match.

use gpuarrays_core::{DType, Scalar};

use crate::criterion::{Criterion, NonFinite, ZeroSigns};
use crate::host::HostArray;
use crate::oracle::value::{Wide, widen};
use crate::tolerance::{Scale, Tolerance, epsilon, overflow_threshold, tiny};

/// The result of one comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Largest element error (units in the module documentation); 0 for empty results.
    pub max_err: f64,
    /// What was wrong, if anything: the first failing element and how many failed.
    pub mismatch: Option<String>,
}

/// Compares `got` with `expected`.
pub fn compare(expected: &HostArray, got: &HostArray, criterion: &Criterion) -> Outcome {
    let fail = |msg: String| Outcome {
        max_err: f64::INFINITY,
        mismatch: Some(msg),
    };
    if expected.dtype() != got.dtype() {
        return fail(format!(
            "result type {} differs from the reference's {}",
            got.dtype(),
            expected.dtype()
        ));
    }
    if expected.dims != got.dims {
        return fail(format!(
            "result shape {:?} differs from the reference's {:?}",
            got.dims, expected.dims
        ));
    }
    let t = expected.dtype();
    let (units, scale) = match &criterion.tolerance {
        Tolerance::Exact => (0.0, &Scale::Value),
        Tolerance::Eps { units, scale } => (*units, scale),
    };
    let rules = Rules {
        signed_zeros: criterion.zeros == ZeroSigns::Match,
        ftz: criterion.flushed_subnormals.then(|| tiny(t)),
        overflow: overflow_threshold(t),
    };
    let mut max_err: f64 = 0.0;
    let mut first: Option<String> = None;
    let mut failed = 0usize;
    for i in 0..expected.len() {
        let (e, g) = (expected.data.get(i), got.data.get(i));
        let by_class = match &criterion.non_finite {
            NonFinite::ComplexProducts(f) => f.get(i).is_some_and(|&n| n >= 3),
            NonFinite::ComplexSums => true,
            NonFinite::Exact => false,
        };
        let err = if by_class && non_finite(e) {
            if non_finite(g) { 0.0 } else { f64::INFINITY }
        } else {
            element_error(t, e, g, element_scale(scale, i, e, t), rules)
        };
        max_err = max_err.max(err);
        if err > units || err.is_nan() {
            failed += 1;
            if first.is_none() {
                first = Some(format!(
                    "element {i}: got {g}, expected {e} (error {err:.3} > {units})"
                ));
            }
        }
    }
    Outcome {
        max_err,
        mismatch: first.map(|f| format!("{f}; {failed} of {} elements differ", expected.len())),
    }
}

fn element_scale(scale: &Scale, i: usize, expected: Scalar, t: DType) -> f64 {
    let value = crate::oracle::magnitude(expected);
    let s = match scale {
        Scale::Value => value,
        Scale::ValueOrOne => value.max(1.0),
        Scale::PerElement(v) => v.get(i).copied().unwrap_or(value),
    };
    s.max(tiny(t))
}

/// Whether a complex value has a NaN or infinite part (reals: whether it is NaN or infinite).
fn non_finite(s: Scalar) -> bool {
    match widen(s) {
        Wide::Real(x) => !x.is_finite(),
        Wide::Complex(z) => !z.re.is_finite() || !z.im.is_finite(),
        _ => false,
    }
}

/// How special values compare (see [`crate::criterion`]).
#[derive(Debug, Clone, Copy)]
struct Rules {
    signed_zeros: bool,
    /// Under the FTZ rule ([`crate::ftz`]): the smallest normal of the result's precision.
    ftz: Option<f64>,
    /// The magnitude from which the result's precision rounds to infinity.
    overflow: f64,
}

/// `x`, or a zero of its sign if it is below `min` in magnitude (a subnormal of the
/// precision whose smallest normal is `min`).
fn flush_below(x: f64, min: f64) -> f64 {
    if x.abs() < min { 0.0f64.copysign(x) } else { x }
}

/// The error of one element (see the module documentation for units).
fn element_error(t: DType, e: Scalar, g: Scalar, scale: f64, rules: Rules) -> f64 {
    let unit = epsilon(t) * scale;
    let (e, g) = (widen(e), widen(g));
    // Under the FTZ rule, subnormals on either side are zeros of their sign, and one
    // smallest normal of absolute error is forgiven.
    let (e, g, slack) = match rules.ftz {
        None => (e, g, 0.0),
        Some(min) => {
            let flush = |w: Wide| match w {
                Wide::Real(x) => Wide::Real(flush_below(x, min)),
                Wide::Complex(z) => Wide::Complex(num_complex::Complex64::new(
                    flush_below(z.re, min),
                    flush_below(z.im, min),
                )),
                other => other,
            };
            (flush(e), flush(g), min)
        }
    };
    match (e, g) {
        (Wide::Bool(a), Wide::Bool(b)) => (a as u8 as f64 - b as u8 as f64).abs(),
        (Wide::Int(a), Wide::Int(b)) => (a - b).unsigned_abs() as f64,
        (Wide::Real(a), Wide::Real(b)) => real_error(a, b, unit, rules, slack),
        (Wide::Complex(a), Wide::Complex(b)) => {
            let special = |x: f64| !x.is_finite();
            let parts = real_error(a.re, b.re, unit, rules, slack)
                .max(real_error(a.im, b.im, unit, rules, slack));
            if special(a.re) || special(a.im) || special(b.re) || special(b.im) {
                // Part by part: NaN and infinities must match where they are.
                parts
            } else if parts.is_infinite() {
                // A zero of the wrong sign.
                parts
            } else {
                ((b - a).norm() - slack * std::f64::consts::SQRT_2).max(0.0) / unit
            }
        }
        _ => f64::INFINITY,
    }
}

/// `(|b − a| − slack)⁺ / unit`, with NaN matching NaN, infinities matching exactly, and
/// zeros of different signs matching unless `rules.signed_zeros`.
fn real_error(a: f64, b: f64, unit: f64, rules: Rules, slack: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if a == b {
        let sign_differs = a == 0.0 && a.is_sign_negative() != b.is_sign_negative();
        return if sign_differs && rules.signed_zeros {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if a.is_infinite() && b.is_infinite() {
        return f64::INFINITY;
    }
    if a.is_infinite() || b.is_infinite() {
        // One side overflowed and the other did not: as far apart as the finite value is
        // from the magnitude that rounds to that infinity (a sum whose rounding errors carry
        // it just past the largest finite value, as a half-precision scan's can, is within
        // the tolerance that covers those errors; an infinity of the other sign never is).
        let (inf, finite) = if a.is_infinite() { (a, b) } else { (b, a) };
        if inf.is_sign_negative() != finite.is_sign_negative() {
            return f64::INFINITY;
        }
        return ((rules.overflow - finite.abs()).max(0.0) - slack).max(0.0) / unit;
    }
    ((b - a).abs() - slack).max(0.0) / unit
}

#[cfg(test)]
mod tests {
    use gpuarrays_core::f16;

    use super::*;
    use crate::criterion::{Criterion, NonFinite, ZeroSigns};
    use crate::host::HostData;

    fn halves(v: &[f32]) -> HostArray {
        HostArray::new(
            vec![v.len()],
            HostData::F16(v.iter().map(|&x| f16::from_f32(x)).collect()),
        )
    }

    fn within(units: f64) -> Criterion {
        Criterion {
            tolerance: Tolerance::Eps {
                units,
                scale: Scale::ValueOrOne,
            },
            zeros: ZeroSigns::Match,
            non_finite: NonFinite::Exact,
            flushed_subnormals: false,
        }
    }

    #[test]
    fn an_overflow_is_as_far_as_the_threshold_and_never_of_the_other_sign() {
        let inf = f32::INFINITY;
        // 65504 is 16 below f16's threshold 65520: 16 / (2^-10 · 65504) ≈ 0.25 units.
        let near = compare(&halves(&[65504.0]), &halves(&[inf]), &within(1.0));
        assert_eq!(near.mismatch, None, "{near:?}");
        assert!(near.max_err > 0.2 && near.max_err < 0.3, "{near:?}");
        // 60000 is 5520 below it: 86 units.
        let far = compare(&halves(&[60000.0]), &halves(&[inf]), &within(50.0));
        assert!(far.mismatch.is_some(), "{far:?}");
        let sign = compare(&halves(&[-65504.0]), &halves(&[inf]), &within(1e9));
        assert!(sign.max_err.is_infinite(), "{sign:?}");
        // Exact comparisons never forgive it, nor do f64 ones.
        let exact = Criterion {
            tolerance: Tolerance::Exact,
            ..within(0.0)
        };
        assert!(
            compare(&halves(&[65504.0]), &halves(&[inf]), &exact)
                .mismatch
                .is_some()
        );
        let f64s = |x: f64| HostArray::new(vec![1], HostData::F64(vec![x]));
        let big = compare(&f64s(f64::MAX), &f64s(f64::INFINITY), &within(1e9));
        assert!(big.max_err.is_infinite(), "{big:?}");
    }
}
