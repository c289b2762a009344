//! Rows of `repeat_counts` (NumPy `repeat` with one count per element), `logspace` and
//! `einsum`, for every element type: empty and 0-d shapes, strided, transposed and
//! reversed inputs, and the refusals. (`pad`'s reflect and symmetric rows are in
//! `join.rs`.)

use gpuarrays_core::DType;

use super::{ODD, RowSpec, Sizes, inp, other_dtype};
use crate::case::{CaseSpec, ExtraCase, InputSpec, Layout, Op};
use crate::oracle::value::from_real;
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("repeat_counts", d, repeat_counts_cases(d)));
        rows.push(RowSpec::new("logspace", d, logspace_cases(d)));
        rows.push(RowSpec::new("einsum", d, einsum_cases(s, d)));
    }
}

fn counts(t: DType, dims: &[usize], lo: i64, hi: i64) -> InputSpec {
    inp(t, dims).profile(Profile::Indices(lo, hi))
}

fn repeat_counts_cases(d: DType) -> Vec<CaseSpec> {
    let rep = |dims: &[usize], layout, c: InputSpec, axis| {
        CaseSpec::new(
            Op::Extra(ExtraCase::RepeatCounts(axis)),
            vec![inp(d, dims).layout(layout), c],
        )
    };
    use DType::{F32, I32, I64, U8, U32, U64};
    let plain = Layout::Plain;
    vec![
        rep(&[5], plain, counts(I64, &[5], 0, 4), None),
        rep(&[2, 3], plain, counts(U8, &[3], 0, 4), Some(1)),
        rep(&[2, 3], plain, counts(I32, &[2], 0, 5), Some(0)),
        rep(&[2, 3], plain, counts(U64, &[6], 0, 3), None),
        rep(
            &[4, 6],
            Layout::Transposed,
            counts(I32, &[6], 0, 4),
            Some(1),
        ),
        rep(&[3, 5], Layout::Strided, counts(U32, &[3], 0, 4), Some(0)),
        rep(
            &[2, 3, 4],
            Layout::Reversed,
            counts(I64, &[3], 0, 4),
            Some(1),
        ),
        rep(&[ODD], Layout::Slice, counts(I64, &[ODD], 0, 3), Some(0)),
        // One count for every element (1-D and 0-d counts); a 0-d array.
        rep(&[2, 3], plain, counts(I64, &[1], 0, 4), Some(0)),
        rep(&[2, 3], plain, counts(I32, &[], 2, 3), Some(1)),
        rep(&[], plain, counts(I64, &[1], 3, 4), None),
        // All counts zero; empty arrays.
        rep(&[2, 3], plain, counts(I64, &[3], 0, 1), Some(1)),
        rep(&[0, 3], plain, counts(I64, &[0], 0, 4), Some(0)),
        rep(&[0, 3], plain, counts(I64, &[3], 0, 4), Some(1)),
        // Errors: a negative count (of several, and alone); counts of the wrong length;
        // float and 2-D counts; an axis too far.
        rep(&[2, 3], plain, counts(I32, &[3], -3, -1), Some(1)),
        rep(&[2, 3], plain, counts(I64, &[1], -3, -1), Some(1)),
        rep(&[2, 3], plain, counts(I64, &[4], 0, 4), Some(1)),
        rep(&[2, 3], plain, inp(F32, &[3]), Some(1)),
        rep(&[2, 3], plain, counts(I64, &[1, 3], 0, 4), Some(1)),
        rep(&[2, 3], plain, counts(I64, &[3], 0, 4), Some(2)),
    ]
}

