//! Rows of reordering operations (reverse, permute, transpose, sort), find, find_first and
//! matrix products.

use gpuarrays_core::DType;

use super::{LARGE, ODD, RowSpec, Sizes, all_specials, inp, reinterpret_or_slice, special_count};
use crate::case::{CaseSpec, InputSpec, Layout, Op};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("reverse", d, reverse_cases(s, d)));
        rows.push(RowSpec::new("permute", d, permute_cases(s, d)));
        rows.push(RowSpec::new("transpose", d, transpose_cases(d)));
        rows.push(RowSpec::new("sort", d, sort_cases(s, d)));
        rows.push(RowSpec::new("find", d, find_cases(s, d, Op::Find)));
        rows.push(RowSpec::new(
            "find_first",
            d,
            find_cases(s, d, Op::FindFirst),
        ));
        rows.push(RowSpec::new("matmul", d, matmul_cases(s, d)));
    }
}

fn one(op: Op, i: InputSpec) -> CaseSpec {
    CaseSpec::new(op, vec![i])
}

fn reverse_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, usize, Layout)> = vec![
        (vec![7], 0, Layout::Plain),
        (vec![ODD], 0, Layout::Plain),
        (vec![3, 5], 0, Layout::Plain),
        (vec![3, 5], 1, Layout::Plain),
        (vec![2, 3, 4], 0, Layout::Plain),
        (vec![2, 3, 4], 1, Layout::Plain),
        (vec![2, 3, 4], 2, Layout::Plain),
        (vec![0, 3], 0, Layout::Plain),
        (vec![0, 3], 1, Layout::Plain),
        (vec![2, 3, 4], 1, Layout::RowView),
        (vec![3, 5], 1, Layout::Strided),
        (vec![2, 3, 4], 0, Layout::Reversed),
        (vec![4, 6], 1, Layout::Transposed),
        (vec![7], 0, reinterpret_or_slice(d)),
        // Errors: a 0-d array has no axis; an axis past the last.
        (vec![], 0, Layout::Plain),
        (vec![3, 5], 2, Layout::Plain),
    ];
    if !s.quick {
        specs.extend([
            (vec![LARGE], 0, Layout::Plain),
            (vec![1031, 517], 0, Layout::Plain),
            (vec![1031, 517], 1, Layout::Plain),
        ]);
    }
    specs
        .into_iter()
        .map(|(dims, axis, l)| one(Op::Reverse(axis), inp(d, &dims).layout(l)))
        .collect()
}

fn permute_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, Vec<usize>, Layout)> = vec![
        (vec![2, 3, 4], vec![2, 0, 1], Layout::Plain),
        (vec![2, 3, 4], vec![1, 0, 2], Layout::Plain),
        (vec![2, 3, 4], vec![0, 1, 2], Layout::Plain),
        (vec![3, 5], vec![1, 0], Layout::Plain),
        (vec![2, 1, 3, 2], vec![3, 1, 0, 2], Layout::Plain),
        (vec![0, 3], vec![1, 0], Layout::Plain),
        (vec![], vec![], Layout::Plain),
        (vec![5, 3, 4], vec![2, 1, 0], Layout::RowView),
        (vec![2, 3, 4], vec![2, 0, 1], Layout::Strided),
        (vec![2, 3, 4], vec![1, 2, 0], Layout::Transposed),
        (vec![3, 5], vec![1, 0], Layout::Slice),
        // A short side of 8-31 elements next to a long one: the GPU backends move such
        // planes in oblong tiles (HIP: 8 x 128, 16 x 64 and 64 x 16 here).
        (vec![3, 8, 20], vec![0, 2, 1], Layout::Plain),
        (vec![9, 40], vec![1, 0], Layout::Plain),
        (vec![40, 12], vec![1, 0], Layout::Plain),
        // Errors: a repeated axis; too few axes.
        (vec![2, 3, 4], vec![0, 0, 1], Layout::Plain),
        (vec![2, 3], vec![0], Layout::Plain),
    ];
    if !s.quick {
        specs.extend([
            (vec![517, 1031], vec![1, 0], Layout::Plain),
            (vec![64, 128, 129], vec![2, 0, 1], Layout::Plain),
            // Oblong tiles with partial ones along both sides.
            (vec![33, 8, 300], vec![2, 0, 1], Layout::Plain),
            (vec![1000, 12], vec![1, 0], Layout::Plain),
        ]);
    }
    specs
        .into_iter()
        .map(|(dims, axes, l)| one(Op::Permute(axes), inp(d, &dims).layout(l)))
        .collect()
}

