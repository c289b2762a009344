//! Rows of the gathers, scatters and masks, for every element type: indices of every
//! integer type with negative and (wrap, clip) out-of-range values, strided, reversed and
//! transposed operands, 0-d, empty and large shapes, broadcast indices and values, repeated
//! indices for the sums, and the refusals.
//!
//! Stores use index arrays without repeats along what one update lane reaches
//! ([`Profile::Distinct`]): which of two stores to one element lands is unspecified on GPUs.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::IndexMode;

use super::{LARGE, RowSpec, Sizes, inp, other_dtype};
use crate::case::{CaseSpec, IndexCase, InputSpec, Layout, Op};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("take", d, take_cases(s, d)));
        rows.push(RowSpec::new("take_along_axis", d, along_cases(d)));
        rows.push(RowSpec::new("put", d, put_cases(s, d)));
        rows.push(RowSpec::new("put_along_axis", d, put_along_cases(d)));
        rows.push(RowSpec::new("index_copy", d, index_copy_cases(d)));
        rows.push(RowSpec::new("masked_select", d, masked_select_cases(d)));
        rows.push(RowSpec::new("masked_assign", d, masked_assign_cases(d)));
        rows.push(RowSpec::new("nonzero", d, nonzero_cases(d)));
        if d != DType::Bool {
            rows.push(RowSpec::new("scatter_add", d, scatter_add_cases(s, d)));
            rows.push(RowSpec::new("index_add", d, index_add_cases(d)));
        }
        if d.is_integer() {
            rows.push(RowSpec::new("bincount", d, bincount_cases(s, d)));
        }
    }
}

fn case(op: IndexCase, inputs: Vec<InputSpec>) -> CaseSpec {
    CaseSpec::new(Op::Index(op), inputs)
}

/// Indices of type `t` and shape `dims` drawn from `lo..hi`.
fn idx(t: DType, dims: &[usize], lo: i64, hi: i64) -> InputSpec {
    inp(t, dims).profile(Profile::Indices(lo, hi))
}

/// Indices with distinct positions of `0..extent` in each run of `lane`.
fn distinct(t: DType, dims: &[usize], extent: usize, lane: usize) -> InputSpec {
    inp(t, dims).profile(Profile::Distinct { extent, lane })
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

fn put_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    use IndexMode::*;
    let other = other_dtype(d);
    let mut v = vec![
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[6]), distinct(DType::I64, &[4], 6, 4), inp(d, &[4])],
        ),
        case(
            IndexCase::Put(Raise),
            vec![
                inp(d, &[3, 4]).layout(Layout::Strided),
                distinct(DType::I32, &[5], 12, 5),
                inp(d, &[5]),
            ],
        ),
        case(
            IndexCase::Put(Raise),
            vec![
                inp(d, &[3, 4]).layout(Layout::Transposed),
                distinct(DType::I64, &[4], 12, 4),
                inp(d, &[1]),
            ],
        ),
        case(
            IndexCase::Put(Wrap),
            vec![
                inp(d, &[5]).layout(Layout::Reversed),
                distinct(DType::U8, &[3], 5, 3),
                inp(d, &[2, 2]),
            ],
        ),
        // Unsigned indices: under Clip a negative index means the first element, so the
        // negative forms of distinct positions would collide there.
        case(
            IndexCase::Put(Clip),
            vec![inp(d, &[5]), distinct(DType::U32, &[3], 5, 3), inp(d, &[3])],
        ),
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[5]), idx(DType::I64, &[0], 0, 5), inp(d, &[0])],
        ),
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[5]), idx(DType::I64, &[2], 0, 5), inp(d, &[0])],
        ),
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[]), distinct(DType::I64, &[1], 1, 1), inp(d, &[1])],
        ),
        // Errors: out of range, values of another type, float indices.
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[5]), idx(DType::I64, &[2], 5, 9), inp(d, &[2])],
        ),
        case(
            IndexCase::Put(Raise),
            vec![
                inp(d, &[5]),
                distinct(DType::I64, &[2], 5, 2),
                inp(other, &[2]),
            ],
        ),
        case(
            IndexCase::Put(Raise),
            vec![inp(d, &[5]), inp(DType::F64, &[2]), inp(d, &[2])],
        ),
    ];
    if !s.quick {
        v.push(case(
            IndexCase::Put(Raise),
            vec![
                inp(d, &[LARGE]),
                distinct(DType::I64, &[4099], LARGE, 4099),
                inp(d, &[4099]),
            ],
        ));
    }
    v
}

