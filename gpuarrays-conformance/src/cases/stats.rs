//! Rows of the operations core composes from other kernels: var and std (with ddof, over
//! everything and per axis, ddof at and past the lane length), logsumexp, the vector norms,
//! dot, vdot and outer. Bool rows (and integer and complex rows of logsumexp) check the
//! refusals.

use gpuarrays_core::{DType, NormOrd};

use super::reduce::{per_axis, whole};
use super::{ODD, RowSpec, Sizes, all_specials, inp, other_dtype, special_count};
use crate::case::{CaseSpec, InputSpec, Op, StatOp};
use crate::values::Profile;

fn var(axis: Option<usize>, ddof: usize, std: bool) -> Op {
    Op::Stat(StatOp::Var { axis, ddof, std })
}

/// Divisors of 0 (`n ≤ ddof`: NaN or +inf, as NumPy) and of 1.
fn ddof_cases(d: DType, std: bool) -> Vec<CaseSpec> {
    let one = |dims: &[usize], axis, ddof| {
        CaseSpec::new(
            var(axis, ddof, std),
            vec![inp(d, dims).profile(Profile::Finite)],
        )
    };
    vec![
        one(&[1], None, 1),
        one(&[3], None, 3),
        one(&[3], None, 7),
        one(&[4], None, 3),
        one(&[2, 3], Some(1), 5),
        one(&[0], None, 0),
        one(&[2, 0], Some(1), 1),
    ]
}

fn pairs(d: DType, op: StatOp, shapes: &[(&[usize], &[usize])]) -> Vec<CaseSpec> {
    let profiles = [Profile::Finite, Profile::General];
    shapes
        .iter()
        .enumerate()
        .map(|(i, (a, b))| {
            let p = profiles[i % 2];
            CaseSpec::new(
                Op::Stat(op),
                vec![inp(d, a).profile(p), inp(d, b).profile(p)],
            )
        })
        .collect()
}

/// A case of two inputs whose second has another element type (an error).
fn mismatched(d: DType, op: StatOp, dims: &[usize]) -> CaseSpec {
    CaseSpec::new(Op::Stat(op), vec![inp(d, dims), inp(other_dtype(d), dims)])
}

fn norm_cases(s: &Sizes, d: DType, ord: NormOrd) -> Vec<CaseSpec> {
    let op = Op::Stat(StatOp::Norm(ord));
    let p = [Profile::Finite, Profile::General, Profile::WithInf];
    if ord == NormOrd::Two {
        return whole(s, d, &p, |_| op.clone());
    }
    let n = special_count(d);
    let mut inputs: Vec<InputSpec> = [&[1][..], &[7], &[ODD], &[0]]
        .iter()
        .zip(p.iter().cycle())
        .map(|(dims, &pr)| inp(d, dims).profile(pr))
        .collect();
    inputs.push(all_specials(d, &[n]));
    inputs.push(all_specials(d, &[1]));
    // Errors: matrix norms of these orders are not provided.
    inputs.push(inp(d, &[3, 5]));
    inputs.push(inp(d, &[]));
    inputs
        .into_iter()
        .map(|i| CaseSpec::new(op.clone(), vec![i]))
        .collect()
}

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        let p = [Profile::Finite, Profile::WithInf];
        for (name, std) in [("var", false), ("std", true)] {
            let (whole_ddof, axis_ddof) = if std { (1, 0) } else { (0, 1) };
            let mut c = whole(s, d, &p, |_| var(None, whole_ddof, std));
            c.extend(per_axis(s, d, &p, |a| var(Some(a), axis_ddof, std)));
            c.extend(ddof_cases(d, std));
            rows.push(RowSpec::new(name, d, c));
        }
        let p = [Profile::General, Profile::Finite, Profile::WithInf];
        let lse = |axis| Op::Stat(StatOp::LogSumExp(axis));
        let mut c = whole(s, d, &p, |_| lse(None));
        c.extend(per_axis(s, d, &p, |a| lse(Some(a))));
        rows.push(RowSpec::new("logsumexp", d, c));
        for ord in NormOrd::ALL {
            rows.push(RowSpec::new(ord.name(), d, norm_cases(s, d, ord)));
        }
        let n = special_count(d);
        let mut c = pairs(
            d,
            StatOp::Dot,
            &[
                (&[0], &[0]),
                (&[1], &[1]),
                (&[7], &[7]),
                (&[ODD], &[ODD]),
                (&[3, 5], &[5]),
                (&[5], &[5, 4]),
                (&[3, 5], &[5, 4]),
                (&[0, 3], &[3]),
                (&[2, 0], &[0, 3]),
                // Errors: contracted lengths differ; ranks 3 and 0.
                (&[3], &[4]),
                (&[2, 3, 4], &[4]),
                (&[], &[]),
            ],
        );
        // Every product of two special values, once (an inner length of one).
        c.push(CaseSpec::new(
            Op::Stat(StatOp::Dot),
            vec![all_specials(d, &[n, 1]), all_specials(d, &[1, n])],
        ));
        c.push(mismatched(d, StatOp::Dot, &[3]));
        rows.push(RowSpec::new("dot", d, c));
        let mut c = pairs(
            d,
            StatOp::Vdot,
            &[
                (&[0], &[0]),
                (&[1], &[1]),
                (&[7], &[7]),
                (&[ODD], &[ODD]),
                (&[3, 5], &[15]),
                (&[2, 3], &[3, 2]),
                (&[], &[1]),
                // Error: lengths differ.
                (&[3], &[4]),
            ],
        );
        c.push(CaseSpec::new(
            Op::Stat(StatOp::Vdot),
            vec![all_specials(d, &[1]), all_specials(d, &[1])],
        ));
        c.push(mismatched(d, StatOp::Vdot, &[3]));
        rows.push(RowSpec::new("vdot", d, c));
        let mut c = pairs(
            d,
            StatOp::Outer,
            &[
                (&[0], &[3]),
                (&[1], &[1]),
                (&[7], &[5]),
                (&[3, 2], &[4]),
                (&[], &[3]),
                (&[ODD], &[3]),
            ],
        );
        c.push(CaseSpec::new(
            Op::Stat(StatOp::Outer),
            vec![all_specials(d, &[n]), all_specials(d, &[n])],
        ));
        c.push(mismatched(d, StatOp::Outer, &[3]));
        rows.push(RowSpec::new("outer", d, c));
    }
}
