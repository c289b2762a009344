//! Rows of the gathers, scatters and masks, for every element type: indices of every
//! integer type with negative and (wrap, clip) out-of-range values, strided, reversed and
//! transposed operands, 0-d, empty and large shapes, broadcast indices and values, repeated
//! indices for the sums, and the refusals.
//!
//! Stores use index arrays without repeats along what one update lane reaches
//! ([`Profile::Distinct`]): which of two stores to one element lands is unspecified on GPUs.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::IndexMode;

use super::index_inputs::{case, idx};
use super::{LARGE, RowSpec, Sizes, inp, other_dtype, scatter};
use crate::case::{CaseSpec, IndexCase, Layout};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("take", d, take_cases(s, d)));
        rows.push(RowSpec::new("take_along_axis", d, along_cases(d)));
        rows.push(RowSpec::new("put", d, scatter::put_cases(s, d)));
        rows.push(RowSpec::new(
            "put_along_axis",
            d,
            scatter::put_along_cases(d),
        ));
        rows.push(RowSpec::new("index_copy", d, scatter::index_copy_cases(d)));
        rows.push(RowSpec::new("masked_select", d, masked_select_cases(d)));
        rows.push(RowSpec::new("masked_assign", d, masked_assign_cases(d)));
        rows.push(RowSpec::new("nonzero", d, nonzero_cases(d)));
        if d != DType::Bool {
            rows.push(RowSpec::new(
                "scatter_add",
                d,
                scatter::scatter_add_cases(s, d),
            ));
            rows.push(RowSpec::new("index_add", d, scatter::index_add_cases(d)));
        }
        if d.is_integer() {
            rows.push(RowSpec::new("bincount", d, scatter::bincount_cases(s, d)));
        }
    }
}

fn take_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    use IndexMode::*;
    let take = |axis, mode| IndexCase::Take { axis, mode };
    let mut v = vec![
        case(
            take(Some(0), Raise),
            vec![inp(d, &[5]), idx(DType::I64, &[3], -5, 5)],
        ),
        case(
            take(Some(1), Raise),
            vec![inp(d, &[3, 4]), idx(DType::I32, &[2, 2], -4, 4)],
        ),
        case(
            take(Some(0), Raise),
            vec![
                inp(d, &[3, 4]).layout(Layout::Strided),
                idx(DType::I64, &[4], -3, 3),
            ],
        ),
        case(
            take(Some(1), Raise),
            vec![
                inp(d, &[2, 3, 4]).layout(Layout::Reversed),
                idx(DType::U8, &[5], 0, 3),
            ],
        ),
        case(
            take(None, Wrap),
            vec![
                inp(d, &[3, 4]).layout(Layout::Transposed),
                idx(DType::I64, &[6], -40, 40),
            ],
        ),
        case(
            take(Some(1), Clip),
            vec![inp(d, &[3, 4]), idx(DType::I32, &[7], -9, 9)],
        ),
        case(
            take(Some(0), Wrap),
            vec![inp(d, &[4]), idx(DType::U64, &[3], 0, 1000)],
        ),
        case(
            take(Some(0), Raise),
            vec![inp(d, &[4]), idx(DType::I64, &[], -4, 4)],
        ),
        case(
            take(None, Raise),
            vec![inp(d, &[]), idx(DType::U32, &[3], 0, 1)],
        ),
        case(
            take(Some(1), Raise),
            vec![inp(d, &[0, 3]), idx(DType::I64, &[2], 0, 9)],
        ),
        case(
            take(Some(0), Raise),
            vec![inp(d, &[5]), idx(DType::I64, &[0], 0, 5)],
        ),
        case(
            take(Some(1), Raise),
            vec![
                inp(d, &[3, 4]).layout(Layout::Slice),
                idx(DType::I64, &[2, 0], 0, 4),
            ],
        ),
        // Errors: an index out of range, a non-empty take from an empty axis, float
        // indices, an axis too far.
        case(
            take(Some(0), Raise),
            vec![inp(d, &[4]), idx(DType::I64, &[3], 4, 10)],
        ),
        case(
            take(Some(0), Raise),
            vec![inp(d, &[4]), idx(DType::I32, &[2], -9, -5)],
        ),
        case(
            take(Some(1), Wrap),
            vec![inp(d, &[2, 0]), idx(DType::I64, &[1], 0, 1)],
        ),
        case(
            take(Some(0), Raise),
            vec![inp(d, &[4]), inp(DType::F32, &[2])],
        ),
        case(
            take(Some(2), Raise),
            vec![inp(d, &[2, 3]), idx(DType::I64, &[1], 0, 1)],
        ),
    ];
    if !s.quick {
        let n = LARGE as i64;
        v.push(case(
            take(Some(0), Raise),
            vec![inp(d, &[LARGE]), idx(DType::I64, &[LARGE / 3], -n, n)],
        ));
        v.push(case(
            take(Some(0), Raise),
            vec![inp(d, &[517, 1031]), idx(DType::I32, &[300], -517, 517)],
        ));
    }
    v
}

