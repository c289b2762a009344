//! Rows of elementwise operations: every unary and binary operation, every cast pair,
//! select, a fused expression, and evaluation into derived destinations.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, UnaryOp};

use super::{
    RowSpec, Sizes, all_specials, derived, inp, other_dtype, reinterpret_or_slice, single_inputs,
    special_count,
};
use crate::case::{CaseSpec, InputSpec, Layout, Op};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for op in UnaryOp::ALL {
        for d in DType::ALL {
            // Library functions also where they are delicate (Profile::Spread).
            let spread = (op.is_transcendental() || op == UnaryOp::Angle)
                .then(|| inp(d, &[super::ODD]).profile(Profile::Spread));
            let cases = single_inputs(s, d, Profile::General)
                .into_iter()
                .chain([all_specials(d, &[special_count(d)])])
                .chain(spread)
                .map(|i| CaseSpec::new(Op::Unary(op), vec![i]))
                .collect();
            rows.push(RowSpec::new(op.name(), d, cases));
        }
    }
    for op in BinaryOp::ALL {
        for d in DType::ALL {
            rows.push(RowSpec::new(op.name(), d, binary_cases(s, op, d)));
        }
    }
    for to in DType::ALL {
        for d in DType::ALL {
            let cases = cast_inputs(s, d)
                .into_iter()
                .map(|i| CaseSpec::new(Op::Cast(to), vec![i]))
                .collect();
            rows.push(RowSpec::new(format!("cast:{to}"), d, cases));
        }
    }
    for d in DType::ALL {
        rows.push(RowSpec::new("select", d, select_cases(s, d)));
        rows.push(RowSpec::new("fused", d, fused_cases(s, d)));
        rows.push(RowSpec::new("eval_into", d, eval_into_cases(d)));
    }
}

/// Pairs of operand shapes that broadcast (NumPy rules), including 0-d and empty ones.
pub const BROADCAST_PAIRS: [(&[usize], &[usize]); 7] = [
    (&[3, 1], &[4]),
    (&[], &[2, 3]),
    (&[2, 1, 4], &[3, 1]),
    (&[4], &[3, 1]),
    (&[5], &[]),
    (&[0, 3], &[1, 3]),
    (&[2, 3], &[2, 1]),
];

fn pair(op: Op, a: InputSpec, b: InputSpec) -> CaseSpec {
    CaseSpec::new(op, vec![a, b])
}

/// `op` on a column of every special value against a row of them: every pair once.
fn special_pairs(op: Op, d: DType) -> CaseSpec {
    let n = special_count(d);
    pair(op, all_specials(d, &[n, 1]), all_specials(d, &[n]))
}

fn binary_cases(s: &Sizes, op: BinaryOp, d: DType) -> Vec<CaseSpec> {
    let o = Op::Binary(op);
    let mut v: Vec<CaseSpec> = s
        .elementwise()
        .iter()
        .map(|dims| pair(o.clone(), inp(d, dims), inp(d, dims)))
        .collect();
    for (a, b) in BROADCAST_PAIRS {
        v.push(pair(o.clone(), inp(d, a), inp(d, b)));
    }
    let r = reinterpret_or_slice(d);
    v.push(pair(
        o.clone(),
        inp(d, &[2, 3, 4]).layout(Layout::Slice),
        inp(d, &[2, 3, 4]).layout(Layout::RowView),
    ));
    v.push(pair(
        o.clone(),
        inp(d, &[super::ODD]).layout(r),
        inp(d, &[super::ODD]).layout(Layout::Slice),
    ));
    v.push(pair(
        o.clone(),
        inp(d, &[3, 1]).layout(Layout::RowView),
        inp(d, &[4]).layout(r),
    ));
    v.push(CaseSpec::new(Op::BinaryLit(op), vec![inp(d, &[3, 5])]));
    v.push(special_pairs(o.clone(), d));
    v.push(CaseSpec::new(
        Op::BinaryLit(op),
        vec![all_specials(d, &[special_count(d)])],
    ));
    if matches!(op, BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Rem) {
        let spread = || inp(d, &[super::ODD]).profile(Profile::Spread);
        v.push(pair(o.clone(), spread(), spread()));
    }
    // Errors: operands of two types; shapes that do not broadcast.
    v.push(pair(o.clone(), inp(d, &[4]), inp(other_dtype(d), &[4])));
    v.push(pair(o, inp(d, &[3]), inp(d, &[4])));
    v
}

