//! Rows of the sort family, for every element type (complex rows expect the refusal):
//! many equal elements (so stability shows), every special value, strided, reversed,
//! transposed and reinterpreted operands, empty axes, 0-d and axis errors, and (unless
//! quick) large rows that take the backends' long-row sorts and `topk`'s selection path.

use gpuarrays_core::DType;

use super::{LARGE, ODD, RowSpec, Sizes, all_specials, inp, reinterpret_or_slice, special_count};
use crate::case::{CaseSpec, InputSpec, Layout, Op, OrderCase};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("argsort", d, argsort_cases(s, d, false, true)));
        rows.push(RowSpec::new(
            "argsort_descending",
            d,
            argsort_cases(s, d, true, true),
        ));
        rows.push(RowSpec::new("sort_along", d, sort_cases(d)));
        rows.push(RowSpec::new("topk", d, topk_cases(s, d)));
        rows.push(RowSpec::new("partition", d, partition_cases(d)));
        rows.push(RowSpec::new("unique", d, unique_cases(d)));
        rows.push(RowSpec::new("searchsorted", d, searchsorted_cases(d)));
    }
}

fn case(op: OrderCase, inputs: Vec<InputSpec>) -> CaseSpec {
    CaseSpec::new(Op::Order(op), inputs)
}

/// Values with many repeats: integers 0 to 3 (floats too), bool as drawn.
fn ties(d: DType, dims: &[usize]) -> InputSpec {
    let p = if d.is_integer() {
        Profile::Indices(0, 4)
    } else {
        Profile::SmallInts
    };
    inp(d, dims).profile(p)
}

/// (input, axis) pairs over the shapes and layouts every sort row covers.
fn inputs(d: DType) -> Vec<(InputSpec, usize)> {
    let n = special_count(d);
    let v = vec![
        (inp(d, &[7]), 0),
        (ties(d, &[ODD]), 0),
        (ties(d, &[3, 5]), 1),
        (inp(d, &[3, 5]), 0),
        (ties(d, &[2, 3, 4]), 1),
        (ties(d, &[2, 3, 4]).layout(Layout::Reversed), 2),
        (inp(d, &[4, 6]).layout(Layout::Transposed), 0),
        (ties(d, &[3, 5]).layout(Layout::Strided), 1),
        (ties(d, &[5, 7]).layout(Layout::RowView), 1),
        (inp(d, &[64]).layout(reinterpret_or_slice(d)), 0),
        (inp(d, &[0, 3]), 1),
        (inp(d, &[3, 0]), 1),
        (inp(d, &[1]), 0),
        (all_specials(d, &[n]), 0),
        (all_specials(d, &[n, 3]), 0),
        (all_specials(d, &[n, 3]), 1),
    ];
    v
}

/// Errors shared by the axis operations: a 0-d array, an axis too far.
fn axis_errors(d: DType) -> Vec<(InputSpec, usize)> {
    vec![(inp(d, &[]), 0), (inp(d, &[3]), 1)]
}

fn argsort_cases(s: &Sizes, d: DType, descending: bool, errors: bool) -> Vec<CaseSpec> {
    let mut all = inputs(d);
    if errors {
        all.extend(axis_errors(d));
    }
    // One long row per type and order (the backends' long-row sorts): the rows of the other
    // operations are this one's permutation, so they stay short (a million-element sort
    // takes minutes on a software Vulkan driver).
    if !s.quick {
        all.push((ties(d, &[LARGE]), 0));
    }
    all.into_iter()
        .map(|(x, axis)| case(OrderCase::Argsort { axis, descending }, vec![x]))
        .collect()
}

fn sort_cases(d: DType) -> Vec<CaseSpec> {
    let mut v: Vec<CaseSpec> = inputs(d)
        .into_iter()
        .chain(axis_errors(d))
        .enumerate()
        .map(|(i, (x, axis))| {
            let descending = i % 2 == 1;
            case(OrderCase::SortAlong { axis, descending }, vec![x])
        })
        .collect();
    v.push(case(
        OrderCase::SortAlong {
            axis: 0,
            descending: true,
        },
        vec![all_specials(d, &[special_count(d)])],
    ));
    v
}

