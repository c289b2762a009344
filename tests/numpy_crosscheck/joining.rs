//! Joining, splitting, tiling, repeating and padding against NumPy's `concatenate`,
//! `stack`, `array_split`, `tile`, `repeat` (one count, and one count per element) and
//! `pad` (constant, edge, wrap, reflect, symmetric), for every element type, with strided
//! inputs among them.

use gpuarrays_core::{Pad, s};

use super::*;

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        let mut arr = |rec: &mut Recorder, dims: &[usize]| {
            let n = dims.iter().product();
            let v = values(rng, dtype, n, Kind::Mixed);
            rec.array(dtype, dims, &v)
        };
        let a = arr(rec, &[3, 4]);
        let b = arr(rec, &[3, 2]);
        let big = arr(rec, &[5, 8]);
        let stepped = big.at(&s![1..;2, ..;-2]); // [2, 4], strided and reversed
        for (axis, ins) in [(1usize, vec![&a, &b]), (0, vec![&a, &stepped])] {
            let raws: Vec<&RawArray<B>> = ins.iter().map(|i| &i.raw).collect();
            let r = RawArray::concatenate(&raws, axis).and_then(|x| Out::raw(&x));
            let j = json!({"op": "concatenate", "axis": axis});
            rec.case(format!("concatenate/{dtype}/{axis}"), j, dtype, &ins, r);
        }
        let a2 = big.at(&s![..3, 2..6]);
        for axis in 0..3 {
            let r = RawArray::stack(&[&a.raw, &a2.raw], axis).and_then(|x| Out::raw(&x));
            let j = json!({"op": "stack", "axis": axis});
            rec.case(format!("stack/{dtype}/{axis}"), j, dtype, &[&a, &a2], r);
        }
        for (sections, piece) in [(3usize, 0usize), (3, 2), (5, 4)] {
            let r = big
                .raw
                .array_split(sections, 1)
                .and_then(|p| Out::raw(&p[piece]));
            let j = json!({"op": "array_split", "sections": sections, "axis": 1, "piece": piece});
            rec.case(
                format!("array_split/{dtype}/{sections}/{piece}"),
                j,
                dtype,
                &[&big],
                r,
            );
        }
        for reps in [&[2usize][..], &[2, 1, 3], &[0, 2]] {
            let r = stepped.raw.tile(reps).and_then(|x| Out::raw(&x));
            let j = json!({"op": "tile", "reps": reps});
            rec.case(format!("tile/{dtype}/{reps:?}"), j, dtype, &[&stepped], r);
        }
        for axis in [None, Some(0), Some(1)] {
            let r = stepped.raw.repeat(3, axis).and_then(|x| Out::raw(&x));
            let j = json!({"op": "repeat", "repeats": 3, "axis": axis});
            rec.case(format!("repeat/{dtype}/{axis:?}"), j, dtype, &[&stepped], r);
        }
        let fill = values(rng, dtype, 1, Kind::Mixed)[0];
        let widths = [(2usize, 1usize), (5, 3)];
        for (name, mode) in [
            ("constant", Pad::Constant(fill)),
            ("edge", Pad::Edge),
            ("wrap", Pad::Wrap),
            ("reflect", Pad::Reflect),
            ("symmetric", Pad::Symmetric),
        ] {
            let r = stepped.raw.pad(&widths, mode).and_then(|x| Out::raw(&x));
            let fill_in = rec.scalar(fill);
            let j = json!({"op": "pad", "widths": widths, "mode": name});
            rec.case(
                format!("pad/{dtype}/{name}"),
                j,
                dtype,
                &[&stepped, &fill_in],
                r,
            );
        }
        mirrors(rec, dtype, &big, &stepped);
        repeat_counts(rec, rng, dtype, &big, &stepped);
    }
}

/// A named input with the pad widths of each axis.
type PadCase<'a> = (&'a str, &'a In, Vec<(usize, usize)>);

/// `pad` in reflect and symmetric modes: margins many times wider than the axis, an axis of
/// length 1, a 0-d array, and an empty axis (NumPy's ValueError, our InvalidArgument).
fn mirrors(rec: &mut Recorder, dtype: DType, big: &In, stepped: &In) {
    let column = big.at(&s![..;-1, 2..3]); // [5, 1], reversed
    let zero_d = big.at(&s![1, 3]);
    let empty = big.view(&[0..0, 0..8]);
    let cases: [PadCase; 5] = [
        ("wide", stepped, vec![(9, 4), (1, 13)]),
        ("length1", &column, vec![(2, 3), (4, 2)]),
        (
            "transposed",
            &stepped.permute(&[1, 0]),
            vec![(0, 5), (3, 0)],
        ),
        ("0d", &zero_d, vec![]),
        ("empty", &empty, vec![(1, 0), (0, 0)]),
    ];
    for (what, input, widths) in cases {
        for (name, mode) in [("reflect", Pad::Reflect), ("symmetric", Pad::Symmetric)] {
            let r = input.raw.pad(&widths, mode).and_then(|x| Out::raw(&x));
            let j = json!({"op": "pad", "widths": widths, "mode": name});
            rec.case(format!("pad/{dtype}/{name}/{what}"), j, dtype, &[input], r);
        }
    }
}

/// `repeat` with one count per element (`repeat_counts`), counts of several integer types
/// (and the refusals: a negative count, a wrong length, float counts).
fn repeat_counts(rec: &mut Recorder, rng: &mut Rng, dtype: DType, big: &In, stepped: &In) {
    let counts = |rec: &mut Recorder, t: DType, v: &[i64]| {
        let s: Vec<Scalar> = v.iter().map(|&x| Scalar::I64(x).cast(t)).collect();
        rec.array(t, &[v.len()], &s)
    };
    let draw = |rng: &mut Rng, n: usize| -> Vec<i64> {
        (0..n).map(|_| (rng.next_u64() % 4) as i64).collect()
    };
    let cases: Vec<(&str, &In, In, Option<usize>)> = vec![
        ("flat", big, counts(rec, DType::I64, &draw(rng, 40)), None),
        (
            "axis0",
            stepped,
            counts(rec, DType::U8, &draw(rng, 2)),
            Some(0),
        ),
        (
            "axis1",
            stepped,
            counts(rec, DType::I32, &draw(rng, 4)),
            Some(1),
        ),
        ("u64", big, counts(rec, DType::U64, &draw(rng, 8)), Some(1)),
        ("one", stepped, counts(rec, DType::U32, &[3]), Some(1)),
        (
            "zeros",
            stepped,
            counts(rec, DType::I64, &[0, 0, 0, 0]),
            Some(1),
        ),
        (
            "negative",
            stepped,
            counts(rec, DType::I32, &[1, -1, 2, 0]),
            Some(1),
        ),
        (
            "length",
            stepped,
            counts(rec, DType::I64, &[1, 2, 3]),
            Some(1),
        ),
        ("float", stepped, counts(rec, DType::F64, &[1, 2]), Some(0)),
    ];
    for (what, a, c, axis) in cases {
        let r = a.raw.repeat_counts(&c.raw, axis).and_then(|x| Out::raw(&x));
        let j = json!({"op": "repeat_counts", "axis": axis});
        rec.case(
            format!("repeat_counts/{dtype}/{what}"),
            j,
            dtype,
            &[a, &c],
            r,
        );
    }
}