fn cast_inputs(s: &Sizes, d: DType) -> Vec<InputSpec> {
    let mut dims: Vec<Vec<usize>> = vec![vec![], vec![0], vec![7], vec![super::ODD], vec![2, 3, 4]];
    if !s.quick {
        dims.push(vec![super::LARGE]);
    }
    let plain = dims
        .into_iter()
        .map(|x| inp(d, &x))
        .chain([all_specials(d, &[special_count(d)])]);
    let derived = derived(d)
        .into_iter()
        .take(3)
        .map(|(x, l)| inp(d, &x).layout(l));
    plain.chain(derived).collect()
}

fn select_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let b = DType::Bool;
    let tri = |c: InputSpec, x: InputSpec, y: InputSpec| CaseSpec::new(Op::Select, vec![c, x, y]);
    let mut v: Vec<CaseSpec> = s
        .elementwise()
        .iter()
        .map(|dims| tri(inp(b, dims), inp(d, dims), inp(d, dims)))
        .collect();
    v.push(tri(inp(b, &[3, 1]), inp(d, &[4]), inp(d, &[])));
    let n = special_count(d);
    v.push(tri(inp(b, &[n]), all_specials(d, &[n]), inp(d, &[n])));
    v.push(tri(inp(b, &[]), inp(d, &[2, 3]), inp(d, &[2, 3])));
    v.push(tri(inp(b, &[2, 1, 4]), inp(d, &[3, 1]), inp(d, &[4])));
    v.push(tri(
        inp(b, &[2, 3, 4]).layout(Layout::Slice),
        inp(d, &[2, 3, 4]).layout(Layout::RowView),
        inp(d, &[2, 3, 4]).layout(reinterpret_or_slice(d)),
    ));
    // Errors: a condition that is not bool; branches of two types.
    v.push(tri(inp(DType::U8, &[4]), inp(d, &[4]), inp(d, &[4])));
    v.push(tri(inp(b, &[4]), inp(d, &[4]), inp(other_dtype(d), &[4])));
    v
}

fn fused_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut v: Vec<CaseSpec> = s
        .elementwise()
        .iter()
        .map(|dims| pair(Op::Fused, inp(d, dims), inp(d, dims)))
        .collect();
    for (a, b) in BROADCAST_PAIRS.iter().take(3) {
        v.push(pair(Op::Fused, inp(d, a), inp(d, b)));
    }
    v.push(special_pairs(Op::Fused, d));
    v.push(pair(
        Op::Fused,
        inp(d, &[super::ODD]).layout(Layout::Slice),
        inp(d, &[super::ODD]).layout(reinterpret_or_slice(d)),
    ));
    v
}

fn eval_into_cases(d: DType) -> Vec<CaseSpec> {
    let plain = Op::EvalInto { self_read: false };
    let reading = Op::EvalInto { self_read: true };
    let into = |dst: InputSpec, rest: Vec<InputSpec>, op: &Op| {
        let mut ins = vec![dst];
        ins.extend(rest);
        CaseSpec::new(op.clone(), ins)
    };
    let mut v = Vec::new();
    for (dims, layout) in [
        (vec![3, 5], Layout::Slice),
        (vec![super::ODD], Layout::Slice),
        (vec![2, 3, 4], Layout::RowView),
        (vec![0], Layout::Slice),
        (vec![], Layout::Slice),
        (vec![7], reinterpret_or_slice(d)),
        (vec![3, 5], Layout::Strided),
        (vec![2, 3, 4], Layout::Reversed),
        (vec![4, 6], Layout::Transposed),
    ] {
        let dst = inp(d, &dims).layout(layout);
        v.push(into(dst, vec![inp(d, &dims), inp(d, &dims)], &plain));
    }
    v.push(into(
        inp(d, &[3, 4]).layout(Layout::Slice),
        vec![inp(d, &[3, 4]), inp(d, &[4])],
        &plain,
    ));
    let n = special_count(d);
    v.push(into(
        inp(d, &[n, n]).layout(Layout::Slice),
        vec![all_specials(d, &[n, 1]), all_specials(d, &[n])],
        &plain,
    ));
    v.push(into(
        inp(d, &[3, 5]).layout(Layout::Slice),
        vec![inp(d, &[3, 5])],
        &reading,
    ));
    v.push(into(
        inp(d, &[7]).layout(Layout::RowView),
        vec![inp(d, &[])],
        &reading,
    ));
    for (dims, layout) in [
        (vec![3, 5], Layout::Strided),
        (vec![4, 6], Layout::Transposed),
        (vec![2, 3, 4], Layout::Reversed),
    ] {
        v.push(into(
            inp(d, &dims).layout(layout),
            vec![inp(d, &dims)],
            &reading,
        ));
    }
    // Error: the expression's shape is not the destination's.
    v.push(into(
        inp(d, &[3, 5]).layout(Layout::Slice),
        vec![inp(d, &[3, 4]), inp(d, &[3, 4])],
        &plain,
    ));
    v
}
