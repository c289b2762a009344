//! Joining, splitting, tiling, repeating and padding against NumPy's `concatenate`,
//! `stack`, `array_split`, `tile`, `repeat` and `pad` (constant, edge, wrap), for every
//! element type, with strided inputs among them.

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
    }
}
