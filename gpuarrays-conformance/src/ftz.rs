//! Devices that flush subnormals to zero ("FTZ"): what the suite changes for them.
//!
//! WGSL lets an implementation flush subnormal floats to zero and the NVIDIA Vulkan driver
//! does (for f32), so such a device cannot agree with an IEEE reference on subnormal inputs
//! or on results that are subnormal. A backend declares it in
//! [`DeviceInfo::flushes_subnormals`](gpuarrays_core::DeviceInfo::flushes_subnormals); for
//! the declared precisions (f32 covers c32, f64 covers c64) the suite then
//!
//! - gives no subnormal inputs: every subnormal of a case (input arrays, the padding around
//!   views, scalar operands) becomes a zero of the same sign before the reference and the
//!   backend see it ([`flush_case`]), so both compute from the same values;
//! - compares results under the FTZ rule ([`crate::compare`]): a subnormal result and a
//!   zero (of either sign), or two values below the smallest normal, are equal, and an
//!   absolute error of up to one smallest normal (what one flushed intermediate loses) is
//!   forgiven; everything else is compared as strictly as for any backend;
//! - says so: the row's status notes "FTZ" and the summary names the flushed precisions.
//!
//! Backends that declare nothing (the CPU reference, HIP, lavapipe) keep the strict rules.

use gpuarrays_core::{Complex32, Complex64, DType, Scalar, SubnormalFlush};

use crate::case::{Case, Op};
use crate::host::HostData;

/// The note a row's status carries when its element type is flushed.
pub const FTZ_NOTE: &str = "FTZ: device flushes subnormals";

/// `x`, or a zero of its sign if it is subnormal.
fn flush32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn flush_bf16(x: gpuarrays_core::bf16) -> gpuarrays_core::bf16 {
    // Subnormal: exponent bits zero, mantissa not.
    if x.to_bits() & 0x7f80 == 0 && x.to_bits() & 0x7f != 0 {
        gpuarrays_core::bf16::from_f32(0.0f32.copysign(x.to_f32()))
    } else {
        x
    }
}

fn flush64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// `s` with subnormal parts flushed, if `flush` applies to its type.
pub fn flush_scalar(s: Scalar, flush: SubnormalFlush) -> Scalar {
    if !flush.applies_to(s.dtype()) {
        return s;
    }
    match s {
        Scalar::F32(x) => Scalar::F32(flush32(x)),
        Scalar::BF16(x) => Scalar::BF16(flush_bf16(x)),
        Scalar::F64(x) => Scalar::F64(flush64(x)),
        Scalar::C32(z) => Scalar::C32(Complex32::new(flush32(z.re), flush32(z.im))),
        Scalar::C64(z) => Scalar::C64(Complex64::new(flush64(z.re), flush64(z.im))),
        other => other,
    }
}

/// `data` with subnormal elements (parts) flushed, if `flush` applies to its type.
pub fn flush_data(data: &mut HostData, flush: SubnormalFlush) {
    if !flush.applies_to(data.dtype()) {
        return;
    }
    match data {
        HostData::F32(v) => v.iter_mut().for_each(|x| *x = flush32(*x)),
        HostData::BF16(v) => v.iter_mut().for_each(|x| *x = flush_bf16(*x)),
        HostData::F64(v) => v.iter_mut().for_each(|x| *x = flush64(*x)),
        HostData::C32(v) => v
            .iter_mut()
            .for_each(|z| *z = Complex32::new(flush32(z.re), flush32(z.im))),
        HostData::C64(v) => v
            .iter_mut()
            .for_each(|z| *z = Complex64::new(flush64(z.re), flush64(z.im))),
        _ => {}
    }
}

/// Replaces every subnormal a case feeds the device (inputs, padding, scalar operands) by
/// a zero of its sign, for the precisions `flush` declares.
pub fn flush_case(case: &mut Case, flush: SubnormalFlush) {
    if !flush.any() {
        return;
    }
    for input in &mut case.inputs {
        flush_data(&mut input.array.data, flush);
        flush_data(&mut input.pad_before, flush);
        flush_data(&mut input.pad_after, flush);
    }
    match &mut case.op {
        Op::Fill(v) | Op::Full { value: v, .. } => *v = flush_scalar(*v, flush),
        Op::Arange { start, step, .. } => {
            *start = flush_scalar(*start, flush);
            *step = flush_scalar(*step, flush);
        }
        Op::Linspace { start, stop, .. } => {
            *start = flush_scalar(*start, flush);
            *stop = flush_scalar(*stop, flush);
        }
        _ => {}
    }
}