fn topk_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let mut specs: Vec<(InputSpec, usize, usize, bool)> = vec![
        (inp(d, &[7]), 3, 0, true),
        (ties(d, &[ODD]), 100, 0, true),
        (ties(d, &[ODD]), 5, 0, false),
        (ties(d, &[3, 5]), 2, 1, true),
        (inp(d, &[4, 6]).layout(Layout::Transposed), 4, 0, false),
        (ties(d, &[2, 3, 4]).layout(Layout::Reversed), 3, 2, true),
        (all_specials(d, &[special_count(d)]), 4, 0, true),
        (all_specials(d, &[special_count(d)]), 4, 0, false),
        (inp(d, &[5]), 0, 0, true),
        (inp(d, &[5]), 5, 0, true),
        (inp(d, &[0, 3]), 2, 1, true),
        // Errors: k above the axis length, a 0-d array, an axis too far.
        (inp(d, &[5]), 6, 0, true),
        (inp(d, &[]), 0, 0, true),
        (inp(d, &[3]), 1, 1, true),
    ];
    // Long rows take core's selection path (a sampled threshold, then a sort of the
    // candidates): distinct-enough values (with specials, the candidates are often all NaN
    // or all -inf, equal keys), and specials through a negative stride.
    if !s.quick {
        let finite = inp(d, &[LARGE]).profile(Profile::Finite);
        specs.push((finite, 100, 0, true));
        specs.push((inp(d, &[LARGE]).layout(Layout::Reversed), 37, 0, false));
    }
    specs
        .into_iter()
        .flat_map(|(x, k, axis, descending)| {
            (0..2).map(move |which| {
                let op = OrderCase::Topk {
                    k,
                    axis,
                    descending,
                    which,
                };
                case(op, vec![x.clone()])
            })
        })
        .collect()
}

fn partition_cases(d: DType) -> Vec<CaseSpec> {
    let specs: Vec<(InputSpec, isize, usize)> = vec![
        (ties(d, &[9]), 4, 0),
        (ties(d, &[3, 5]), -1, 1),
        (inp(d, &[4, 6]).layout(Layout::Transposed), 0, 0),
        // Errors: kth out of range (also for an empty axis), a 0-d array.
        (inp(d, &[5]), 5, 0),
        (inp(d, &[5]), -6, 0),
        (inp(d, &[2, 0]), 0, 1),
        (inp(d, &[]), 0, 0),
    ];
    specs
        .into_iter()
        .flat_map(|(x, kth, axis)| {
            [
                case(OrderCase::Partition { kth, axis }, vec![x.clone()]),
                case(OrderCase::Argpartition { kth, axis }, vec![x]),
            ]
        })
        .collect()
}

fn unique_cases(d: DType) -> Vec<CaseSpec> {
    let n = special_count(d);
    let xs = vec![
        inp(d, &[7]),
        ties(d, &[ODD]),
        ties(d, &[3, 5]).layout(Layout::Strided),
        ties(d, &[2, 3, 4]).layout(Layout::Reversed),
        inp(d, &[64]).layout(reinterpret_or_slice(d)),
        all_specials(d, &[2 * n]),
        inp(d, &[]),
        inp(d, &[0]),
        inp(d, &[2, 0]),
    ];
    xs.into_iter()
        .flat_map(|x| (0..5).map(move |which| case(OrderCase::Unique(which), vec![x.clone()])))
        .collect()
}

fn searchsorted_cases(d: DType) -> Vec<CaseSpec> {
    let n = special_count(d);
    let other = if d == DType::I64 {
        DType::I32
    } else {
        DType::I64
    };
    // The first input is the sorted table (sorted as drawn, then placed in its layout).
    let pairs = vec![
        (ties(d, &[9]).sorted(), ties(d, &[5])),
        (ties(d, &[ODD]).sorted(), ties(d, &[3, 7])),
        (
            inp(d, &[31]).sorted(),
            inp(d, &[2, 3, 4]).layout(Layout::Reversed),
        ),
        (
            ties(d, &[ODD]).sorted().layout(Layout::Slice),
            inp(d, &[4, 6]).layout(Layout::Transposed),
        ),
        (all_specials(d, &[n]).sorted(), all_specials(d, &[n, 2])),
        (inp(d, &[5]).sorted(), inp(d, &[])),
        (inp(d, &[0]), inp(d, &[3])),
        (inp(d, &[4]).sorted(), inp(d, &[0, 2])),
        // Errors: a sorted array that is not 1-D, values of another type.
        (inp(d, &[2, 3]).sorted(), inp(d, &[3])),
        (inp(d, &[4]).sorted(), inp(other, &[3])),
    ];
    pairs
        .into_iter()
        .flat_map(|(a, v)| {
            [false, true].map(|right| {
                case(
                    OrderCase::Searchsorted { right },
                    vec![a.clone(), v.clone()],
                )
            })
        })
        .collect()
}
