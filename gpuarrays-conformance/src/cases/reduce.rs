//! Rows of reductions (over everything and per axis, including empty axes), means, and
//! cumulative sums, products, maxima and minima.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ReduceOp, ScanOp};

use super::{LARGE, ODD, RowSpec, Sizes, all_specials, inp, reinterpret_or_slice, special_count};
use crate::case::{CaseSpec, InputSpec, Layout, Op};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    use ReduceOp::*;
    for d in DType::ALL {
        for op in [Sum, Prod, Min, Max, ArgMin, ArgMax] {
            let p = profiles(op);
            rows.push(RowSpec::new(
                op.name(),
                d,
                whole(s, d, &p, |_| Op::Reduce(op, None)),
            ));
            rows.push(RowSpec::new(
                format!("{}_axis", op.name()),
                d,
                per_axis(s, d, &p, |a| Op::Reduce(op, Some(a))),
            ));
        }
        for (name, all) in [("any", false), ("all", true)] {
            let p = [
                Profile::Sparse(0.3),
                Profile::Sparse(0.0),
                Profile::Sparse(1.0),
            ];
            rows.push(RowSpec::new(
                name,
                d,
                whole(s, d, &p, |_| Op::AnyAll { all, axis: None }),
            ));
            rows.push(RowSpec::new(
                format!("{name}_axis"),
                d,
                per_axis(s, d, &p, |a| Op::AnyAll { all, axis: Some(a) }),
            ));
        }
        let p = profiles(Sum);
        rows.push(RowSpec::new("mean", d, whole(s, d, &p, |_| Op::Mean(None))));
        rows.push(RowSpec::new(
            "mean_axis",
            d,
            per_axis(s, d, &p, |a| Op::Mean(Some(a))),
        ));
        for op in ScanOp::ALL {
            let p = profiles(op.reduction());
            let mut cases = per_axis(s, d, &p, |a| Op::Scan(op, a));
            cases.push(CaseSpec::new(Op::Scan(op, 0), vec![inp(d, &[])]));
            rows.push(RowSpec::new(op.name(), d, cases));
        }
    }
}

/// Input profiles, used in turn: float sums and products depend on the order of evaluation,
/// so their special values are those whose effect does not (see [`Profile`]); order-free
/// reductions take everything.
fn profiles(op: ReduceOp) -> Vec<Profile> {
    match op {
        ReduceOp::Sum => vec![Profile::Finite, Profile::WithInf, Profile::HugeSum],
        ReduceOp::Prod => vec![
            Profile::NearOne,
            Profile::NearOneSpecial,
            Profile::Tiny,
            Profile::Huge,
        ],
        _ => vec![Profile::General, Profile::Finite],
    }
}

fn cycle(inputs: Vec<InputSpec>, profiles: &[Profile]) -> Vec<InputSpec> {
    inputs
        .into_iter()
        .enumerate()
        .map(|(i, x)| x.profile(profiles[i % profiles.len()]))
        .collect()
}

/// Reductions over every element.
pub(super) fn whole(s: &Sizes, d: DType, p: &[Profile], op: impl Fn(()) -> Op) -> Vec<CaseSpec> {
    let mut dims: Vec<Vec<usize>> = vec![
        vec![],
        vec![0],
        vec![1],
        vec![7],
        vec![ODD],
        vec![3, 5],
        vec![2, 3, 4],
        vec![0, 3],
    ];
    if !s.quick {
        dims.push(vec![LARGE]);
    }
    let mut inputs: Vec<InputSpec> = dims.iter().map(|x| inp(d, x)).collect();
    inputs.push(inp(d, &[ODD]).layout(Layout::Slice));
    inputs.push(inp(d, &[2, 3, 4]).layout(Layout::RowView));
    inputs.push(inp(d, &[3, 5]).layout(Layout::Strided));
    inputs.push(inp(d, &[4, 6]).layout(Layout::Transposed));
    inputs.push(inp(d, &[7]).layout(reinterpret_or_slice(d)));
    let mut inputs = cycle(inputs, p);
    // Every special value at once (NaN among them decides most results, in any order), and
    // a few of them alone, in pairs and 0-d.
    inputs.push(all_specials(d, &[special_count(d)]));
    for dims in [&[][..], &[1], &[1], &[2], &[2]] {
        inputs.push(all_specials(d, dims));
    }
    inputs
        .into_iter()
        .map(|i| CaseSpec::new(op(()), vec![i]))
        .collect()
}

/// Reductions and scans along each axis, including empty axes and a missing axis.
pub(super) fn per_axis(
    s: &Sizes,
    d: DType,
    p: &[Profile],
    op: impl Fn(usize) -> Op,
) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, usize, Layout)> = vec![
        (vec![7], 0, Layout::Plain),
        (vec![ODD], 0, Layout::Plain),
        (vec![3, 5], 0, Layout::Plain),
        (vec![3, 5], 1, Layout::Plain),
        (vec![2, 3, 4], 0, Layout::Plain),
        (vec![2, 3, 4], 1, Layout::Plain),
        (vec![2, 3, 4], 2, Layout::Plain),
        (vec![2, 1, 3, 2], 1, Layout::Plain),
        (vec![2, 1, 3, 2], 3, Layout::Plain),
        (vec![0, 3], 0, Layout::Plain),
        (vec![0, 3], 1, Layout::Plain),
        (vec![3, 0], 1, Layout::Plain),
        (vec![37, 129], 0, Layout::Plain),
        (vec![37, 129], 1, Layout::Plain),
        (vec![5, 3, 4], 1, Layout::RowView),
        (vec![3, 5], 1, Layout::Strided),
        (vec![2, 3, 4], 2, Layout::Reversed),
        (vec![4, 6], 0, Layout::Transposed),
        (vec![37, 129], 0, Layout::Slice),
        (vec![ODD], 0, reinterpret_or_slice(d)),
        // Error: an axis the array does not have.
        (vec![2, 3, 4], 3, Layout::Plain),
    ];
    if !s.quick {
        specs.extend([
            (vec![LARGE], 0, Layout::Plain),
            (vec![1031, 517], 0, Layout::Plain),
            (vec![1031, 517], 1, Layout::Plain),
            (vec![3, (1 << 18) + 1], 1, Layout::Plain),
        ]);
    }
    let inputs: Vec<InputSpec> = specs
        .iter()
        .map(|(dims, _, l)| inp(d, dims).layout(*l))
        .collect();
    let mut cases: Vec<CaseSpec> = cycle(inputs, p)
        .into_iter()
        .zip(&specs)
        .map(|(i, (_, axis, _))| CaseSpec::new(op(*axis), vec![i]))
        .collect();
    // Every pair of special values combined once (a lane of two along axis 0), and every
    // special value alone (lanes of one along axis 1).
    let n = special_count(d);
    cases.push(CaseSpec::new(
        op(0),
        vec![inp(d, &[2, n * n]).profile(Profile::SpecialPairs)],
    ));
    cases.push(CaseSpec::new(op(1), vec![all_specials(d, &[n, 1])]));
    cases
}