/// Whether a row of element type `dtype` (or any of its cases' types) is affected by
/// `flush`: its own type is flushed. Casts touch two types, so the row of `cast:T` on
/// `dtype` counts if either is flushed.
pub fn affects(flush: SubnormalFlush, dtype: DType, op: &str) -> bool {
    let cast_to = op
        .strip_prefix("cast:")
        .and_then(|t| DType::ALL.into_iter().find(|d| d.name() == t));
    flush.applies_to(dtype) || cast_to.is_some_and(|t| flush.applies_to(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;
    use crate::criterion::{Criterion, NonFinite, ZeroSigns};
    use crate::host::HostArray;
    use crate::tolerance::{Scale, Tolerance};

    const F32_ONLY: SubnormalFlush = SubnormalFlush {
        f32: true,
        f64: false,
    };

    #[test]
    fn flushing_keeps_signs_and_normals_and_only_declared_precisions() {
        let mut d = HostData::F32(vec![1e-40, -1e-40, f32::MIN_POSITIVE, 1.0, f32::NAN]);
        flush_data(&mut d, F32_ONLY);
        let HostData::F32(v) = &d else {
            panic!("type changed")
        };
        assert!(v[0] == 0.0 && v[0].is_sign_positive());
        assert!(v[1] == 0.0 && v[1].is_sign_negative());
        assert_eq!(v[2], f32::MIN_POSITIVE);
        assert_eq!(v[3], 1.0);
        assert!(v[4].is_nan());
        let mut d64 = HostData::F64(vec![1e-310]);
        flush_data(&mut d64, F32_ONLY);
        assert_eq!(d64, HostData::F64(vec![1e-310]));
        let z = flush_scalar(Scalar::C32(Complex32::new(1e-40, 2.0)), F32_ONLY);
        assert_eq!(z, Scalar::C32(Complex32::new(0.0, 2.0)));
    }

    #[test]
    fn bf16_subnormals_go_with_f32_and_f16_ones_never() {
        use gpuarrays_core::{bf16, f16};
        // bf16 0x0001 is 2^-133 (an f32 subnormal); f16 0x0001 is 2^-24 (a normal f32).
        let mut b = HostData::BF16(vec![
            bf16::from_bits(0x0001),
            bf16::from_bits(0x8001),
            bf16::ONE,
        ]);
        flush_data(&mut b, F32_ONLY);
        assert_eq!(
            b,
            HostData::BF16(vec![bf16::from_bits(0), bf16::from_bits(0x8000), bf16::ONE])
        );
        let mut h = HostData::F16(vec![f16::from_bits(0x0001)]);
        flush_data(&mut h, F32_ONLY);
        assert_eq!(h, HostData::F16(vec![f16::from_bits(0x0001)]));
        let s = flush_scalar(Scalar::BF16(bf16::from_bits(0x0040)), F32_ONLY);
        assert_eq!(s, Scalar::BF16(bf16::from_bits(0)));
    }

    /// Exact results (as `neg`, `abs`, comparisons) unless `eps`; then 4 ε of the value.
    fn criterion_with(flushed: bool, eps: bool) -> Criterion {
        Criterion {
            tolerance: if eps {
                Tolerance::Eps {
                    units: 4.0,
                    scale: Scale::Value,
                }
            } else {
                Tolerance::Exact
            },
            zeros: ZeroSigns::Match,
            non_finite: NonFinite::Exact,
            flushed_subnormals: flushed,
        }
    }

    fn criterion(flushed: bool) -> Criterion {
        criterion_with(flushed, false)
    }

    fn f32s(v: &[f32]) -> HostArray {
        HostArray::new(vec![v.len()], HostData::F32(v.to_vec()))
    }

    fn c32s(v: &[(f32, f32)]) -> HostArray {
        let data = v.iter().map(|&(re, im)| Complex32::new(re, im)).collect();
        HostArray::new(vec![v.len()], HostData::C32(data))
    }

    #[test]
    fn ftz_rule_accepts_subnormal_against_zero_only_when_declared() {
        let sub = f32::from_bits(1);
        let cases = [
            // (expected, got)
            (vec![1e-40f32, -1e-40], vec![0.0f32, -0.0]),
            (vec![sub], vec![0.0]),
            (vec![0.0], vec![1e-39]),
            (vec![1e-39], vec![5e-40]),
        ];
        for (e, g) in &cases {
            let strict = compare(&f32s(e), &f32s(g), &criterion(false));
            assert!(
                strict.mismatch.is_some(),
                "strict rule accepted {g:?} for {e:?}"
            );
            let ftz = compare(&f32s(e), &f32s(g), &criterion(true));
            assert_eq!(ftz.mismatch, None, "FTZ rule refused {g:?} for {e:?}");
        }
        let (e, g) = (c32s(&[(1.0, 1e-40)]), c32s(&[(1.0, 0.0)]));
        assert!(compare(&e, &g, &criterion(false)).mismatch.is_some());
        assert_eq!(compare(&e, &g, &criterion(true)).mismatch, None);
    }

    #[test]
    fn ftz_rule_stays_strict_elsewhere() {
        let ftz = criterion_with(true, true);
        // Normal values off by far more than the tolerance, a zero of the wrong sign, a
        // lost NaN or infinity, and a flushed value of the wrong sign still fail.
        let cases = [
            (vec![1.0f32], vec![1.001f32]),
            (vec![f32::MIN_POSITIVE * 4.0], vec![0.0]),
            (vec![0.0], vec![-0.0]),
            (vec![1e-40], vec![-0.0]),
            (vec![f32::NAN], vec![0.0]),
            (vec![f32::INFINITY], vec![f32::MAX]),
        ];
        for (e, g) in &cases {
            let out = compare(&f32s(e), &f32s(g), &ftz);
            assert!(out.mismatch.is_some(), "FTZ rule accepted {g:?} for {e:?}");
        }
    }
}