fn transpose_cases(d: DType) -> Vec<CaseSpec> {
    [
        (vec![3, 5], Layout::Plain),
        (vec![1, 7], Layout::Plain),
        (vec![0, 3], Layout::Plain),
        (vec![ODD, 2], Layout::Plain),
        (vec![5, 3], Layout::RowView),
        (vec![5, 3], Layout::Strided),
        (vec![4, 6], Layout::Transposed),
        // Errors: transpose is for 2-D arrays.
        (vec![2, 3, 4], Layout::Plain),
        (vec![7], Layout::Plain),
    ]
    .into_iter()
    .map(|(dims, l)| one(Op::Transpose, inp(d, &dims).layout(l)))
    .collect()
}

fn sort_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, Layout)> = vec![
        (vec![7], Layout::Plain),
        (vec![ODD], Layout::Plain),
        (vec![3, 5], Layout::Plain),
        (vec![2, 3, 4], Layout::Plain),
        (vec![0], Layout::Plain),
        (vec![3, 0], Layout::Plain),
        (vec![1], Layout::Plain),
        (vec![ODD], Layout::Slice),
        (vec![5, 7], Layout::RowView),
        (vec![3, 5], Layout::Strided),
        (vec![2, 3, 4], Layout::Reversed),
        (vec![4, 6], Layout::Transposed),
        (vec![64], reinterpret_or_slice(d)),
        // Error: a 0-d array has no axis to sort along.
        (vec![], Layout::Plain),
    ];
    if !s.quick {
        specs.extend([
            (vec![LARGE], Layout::Plain),
            (vec![517, 1031], Layout::Plain),
        ]);
    }
    let profiles = [Profile::General, Profile::Finite];
    let n = special_count(d);
    specs
        .into_iter()
        .enumerate()
        .map(|(i, (dims, l))| {
            let x = inp(d, &dims).layout(l).profile(profiles[i % 2]);
            one(Op::Sort, x)
        })
        // Every special value, in one row and in rows of three (NaN of both signs last).
        .chain([
            one(Op::Sort, all_specials(d, &[n])),
            one(Op::Sort, all_specials(d, &[n, 3])),
        ])
        .collect()
}

fn find_cases(s: &Sizes, d: DType, op: Op) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, Layout, Profile)> = vec![
        (vec![7], Layout::Plain, Profile::Sparse(0.3)),
        (vec![ODD], Layout::Plain, Profile::Sparse(0.3)),
        (vec![ODD], Layout::Plain, Profile::Sparse(0.002)),
        (vec![3, 5], Layout::Plain, Profile::Sparse(0.5)),
        (vec![2, 3, 4], Layout::Plain, Profile::Sparse(0.1)),
        (vec![0], Layout::Plain, Profile::Sparse(0.5)),
        (vec![1], Layout::Plain, Profile::Sparse(1.0)),
        (vec![9], Layout::Plain, Profile::Sparse(0.0)),
        (vec![9], Layout::Plain, Profile::Sparse(1.0)),
        (vec![ODD], Layout::Slice, Profile::Sparse(0.05)),
        (vec![5, 7], Layout::RowView, Profile::Sparse(0.2)),
        (vec![64], reinterpret_or_slice(d), Profile::Sparse(0.2)),
        // Error: a 0-d array.
        (vec![], Layout::Plain, Profile::Sparse(0.5)),
    ];
    // Every special value: NaN and subnormals are non-zero, -0.0 is zero.
    specs.push((vec![special_count(d)], Layout::Plain, Profile::AllSpecials));
    if !s.quick {
        specs.push((vec![LARGE], Layout::Plain, Profile::Sparse(0.001)));
        specs.push((vec![LARGE], Layout::Plain, Profile::Sparse(0.5)));
    }
    specs
        .into_iter()
        .map(|(dims, l, p)| one(op.clone(), inp(d, &dims).layout(l).profile(p)))
        .collect()
}

/// Past this inner dimension lavapipe ran out of loop iterations in the wgpu kernel and
/// dropped the remaining terms; the long rows go beyond it.
const LONG: usize = 70_000;