fn logspace_cases(d: DType) -> Vec<CaseSpec> {
    let op = |start: f64, stop: f64, num, endpoint, base: f64| {
        let c = ExtraCase::Logspace {
            start: from_real(start, d),
            stop: from_real(stop, d),
            num,
            endpoint,
            base: from_real(base, d),
        };
        CaseSpec::new(Op::Extra(c), vec![])
    };
    vec![
        op(0.0, 3.0, 4, true, 10.0),
        op(0.0, 3.0, 7, false, 10.0),
        op(-2.0, 2.0, 9, true, 2.0),
        op(0.5, 1.5, ODD, true, 10.0),
        op(3.0, -1.0, 6, false, 0.5),
        op(1.0, 2.0, 0, true, 10.0),
        op(1.0, 2.0, 1, true, 10.0),
        op(1.0, 2.0, 1, false, 10.0),
        // A negative base: integer exponents, then NaN between them.
        op(0.0, 4.0, 5, true, -2.0),
        op(0.0, 1.0, 4, true, -2.0),
    ]
}

fn einsum_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let f = |dims: &[usize]| inp(d, dims).profile(Profile::Finite);
    let e = |spec: &'static str, ins: Vec<InputSpec>| {
        CaseSpec::new(Op::Extra(ExtraCase::Einsum(spec)), ins)
    };
    let mut v = vec![
        e("ij,jk->ik", vec![f(&[3, 4]), f(&[4, 5])]),
        e("ij,jk", vec![f(&[2, 3]), f(&[3, 2])]),
        e("ba,ac->cb", vec![f(&[3, 4]), f(&[4, 2])]),
        e("bij,bjk->bik", vec![f(&[2, 3, 4]), f(&[2, 4, 5])]),
        e("ij,j->i", vec![f(&[3, 4]), f(&[4])]),
        e("i,i->", vec![f(&[7]), f(&[7])]),
        e("i,j->ij", vec![f(&[3]), f(&[4])]),
        e(
            "ij,ij->ij",
            vec![f(&[3, 5]).layout(Layout::Strided), f(&[3, 5])],
        ),
        e(
            "ij,ij->",
            vec![f(&[3, 5]), f(&[3, 5]).layout(Layout::Reversed)],
        ),
        e("iij,jk->ik", vec![f(&[3, 3, 4]), f(&[4, 2])]),
        e("ij,kl->", vec![f(&[2, 3]), f(&[4, 2])]),
        e(
            "ij,kj->ki",
            vec![f(&[4, 6]).layout(Layout::Transposed), f(&[2, 6])],
        ),
        e("ii->i", vec![f(&[4, 4])]),
        e("ii", vec![f(&[3, 3])]),
        e("ij->ji", vec![f(&[3, 5]).layout(Layout::Strided)]),
        e("ij->", vec![f(&[4, 6]).layout(Layout::Transposed)]),
        e("ijk->ki", vec![f(&[2, 3, 4]).layout(Layout::Reversed)]),
        e("ijk", vec![f(&[2, 3, 4])]),
        // Empty and 0-d operands: an empty contraction is zero.
        e("ij,jk->ik", vec![f(&[0, 3]), f(&[3, 2])]),
        e("ij,jk->ik", vec![f(&[2, 0]), f(&[0, 3])]),
        e("ii", vec![f(&[0, 0])]),
        e(",->", vec![f(&[]), f(&[])]),
        e("->", vec![f(&[])]),
        // Errors: lengths that differ; an ellipsis; subscripts of another rank; two types;
        // three operands; an output subscript twice.
        e("ij,jk->ik", vec![f(&[2, 3]), f(&[4, 2])]),
        e("i...->i", vec![f(&[2, 3])]),
        e("ijk->i", vec![f(&[2, 3])]),
        e("ij,jk->ik", vec![f(&[2, 2]), inp(other_dtype(d), &[2, 2])]),
        e("i,i,i->", vec![f(&[2]), f(&[2]), f(&[2])]),
        e("ij->ii", vec![f(&[2, 2])]),
    ];
    if !s.quick {
        v.push(e("ij,jk->ik", vec![f(&[33, 1031]), f(&[1031, 17])]));
    }
    v
}
