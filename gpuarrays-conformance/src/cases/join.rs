//! Rows of joining and splitting (`concatenate`, `stack`, `array_split`), repeating
//! (`tile`, `repeat`) and padding (`pad` in constant, edge, wrap, reflect and symmetric
//! modes), for every element type: empty and 0-d shapes, strided and reversed inputs, and
//! the refusals.

use gpuarrays_core::{DType, Pad};

use super::{LARGE, RowSpec, Sizes, inp, other_dtype};
use crate::case::{CaseSpec, InputSpec, Layout, Op};
use crate::oracle::value::from_int;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for d in DType::ALL {
        rows.push(RowSpec::new("concatenate", d, concatenate_cases(s, d)));
        rows.push(RowSpec::new("stack", d, stack_cases(d)));
        rows.push(RowSpec::new("array_split", d, split_cases(d)));
        rows.push(RowSpec::new("tile", d, tile_cases(d)));
        rows.push(RowSpec::new("repeat", d, repeat_cases(d)));
        rows.push(RowSpec::new("pad", d, pad_cases(d)));
    }
}

fn all(op: Op, inputs: Vec<InputSpec>) -> CaseSpec {
    CaseSpec::new(op, inputs)
}

fn concatenate_cases(s: &Sizes, d: DType) -> Vec<CaseSpec> {
    let cat = Op::Concatenate;
    let mut v = vec![
        all(cat(0), vec![inp(d, &[2, 3]), inp(d, &[4, 3])]),
        all(
            cat(1),
            vec![inp(d, &[2, 3]), inp(d, &[2, 5]), inp(d, &[2, 1])],
        ),
        all(
            cat(2),
            vec![inp(d, &[2, 3, 4]), inp(d, &[2, 3, 1]), inp(d, &[2, 3, 7])],
        ),
        all(cat(0), vec![inp(d, &[0, 3]), inp(d, &[2, 3])]),
        all(cat(0), vec![inp(d, &[3]), inp(d, &[0])]),
        all(cat(0), vec![inp(d, &[9])]),
        all(
            cat(1),
            vec![
                inp(d, &[3, 5]).layout(Layout::Strided),
                inp(d, &[3, 2]).layout(Layout::Reversed),
                inp(d, &[3, 4]).layout(Layout::Slice),
            ],
        ),
        all(
            cat(0),
            vec![inp(d, &[6, 4]).layout(Layout::Transposed), inp(d, &[1, 4])],
        ),
        // Errors: two types, two shapes off the axis, 0-d arrays, an axis too far.
        all(cat(0), vec![inp(d, &[2]), inp(other_dtype(d), &[2])]),
        all(cat(1), vec![inp(d, &[2, 3]), inp(d, &[3, 3])]),
        all(cat(0), vec![inp(d, &[]), inp(d, &[])]),
        all(cat(2), vec![inp(d, &[2, 3]), inp(d, &[2, 3])]),
    ];
    if !s.quick {
        v.push(all(cat(0), vec![inp(d, &[LARGE]), inp(d, &[LARGE / 2])]));
        v.push(all(cat(1), vec![inp(d, &[1031, 517]), inp(d, &[1031, 3])]));
    }
    v
}

fn stack_cases(d: DType) -> Vec<CaseSpec> {
    let pair = |dims: &[usize]| vec![inp(d, dims), inp(d, dims).layout(Layout::Slice)];
    vec![
        all(Op::Stack(0), pair(&[3, 4])),
        all(Op::Stack(1), pair(&[3, 4])),
        all(Op::Stack(2), pair(&[3, 4])),
        all(Op::Stack(0), pair(&[])),
        all(
            Op::Stack(1),
            vec![inp(d, &[0, 2]), inp(d, &[0, 2]), inp(d, &[0, 2])],
        ),
        all(
            Op::Stack(1),
            vec![inp(d, &[3, 5]).layout(Layout::Strided), inp(d, &[3, 5])],
        ),
        // Errors: two shapes; an axis past ndim.
        all(Op::Stack(0), vec![inp(d, &[3]), inp(d, &[4])]),
        all(Op::Stack(3), pair(&[3, 4])),
    ]
}

fn split_cases(d: DType) -> Vec<CaseSpec> {
    let piece = |dims: &[usize], sections, axis, piece, layout| {
        let op = Op::ArraySplit {
            sections,
            axis,
            piece,
        };
        all(op, vec![inp(d, dims).layout(layout)])
    };
    vec![
        piece(&[7], 3, 0, 0, Layout::Plain),
        piece(&[7], 3, 0, 2, Layout::Plain),
        piece(&[4, 6], 4, 1, 3, Layout::Plain),
        piece(&[4, 6], 4, 1, 1, Layout::Strided),
        piece(&[2, 3, 4], 2, 0, 1, Layout::Reversed),
        piece(&[2, 5], 7, 1, 6, Layout::Plain),
        piece(&[0, 3], 2, 0, 1, Layout::Plain),
        // Errors: no sections; an axis too far.
        piece(&[7], 0, 0, 0, Layout::Plain),
        piece(&[7], 2, 1, 0, Layout::Plain),
    ]
}