fn put_along_cases(d: DType) -> Vec<CaseSpec> {
    let put = IndexCase::PutAlongAxis;
    vec![
        case(
            put(1),
            vec![
                inp(d, &[3, 4]),
                distinct(DType::I64, &[3, 2], 4, 2),
                inp(d, &[3, 2]),
            ],
        ),
        case(
            put(1),
            vec![
                inp(d, &[3, 4]).layout(Layout::Transposed),
                distinct(DType::I32, &[3, 3], 4, 3),
                inp(d, &[1]),
            ],
        ),
        case(
            put(2),
            vec![
                inp(d, &[2, 3, 4]).layout(Layout::Reversed),
                distinct(DType::I64, &[2, 3, 1], 4, 1),
                inp(d, &[3, 1]),
            ],
        ),
        case(
            put(0),
            vec![
                inp(d, &[4, 3]).layout(Layout::Strided),
                distinct(DType::U32, &[1, 3], 4, 1),
                inp(d, &[1, 3]),
            ],
        ),
        case(
            put(1),
            vec![
                inp(d, &[0, 4]),
                idx(DType::I64, &[0, 2], 0, 4),
                inp(d, &[0, 2]),
            ],
        ),
        // Errors: indices wider than the array, out of range, values that do not broadcast.
        case(
            put(1),
            vec![
                inp(d, &[3, 4]),
                idx(DType::I64, &[4, 2], 0, 4),
                inp(d, &[4, 2]),
            ],
        ),
        case(
            put(1),
            vec![
                inp(d, &[3, 4]),
                idx(DType::I64, &[3, 2], 4, 6),
                inp(d, &[3, 2]),
            ],
        ),
        case(
            put(1),
            vec![
                inp(d, &[3, 4]),
                distinct(DType::I64, &[3, 2], 4, 2),
                inp(d, &[3, 3]),
            ],
        ),
    ]
}

fn index_copy_cases(d: DType) -> Vec<CaseSpec> {
    let copy = IndexCase::IndexCopy;
    vec![
        case(
            copy(0),
            vec![
                inp(d, &[5, 3]),
                distinct(DType::I64, &[2], 5, 2),
                inp(d, &[2, 3]),
            ],
        ),
        case(
            copy(1),
            vec![
                inp(d, &[3, 5]),
                distinct(DType::I32, &[3], 5, 3),
                inp(d, &[3]),
            ],
        ),
        case(
            copy(1),
            vec![
                inp(d, &[2, 4, 3]).layout(Layout::Reversed),
                distinct(DType::I64, &[2], 4, 2),
                inp(d, &[2, 2, 3]),
            ],
        ),
        case(
            copy(0),
            vec![
                inp(d, &[4, 6]).layout(Layout::Transposed),
                distinct(DType::U8, &[3], 4, 3),
                inp(d, &[3, 1]),
            ],
        ),
        case(
            copy(0),
            vec![inp(d, &[4]), idx(DType::I64, &[0], 0, 4), inp(d, &[0])],
        ),
        // Errors: out of range; values that do not broadcast.
        case(
            copy(0),
            vec![inp(d, &[4]), idx(DType::I64, &[1], -9, -5), inp(d, &[1])],
        ),
        case(
            copy(0),
            vec![
                inp(d, &[5, 3]),
                distinct(DType::I64, &[2], 5, 2),
                inp(d, &[3, 3]),
            ],
        ),
    ]
}

