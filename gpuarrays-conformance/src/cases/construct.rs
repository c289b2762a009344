//! Rows of constructors and copies: fill, full, zeros, ones, arange, linspace, eye, tri,
//! meshgrid, copy, assign, broadcast_to, and the seeded random arrays.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;

use super::{LARGE, ODD, RowSpec, Sizes, inp, reinterpret_or_slice, single_inputs};
use crate::case::{CaseSpec, Layout, Op};
use crate::oracle::value::from_int;
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("fill", d, fill_cases(d)));
        rows.push(RowSpec::new("full", d, full_cases(d)));
        rows.push(RowSpec::new(
            "zeros",
            d,
            sized(d, |dims| Op::Zeros { dtype: d, dims }),
        ));
        rows.push(RowSpec::new(
            "ones",
            d,
            sized(d, |dims| Op::Ones { dtype: d, dims }),
        ));
        rows.push(RowSpec::new("arange", d, arange_cases(s, d)));
        rows.push(RowSpec::new("linspace", d, linspace_cases(s, d)));
        rows.push(RowSpec::new("eye", d, band_cases(d, false)));
        rows.push(RowSpec::new("tri", d, band_cases(d, true)));
        rows.push(RowSpec::new("meshgrid", d, meshgrid_cases(d)));
        let copies = single_inputs(s, d, Profile::General)
            .into_iter()
            .map(|i| CaseSpec::new(Op::Copy, vec![i]))
            .collect();
        rows.push(RowSpec::new("copy", d, copies));
        rows.push(RowSpec::new("assign", d, assign_cases(d)));
        rows.push(RowSpec::new("broadcast_to", d, broadcast_to_cases(d)));
        for (name, dist) in [
            ("random_uniform", Distribution::Uniform),
            ("random_normal", Distribution::Normal),
        ] {
            rows.push(RowSpec::new(name, d, random_cases(s, d, dist)));
        }
    }
}

const SMALL_SHAPES: [&[usize]; 5] = [&[], &[0], &[7], &[3, 5], &[2, 3, 4]];

fn sized(_d: DType, op: impl Fn(Vec<usize>) -> Op) -> Vec<CaseSpec> {
    SMALL_SHAPES
        .iter()
        .map(|dims| CaseSpec::new(op(dims.to_vec()), vec![]))
        .collect()
}

fn full_cases(d: DType) -> Vec<CaseSpec> {
    // The value is drawn per case (see `CaseSpec::materialize`).
    sized(d, |dims| Op::Full {
        dims,
        value: from_int(0, d),
    })
}

fn fill_cases(d: DType) -> Vec<CaseSpec> {
    let fill = Op::Fill(from_int(0, d));
    [
        (vec![], Layout::Slice),
        (vec![0], Layout::Slice),
        (vec![7], Layout::Slice),
        (vec![3, 5], Layout::Slice),
        (vec![ODD], Layout::Slice),
        (vec![2, 3, 4], Layout::RowView),
        (vec![7], reinterpret_or_slice(d)),
        (vec![4], Layout::Plain),
        (vec![3, 5], Layout::Strided),
        (vec![2, 3, 4], Layout::Reversed),
        (vec![4, 6], Layout::Transposed),
    ]
    .into_iter()
    .map(|(dims, l)| CaseSpec::new(fill.clone(), vec![inp(d, &dims).layout(l)]))
    .collect()
}

fn arange_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let lens = s.with_large(vec![0, 1, 7, ODD], vec![LARGE]);
    let op = |len| Op::Arange {
        start: from_int(0, d),
        step: from_int(1, d),
        len,
    };
    let mut v: Vec<CaseSpec> = lens
        .into_iter()
        .map(|len| CaseSpec::new(op(len), vec![]))
        .collect();
    // A special start and step (0·∞ is NaN in `i·step`, also for i = 0), several times.
    for _ in 0..3 {
        v.push(CaseSpec::new(op(9), vec![]).scalars(Profile::AllSpecials));
    }
    v
}

fn linspace_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let nums = s.with_large(vec![0, 1, 2, 7, ODD], vec![LARGE]);
    let op = |num, endpoint| Op::Linspace {
        start: from_int(0, d),
        stop: from_int(1, d),
        num,
        endpoint,
    };
    let mut v: Vec<CaseSpec> = nums
        .into_iter()
        .flat_map(|num| [true, false].map(|e| CaseSpec::new(op(num, e), vec![])))
        .collect();
    // Special start and stop (an infinite or NaN step), several times.
    for _ in 0..3 {
        v.push(CaseSpec::new(op(9, true), vec![]).scalars(Profile::AllSpecials));
    }
    v
}