fn tile_cases(d: DType) -> Vec<CaseSpec> {
    let tile = |dims: &[usize], reps: &[usize], layout| {
        all(Op::Tile(reps.to_vec()), vec![inp(d, dims).layout(layout)])
    };
    vec![
        tile(&[3], &[2], Layout::Plain),
        tile(&[2, 3], &[2, 1], Layout::Plain),
        tile(&[2, 3], &[3], Layout::Plain),
        tile(&[4], &[2, 2], Layout::Plain),
        tile(&[], &[3], Layout::Plain),
        tile(&[0, 3], &[2, 2], Layout::Plain),
        tile(&[2, 3], &[0, 2], Layout::Plain),
        tile(&[3, 5], &[2, 1, 2], Layout::Strided),
        tile(&[2, 3, 4], &[1, 2, 1], Layout::Reversed),
    ]
}

fn repeat_cases(d: DType) -> Vec<CaseSpec> {
    let rep = |dims: &[usize], repeats, axis, layout| {
        all(
            Op::Repeat { repeats, axis },
            vec![inp(d, dims).layout(layout)],
        )
    };
    vec![
        rep(&[4], 3, None, Layout::Plain),
        rep(&[2, 3], 2, Some(0), Layout::Plain),
        rep(&[2, 3], 2, Some(1), Layout::Plain),
        rep(&[2, 3], 0, Some(1), Layout::Plain),
        rep(&[2, 3], 3, None, Layout::Plain),
        rep(&[], 4, None, Layout::Plain),
        rep(&[4, 6], 2, Some(1), Layout::Transposed),
        rep(&[3, 5], 3, None, Layout::Strided),
        // Error: an axis too far.
        rep(&[2, 3], 2, Some(2), Layout::Plain),
    ]
}

fn pad_cases(d: DType) -> Vec<CaseSpec> {
    let zero = Pad::Constant(from_int(0, d));
    let pad = |dims: &[usize], widths: &[(usize, usize)], mode, layout| {
        let op = Op::Pad {
            widths: widths.to_vec(),
            mode,
        };
        all(op, vec![inp(d, dims).layout(layout)])
    };
    let mut v = Vec::new();
    for mode in [zero, Pad::Edge, Pad::Wrap, Pad::Reflect, Pad::Symmetric] {
        v.extend([
            pad(&[3, 4], &[(1, 2), (0, 3)], mode, Layout::Plain),
            pad(&[7], &[(3, 0)], mode, Layout::Plain),
            pad(&[3, 4], &[(5, 1), (2, 9)], mode, Layout::Plain),
            pad(
                &[2, 3, 4],
                &[(1, 1), (0, 0), (2, 1)],
                mode,
                Layout::Reversed,
            ),
            pad(&[3, 5], &[(2, 2), (1, 1)], mode, Layout::Strided),
            pad(&[], &[], mode, Layout::Plain),
            pad(&[0, 3], &[(0, 0), (1, 1)], mode, Layout::Plain),
        ]);
    }
    for mode in [Pad::Reflect, Pad::Symmetric] {
        v.extend([
            // Margins many times wider than the axis; an axis of length 1 (NumPy repeats
            // its element); an empty axis (an error, as NumPy's ValueError).
            pad(&[3], &[(11, 13)], mode, Layout::Plain),
            pad(&[2, 3], &[(5, 0), (0, 7)], mode, Layout::Transposed),
            pad(&[1, 4], &[(3, 2), (1, 1)], mode, Layout::Plain),
            pad(&[0, 3], &[(1, 0), (0, 0)], mode, Layout::Plain),
        ]);
    }
    v.extend([
        // A constant on an empty axis; edge on one (an error); a wrong count of widths; a
        // constant of another type.
        pad(&[0, 3], &[(1, 1), (0, 0)], zero, Layout::Plain),
        pad(&[0, 3], &[(1, 0), (0, 0)], Pad::Edge, Layout::Plain),
        pad(&[3, 4], &[(1, 1)], zero, Layout::Plain),
        pad(
            &[3],
            &[(1, 1)],
            Pad::Constant(from_int(0, other_dtype(d))),
            Layout::Plain,
        ),
    ]);
    v
}