fn matmul_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, Vec<usize>, Layout)> = vec![
        (vec![3, 4], vec![4, 5], Layout::Plain),
        (vec![1, 1], vec![1, 1], Layout::Plain),
        (vec![7, 13], vec![13, 5], Layout::Plain),
        (vec![33, 65], vec![65, 17], Layout::Plain),
        (vec![2, 3, 4], vec![2, 4, 5], Layout::Plain),
        (vec![1, 3, 4], vec![3, 4, 2], Layout::Plain),
        (vec![3, 3, 4], vec![1, 4, 2], Layout::Plain),
        (vec![3, 4], vec![2, 4, 5], Layout::Plain),
        (vec![2, 3, 4], vec![4, 5], Layout::Plain),
        (vec![3, 0], vec![0, 4], Layout::Plain),
        (vec![0, 3], vec![3, 4], Layout::Plain),
        (vec![5, 3, 4], vec![5, 4, 2], Layout::RowView),
        (vec![3, 4], vec![4, 5], Layout::Strided),
        (vec![4, 6], vec![6, 3], Layout::Transposed),
        (vec![2, 3, 4], vec![2, 4, 3], Layout::Reversed),
        (vec![6, 7], vec![7, 3], Layout::Slice),
        // An empty batch against a batch of 1 (or a 2-D operand) stays empty, as in NumPy.
        (vec![0, 3, 4], vec![1, 4, 5], Layout::Plain),
        (vec![1, 3, 4], vec![0, 4, 5], Layout::Plain),
        (vec![0, 3, 4], vec![4, 5], Layout::Plain),
        (vec![3, 4], vec![0, 4, 5], Layout::Plain),
        (vec![0, 3, 4], vec![0, 4, 5], Layout::Plain),
        // Empty m, n or k between 2-D and 3-D operands (k = 0: every product is zero).
        (vec![2, 0, 4], vec![4, 5], Layout::Plain),
        (vec![1, 3, 4], vec![2, 4, 0], Layout::Plain),
        (vec![2, 3, 0], vec![0, 5], Layout::Plain),
        (vec![3, 0], vec![2, 0, 5], Layout::Plain),
        (vec![1, 3, 0], vec![4, 0, 2], Layout::Plain),
        // Errors: inner sizes differ; batches differ; 1-D operand; an empty batch against
        // a batch of 2.
        (vec![2, 3], vec![4, 2], Layout::Plain),
        (vec![2, 3, 4], vec![3, 4, 5], Layout::Plain),
        (vec![3], vec![3, 4], Layout::Plain),
        (vec![0, 3, 4], vec![2, 4, 5], Layout::Plain),
    ];
    if !s.quick {
        specs.extend([
            (vec![128, 257], vec![257, 129], Layout::Plain),
            (vec![8, 64, 65], vec![8, 65, 33], Layout::Plain),
        ]);
    }
    // Finite values, then with NaN, ±inf, ±0 and subnormals (whose effect on a sum of
    // products does not depend on its order), in turn.
    let profiles = [Profile::Finite, Profile::WithInf];
    let n = special_count(d);
    let mut cases: Vec<CaseSpec> = specs
        .into_iter()
        .enumerate()
        .map(|(i, (a, b, l))| {
            let p = profiles[i % 2];
            CaseSpec::new(
                Op::Matmul,
                vec![
                    inp(d, &a).layout(l).profile(p),
                    inp(d, &b).layout(l).profile(p),
                ],
            )
        })
        .collect();
    // An inner size of one: every product of two special values, once.
    cases.push(CaseSpec::new(
        Op::Matmul,
        vec![all_specials(d, &[n, 1]), all_specials(d, &[1, n])],
    ));
    // Long inner, row, column and batch dimensions, of small non-negative integers, so the
    // results are exact and a term left out shows: k past 2^16, m or n of 70,000 over a
    // short k, 70,000 small products (one operand repeated in the last).
    let long: [(Vec<usize>, Vec<usize>); 6] = [
        (vec![1, LONG], vec![LONG, 1]),
        (vec![2, LONG], vec![LONG, 3]),
        (vec![2, 1, LONG], vec![LONG, 2]),
        (vec![1, 5], vec![5, LONG]),
        (vec![LONG, 5], vec![5, 1]),
        (vec![LONG, 2, 3], vec![LONG, 3, 2]),
    ];
    let repeated = (vec![LONG, 2, 3], vec![1, 3, 2]);
    cases.extend(long.into_iter().chain([repeated]).map(|(a, b)| {
        CaseSpec::new(
            Op::Matmul,
            vec![
                inp(d, &a).profile(Profile::SmallInts),
                inp(d, &b).profile(Profile::SmallInts),
            ],
        )
    }));
    cases
}
