//! Reductions for the NumPy cross-check: full, along each axis, of every kind of input.

use super::*;

const REDUCTION_KINDS: [(Kind, &str); 9] = [
    (Kind::Exact, "exact"),
    (Kind::Wide, "wide"),
    (Kind::Dups, "dups"),
    (Kind::Mixed, "mixed"),
    (Kind::ProdExact, "prod_exact"),
    (Kind::NearOne, "near_one"),
    (Kind::Density(0.02), "sparse"),
    (Kind::Density(1.0), "dense"),
    (Kind::Density(0.0), "zero"),
];

fn reduce_ops_for(kind: &str) -> &'static [&'static str] {
    match kind {
        "exact" | "wide" => &["sum", "mean"],
        "dups" => &[
            "sum", "mean", "min", "max", "argmin", "argmax", "any", "all",
        ],
        "mixed" => &["min", "max", "argmin", "argmax", "any", "all"],
        "prod_exact" | "near_one" => &["prod"],
        _ => &["any", "all"],
    }
}

fn run_reduce(a: &In, f: &str, axis: Option<usize>) -> Result<Out> {
    let op = match f {
        "sum" => ReduceOp::Sum,
        "prod" => ReduceOp::Prod,
        "min" => ReduceOp::Min,
        "max" => ReduceOp::Max,
        "argmin" => ReduceOp::ArgMin,
        "argmax" => ReduceOp::ArgMax,
        _ => {
            // any, all and mean are typed operations (any/all accept every type).
            return dispatch_dtype!(a.dtype(), T => {
                let t = a.raw.clone().into_typed::<T>()?;
                match (f, axis) {
                    ("any", None) => Ok(Out::scalar(Scalar::Bool(t.any()?))),
                    ("all", None) => Ok(Out::scalar(Scalar::Bool(t.all()?))),
                    ("mean", None) => Ok(Out::scalar(t.mean()?.to_scalar())),
                    ("any", Some(ax)) => Out::typed(&t.any_axis(ax)?),
                    ("all", Some(ax)) => Out::typed(&t.all_axis(ax)?),
                    ("mean", Some(ax)) => Out::typed(&t.mean_axis(ax)?),
                    _ => unreachable!("reduction {f}"),
                }
            });
        }
    };
    // Full reductions go through the typed scalar API, axis reductions through RawArray.
    match axis {
        None => a.raw.reduce_all(op).map(Out::scalar),
        Some(ax) => out(a.raw.reduce(op, Some(ax))),
    }
}

/// Full and per-axis reductions on every element type.
pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        for dims in AXIS_SHAPES {
            for (kind, kname) in REDUCTION_KINDS {
                let a = shaped_input(rng, rec, dtype, dims, kind);
                let axes = std::iter::once(None).chain((0..dims.len()).map(Some));
                for axis in axes {
                    for &f in reduce_ops_for(kname) {
                        let r = run_reduce(&a, f, axis);
                        let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kname});
                        let id = format!("reduce/{f}/{dtype}/{dims:?}/{axis:?}/{kname}");
                        rec.case(id, j, dtype, &[&a], r);
                    }
                }
            }
        }
        // Products over short axes of values that include NaN, ±inf and ±0 (no
        // overflow, so the result class does not depend on the order); complex values
        // with infinite and NaN parts too.
        for (kind, with_inf) in [("tame", false), ("tame_special", true)] {
            let tame = tame_values(rng, dtype, 5 * 7, with_inf);
            let a = rec.array(dtype, &[5, 7], &tame);
            for axis in [None, Some(1)] {
                let j = json!({"op": "reduce", "fn": "prod", "axis": axis, "kind": kind});
                let id = format!("reduce/prod/{dtype}/{kind}/{axis:?}");
                rec.case(id, j, dtype, &[&a], run_reduce(&a, "prod", axis));
            }
        }
        // Every pair of special values combined once (a lane of two along axis 0), and
        // each alone (lanes of one along axis 1): one operation, no order.
        let (pairs, alone) = special_lanes(rec, dtype);
        for f in ["sum", "prod", "mean", "min", "max", "argmin", "argmax"] {
            for (a, axis, kind) in [(&pairs, 0, "pairs"), (&alone, 1, "alone")] {
                let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kind});
                let id = format!("reduce/{f}/{dtype}/{kind}");
                rec.case(id, j, dtype, &[a], run_reduce(a, f, Some(axis)));
            }
        }
    }
    // Large inputs, split across threads.
    for dtype in [DType::F32, DType::F64, DType::I64, DType::U8, DType::Bool] {
        for (kind, kname) in [(Kind::Wide, "wide"), (Kind::Dups, "dups")] {
            let v = values(rng, dtype, 300_001, kind);
            let a = rec.array(dtype, &[300_001], &v);
            for &f in reduce_ops_for(kname) {
                let j = json!({"op": "reduce", "fn": f, "axis": null, "kind": kname});
                rec.case(
                    format!("large/reduce/{f}/{dtype}/{kname}"),
                    j,
                    dtype,
                    &[&a],
                    run_reduce(&a, f, None),
                );
            }
            let a2 = a.view(&[1..300_001]).reshape(&[1000, 300]);
            for &f in reduce_ops_for(kname) {
                for axis in [0, 1] {
                    let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kname});
                    let id = format!("large/reduce/{f}/{dtype}/{kname}/axis{axis}");
                    rec.case(id, j, dtype, &[&a2], run_reduce(&a2, f, Some(axis)));
                }
            }
        }
    }
}
