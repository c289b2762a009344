//! Rows of the scatters (`put`, `put_along_axis`, `index_copy`, `scatter_add`, `index_add`)
//! and `bincount`: stores with distinct positions per update lane, sums with repeats, every
//! mode, strided, reversed and transposed targets, empty and large shapes, the refusals.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::IndexMode;

use super::index_inputs::{case, distinct, idx};
use super::{LARGE, Sizes, inp, other_dtype};
use crate::case::{CaseSpec, IndexCase, Layout};
use crate::values::Profile;

pub(super) fn put_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
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

pub(super) fn put_along_cases(d: DType) -> Vec<CaseSpec> {
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

pub(super) fn index_copy_cases(d: DType) -> Vec<CaseSpec> {
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

pub(super) fn scatter_add_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
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

pub(super) fn index_add_cases(d: DType) -> Vec<CaseSpec> {
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

pub(super) fn bincount_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
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