fn along_cases(d: DType) -> Vec<CaseSpec> {
    let along = |axis| IndexCase::TakeAlongAxis(axis);
    vec![
        case(
            along(1),
            vec![inp(d, &[3, 4]), idx(DType::I64, &[3, 5], -4, 4)],
        ),
        case(
            along(0),
            vec![inp(d, &[3, 4]), idx(DType::I32, &[2, 4], -3, 3)],
        ),
        case(
            along(1),
            vec![
                inp(d, &[3, 4]).layout(Layout::Strided),
                idx(DType::I64, &[1, 6], 0, 4),
            ],
        ),
        case(
            along(1),
            vec![
                inp(d, &[2, 3, 4]).layout(Layout::Reversed),
                idx(DType::U8, &[2, 1, 4], 0, 3),
            ],
        ),
        case(
            along(0),
            vec![inp(d, &[1, 4]), idx(DType::I64, &[3, 4], -1, 1)],
        ),
        case(
            along(1),
            vec![inp(d, &[0, 3]), idx(DType::I64, &[1, 2], 0, 9)],
        ),
        // Errors: indices of another rank, out of range, shapes that do not broadcast.
        case(along(0), vec![inp(d, &[3, 4]), idx(DType::I64, &[4], 0, 3)]),
        case(
            along(1),
            vec![inp(d, &[3, 4]), idx(DType::I64, &[3, 2], 4, 8)],
        ),
        case(
            along(1),
            vec![inp(d, &[3, 4]), idx(DType::I64, &[2, 2], 0, 4)],
        ),
    ]
}

fn masked_select_cases(d: DType) -> Vec<CaseSpec> {
    let mask = |dims: &[usize]| inp(DType::Bool, dims);
    let sel = IndexCase::MaskedSelect;
    vec![
        case(sel, vec![inp(d, &[7]), mask(&[7])]),
        case(sel, vec![inp(d, &[3, 4]), mask(&[3, 4])]),
        case(
            sel,
            vec![inp(d, &[3, 4]).layout(Layout::Transposed), mask(&[3])],
        ),
        case(
            sel,
            vec![inp(d, &[2, 3, 4]).layout(Layout::Reversed), mask(&[2, 3])],
        ),
        case(
            sel,
            vec![
                inp(d, &[3, 5]).layout(Layout::Strided),
                mask(&[3, 5]).layout(Layout::Strided),
            ],
        ),
        case(sel, vec![inp(d, &[4]), mask(&[])]),
        case(sel, vec![inp(d, &[0, 3]), mask(&[0])]),
        // Errors: a mask of the wrong shape; a mask that is not bool.
        case(sel, vec![inp(d, &[3, 4]), mask(&[4])]),
        case(sel, vec![inp(d, &[3]), inp(DType::U8, &[3])]),
    ]
}

fn masked_assign_cases(d: DType) -> Vec<CaseSpec> {
    let mask = |dims: &[usize]| inp(DType::Bool, dims);
    let asg = IndexCase::MaskedAssign;
    vec![
        case(asg, vec![inp(d, &[7]), mask(&[7]), inp(d, &[1])]),
        case(
            asg,
            vec![
                inp(d, &[3, 4]).layout(Layout::Transposed),
                mask(&[3, 4]),
                inp(d, &[]),
            ],
        ),
        case(
            asg,
            vec![
                inp(d, &[3, 4]).layout(Layout::Strided),
                mask(&[3]),
                inp(d, &[4]),
            ],
        ),
        case(
            asg,
            vec![
                inp(d, &[2, 3, 4]).layout(Layout::Reversed),
                mask(&[2, 3]),
                inp(d, &[1, 4]),
            ],
        ),
        case(asg, vec![inp(d, &[0, 3]), mask(&[0]), inp(d, &[3])]),
        // Errors: values of another type; a mask of the wrong shape.
        case(
            asg,
            vec![inp(d, &[4]), mask(&[4]), inp(other_dtype(d), &[1])],
        ),
        case(asg, vec![inp(d, &[4]), mask(&[3]), inp(d, &[1])]),
    ]
}

fn nonzero_cases(d: DType) -> Vec<CaseSpec> {
    let sparse = |dims: &[usize]| inp(d, dims).profile(Profile::Sparse(0.4));
    vec![
        case(IndexCase::Nonzero(0), vec![sparse(&[9])]),
        case(IndexCase::Nonzero(1), vec![sparse(&[3, 5])]),
        case(
            IndexCase::Nonzero(2),
            vec![sparse(&[2, 3, 4]).layout(Layout::Reversed)],
        ),
        case(
            IndexCase::Nonzero(0),
            vec![sparse(&[4, 3]).layout(Layout::Transposed)],
        ),
        case(IndexCase::Argwhere, vec![sparse(&[3, 4])]),
        case(IndexCase::Argwhere, vec![sparse(&[])]),
        case(IndexCase::Argwhere, vec![sparse(&[0, 2])]),
        // Error: nonzero of a 0-d array.
        case(IndexCase::Nonzero(0), vec![sparse(&[])]),
    ]
}