/// Shapes and diagonals of `eye`/`tri`: empty, square, wide, tall, diagonals outside the
/// matrix and at the ends of the diagonal's type.
fn band_cases(d: DType, lower: bool) -> Vec<CaseSpec> {
    [
        (0, 3, 0),
        (1, 1, 0),
        (4, 4, 0),
        (3, 7, 2),
        (7, 3, -2),
        (5, 5, 9),
        (5, 5, -9),
        (ODD, 5, 1),
        (3, 3, isize::MIN),
        (3, 3, isize::MAX),
    ]
    .into_iter()
    .map(|(n, m, k)| {
        let op = Op::Band {
            dtype: d,
            n,
            m,
            k,
            lower,
        };
        CaseSpec::new(op, vec![])
    })
    .collect()
}

/// Every output of `meshgrid` for one to three coordinate vectors (one empty), in both
/// orders; one vector is a view at an offset.
fn meshgrid_cases(d: DType) -> Vec<CaseSpec> {
    use gpuarrays_core::Indexing;
    let sets: [&[usize]; 4] = [&[5], &[3, 4], &[2, 3, 4], &[2, 0, 3]];
    let mut v = Vec::new();
    for lens in sets {
        for indexing in [Indexing::Xy, Indexing::Ij] {
            for which in 0..lens.len() {
                let inputs = lens
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| {
                        let layout = if i == 1 { Layout::Slice } else { Layout::Plain };
                        inp(d, &[n]).layout(layout)
                    })
                    .collect();
                v.push(CaseSpec::new(Op::Meshgrid { which, indexing }, inputs));
            }
        }
    }
    v
}

fn assign_cases(d: DType) -> Vec<CaseSpec> {
    let mut v: Vec<CaseSpec> = [
        (vec![], Layout::Slice, Layout::Plain),
        (vec![0], Layout::Slice, Layout::Plain),
        (vec![7], Layout::Slice, Layout::Plain),
        (vec![3, 5], Layout::Slice, Layout::RowView),
        (vec![2, 3, 4], Layout::RowView, Layout::Slice),
        (vec![ODD], Layout::Slice, reinterpret_or_slice(d)),
        (vec![7], reinterpret_or_slice(d), Layout::Plain),
        (vec![3, 5], Layout::Strided, Layout::Reversed),
        (vec![4, 6], Layout::Transposed, Layout::Strided),
        (vec![2, 3, 4], Layout::Reversed, Layout::Plain),
    ]
    .into_iter()
    .map(|(dims, dst, src)| {
        CaseSpec::new(
            Op::Assign,
            vec![inp(d, &dims).layout(dst), inp(d, &dims).layout(src)],
        )
    })
    .collect();
    // Error: a source of another shape (even with the same element count).
    v.push(CaseSpec::new(
        Op::Assign,
        vec![inp(d, &[3, 5]).layout(Layout::Slice), inp(d, &[5, 3])],
    ));
    v
}

fn broadcast_to_cases(d: DType) -> Vec<CaseSpec> {
    let pairs: [(&[usize], &[usize], Layout); 8] = [
        (&[3, 1], &[3, 4], Layout::Plain),
        (&[], &[2, 3], Layout::Plain),
        (&[4], &[3, 4], Layout::Plain),
        (&[2, 1, 4], &[2, 3, 4], Layout::Plain),
        (&[1], &[0], Layout::Plain),
        (&[1, 3], &[5, 3], Layout::Slice),
        // Errors: sizes that do not broadcast; a target smaller than the source.
        (&[3], &[4], Layout::Plain),
        (&[3, 4], &[4], Layout::Plain),
    ];
    pairs
        .into_iter()
        .map(|(from, to, l)| {
            CaseSpec::new(Op::BroadcastTo(to.to_vec()), vec![inp(d, from).layout(l)])
        })
        .collect()
}

fn random_cases(s: &Sizes, d: DType, dist: Distribution) -> Vec<CaseSpec> {
    let dims = s.with_large(
        vec![
            vec![],
            vec![0],
            vec![1],
            vec![7],
            vec![ODD],
            vec![3, 5],
            vec![2, 3, 4],
        ],
        vec![vec![LARGE]],
    );
    dims.into_iter()
        .map(|dims| {
            let op = Op::Random {
                dist,
                dtype: d,
                dims,
                seed: 0,
            };
            CaseSpec::new(op, vec![])
        })
        .collect()
}
