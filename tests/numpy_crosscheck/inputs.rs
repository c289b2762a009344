//! Input builders shared by the reduction and axis-operation cases: shaped inputs of each
//! kind, the axis shapes, lanes of special values, and values tame enough for every
//! operation.

use super::*;

/// The shapes axis-wise operations run on. The 2-D input is a view into a larger buffer
/// and the 3-D one a reshaped slice, so offsets are exercised everywhere.
pub(crate) fn shaped_input(
    rng: &mut Rng,
    rec: &mut Recorder,
    dtype: DType,
    dims: &[usize],
    kind: Kind,
) -> In {
    let n: usize = dims.iter().product();
    match dims {
        [37, 53] => {
            let v = values(rng, dtype, 40 * 53, kind);
            rec.array(dtype, &[40, 53], &v).view(&[2..39, 0..53])
        }
        [4, 6, 9] => {
            let v = values(rng, dtype, 230, kind);
            rec.array(dtype, &[230], &v)
                .view(&[7..223])
                .reshape(&[4, 6, 9])
        }
        _ => {
            let v = values(rng, dtype, n, kind);
            rec.array(dtype, dims, &v)
        }
    }
}

pub(crate) const AXIS_SHAPES: [&[usize]; 9] = [
    &[1],
    &[1001],
    &[37, 53],
    &[5, 1, 7],
    &[4, 6, 9],
    &[0],
    &[3, 0],
    &[0, 4],
    &[0, 0],
];

pub(crate) fn special_lanes(rec: &mut Recorder, dtype: DType) -> (In, In) {
    let sp = specials(dtype);
    let k = sp.len();
    let pairs: Vec<Scalar> = (0..2 * k * k)
        .map(|i| {
            if i < k * k {
                sp[i / k]
            } else {
                sp[(i - k * k) % k]
            }
        })
        .collect();
    (
        rec.array(dtype, &[2, k * k], &pairs),
        rec.array(dtype, &[k, 1], &sp),
    )
}

/// Few, tame values: floats from {NaN, ±inf, ±0, ±1, 2, -0.5}, complex parts from
/// {0, ±1, 2} (with `with_inf`, also ±inf and NaN), integers in [-3, 3].
pub(crate) fn tame_values(rng: &mut Rng, dtype: DType, n: usize, with_inf: bool) -> Vec<Scalar> {
    let floats = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -0.5,
    ];
    (0..n)
        .map(|_| {
            if dtype.is_complex() {
                let parts: &[f64] = if with_inf {
                    &[
                        0.0,
                        1.0,
                        -1.0,
                        2.0,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                    ]
                } else {
                    &[0.0, 1.0, -1.0, 2.0]
                };
                values::complex(dtype, rng.pick(parts), rng.pick(parts))
            } else if dtype.is_float() {
                Scalar::F64(rng.pick(&floats)).cast(dtype)
            } else {
                Scalar::I64(rng.int(-3, 3)).cast(dtype)
            }
        })
        .collect()
}