fn scatter_add_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let add = IndexCase::ScatterAdd;
    let f = |dims: &[usize]| inp(d, dims).profile(Profile::Finite);
    let mut v = vec![
        case(add(0), vec![f(&[4]), idx(DType::I64, &[9], -4, 4), f(&[9])]),
        case(
            add(1),
            vec![f(&[3, 4]), idx(DType::I32, &[3, 7], -4, 4), f(&[3, 7])],
        ),
        case(
            add(1),
            vec![
                f(&[3, 4]).layout(Layout::Transposed),
                idx(DType::I64, &[1, 5], 0, 4),
                f(&[1]),
            ],
        ),
        case(
            add(0),
            vec![
                f(&[5, 3]).layout(Layout::Strided),
                idx(DType::U8, &[6, 3], 0, 5),
                f(&[6, 3]),
            ],
        ),
        case(add(0), vec![f(&[3]), idx(DType::I64, &[0], 0, 3), f(&[0])]),
        // Errors: out of range; values of another type.
        case(add(0), vec![f(&[4]), idx(DType::I64, &[2], 4, 9), f(&[2])]),
        case(
            add(0),
            vec![
                f(&[4]),
                idx(DType::I64, &[2], 0, 4),
                inp(other_dtype(d), &[2]),
            ],
        ),
    ];
    if !s.quick {
        v.push(case(
            add(0),
            vec![f(&[1000]), idx(DType::I64, &[LARGE], 0, 1000), f(&[LARGE])],
        ));
    }
    v
}

fn index_add_cases(d: DType) -> Vec<CaseSpec> {
    let add = IndexCase::IndexAdd;
    let f = |dims: &[usize]| inp(d, dims).profile(Profile::Finite);
    vec![
        case(
            add(0),
            vec![f(&[4, 3]), idx(DType::I64, &[7], -4, 4), f(&[7, 3])],
        ),
        case(
            add(1),
            vec![f(&[3, 4]), idx(DType::I32, &[2, 3], 0, 4), f(&[3, 2, 3])],
        ),
        case(
            add(1),
            vec![
                f(&[2, 5, 3]).layout(Layout::Reversed),
                idx(DType::I64, &[4], -5, 5),
                f(&[1]),
            ],
        ),
        // Error: out of range.
        case(
            add(0),
            vec![f(&[4, 3]), idx(DType::I64, &[1], 4, 5), f(&[1, 3])],
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

fn bincount_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let x = |dims: &[usize], hi| idx(d, dims, 0, hi);
    let w = |t, dims: &[usize]| inp(t, dims).profile(Profile::Finite);
    let mut v = vec![
        case(IndexCase::Bincount(0), vec![x(&[20], 7)]),
        case(IndexCase::Bincount(12), vec![x(&[9], 5)]),
        case(IndexCase::Bincount(3), vec![x(&[0], 5)]),
        case(
            IndexCase::Bincount(0),
            vec![x(&[9], 6), w(DType::F32, &[9])],
        ),
        case(
            IndexCase::Bincount(0),
            vec![x(&[9], 6), w(DType::I32, &[9])],
        ),
        // Errors: 2-D input; weights of another length; complex weights.
        case(IndexCase::Bincount(0), vec![x(&[3, 3], 5)]),
        case(
            IndexCase::Bincount(0),
            vec![x(&[9], 6), w(DType::F64, &[8])],
        ),
        case(
            IndexCase::Bincount(0),
            vec![x(&[9], 6), w(DType::C32, &[9])],
        ),
    ];
    if matches!(d, DType::I32 | DType::I64) {
        // Error: a negative value.
        v.push(case(IndexCase::Bincount(0), vec![idx(d, &[4], -3, -1)]));
    }
    if !s.quick {
        v.push(case(IndexCase::Bincount(0), vec![x(&[LARGE], 257)]));
    }
    v
}
