//! Strided views against NumPy's basic indexing, for every element type: `at` selections
//! (steps, negative steps and bounds, indices, new axes, empty results) read back, views of
//! views and transposes, writes through a view, and a write from one view of a buffer into
//! an overlapping view of the same buffer (NumPy evaluates the source first).

use gpuarrays_core::{NEW_AXIS, SliceArg, s};

use super::*;
use recorder::selection_json;

fn selections() -> Vec<Vec<SliceArg>> {
    vec![
        s![1..-1, ..;2].to_vec(),
        s![..;-1, 1, ..].to_vec(),
        s![-1, ..;-2, 1..4].to_vec(),
        s![NEW_AXIS, 2.., .., ..;3].to_vec(),
        s![.., ..0;-1].to_vec(),
        s![3..0;-2, ..=2].to_vec(),
        s![1..1].to_vec(),
        s![..;7, -2.., 5..;-1].to_vec(),
        s![2, 3, -1].to_vec(),
        s![-9..99, -3..;2, ..-4].to_vec(),
    ]
}

/// `(destination, source)` selections of one [4, 5, 6] buffer with the same shape, most
/// of them overlapping.
fn overlapping() -> Vec<(Vec<SliceArg>, Vec<SliceArg>)> {
    vec![
        (s![.., 1..].to_vec(), s![.., ..-1].to_vec()),
        (s![..;-1].to_vec(), s![..].to_vec()),
        (s![.., .., ..3].to_vec(), s![.., .., 3..;1].to_vec()),
        (s![1..3, ..;2].to_vec(), s![2.., 2..;-1][..].to_vec()),
    ]
}

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    let dims = [4usize, 5, 6];
    for dtype in DType::ALL {
        let v = values(rng, dtype, 120, Kind::Mixed);
        let x = rec.array(dtype, &dims, &v);
        for (k, sel) in selections().iter().enumerate() {
            let r = x.raw.at(sel).and_then(|a| Out::raw(&a));
            let j = json!({"op": "at", "sel": selection_json(sel)});
            rec.case(format!("at/{dtype}/{k}"), j, dtype, &[&x], r);
        }
        // Views of views: a transpose of a stepped view, read back.
        let t = x.at(&s![..;-1, 1..;2]).permute(&[2, 0, 1]);
        let r = Out::raw(&t.raw);
        rec.case(
            format!("at_of_view/{dtype}"),
            json!({"op": "at", "sel": []}),
            dtype,
            &[&t],
            r,
        );
        // A write through a view: y = x; y[sel] = z.
        for (k, sel) in selections().iter().enumerate() {
            let Ok(shape) = x.raw.at(sel).map(|a| a.dims().to_vec()) else {
                continue;
            };
            let n = shape.iter().product();
            let z = rec.array(dtype, &shape, &values(rng, dtype, n, Kind::Mixed));
            let r = x.raw.copy().and_then(|y| {
                Expr::array(&z.raw).eval_into_raw(&y.at(sel)?)?;
                Out::raw(&y)
            });
            let j = json!({"op": "at_assign", "sel": selection_json(sel)});
            rec.case(format!("at_assign/{dtype}/{k}"), j, dtype, &[&x, &z], r);
        }
        // One view of a buffer written from another, overlapping view of it.
        for (k, (dst, src)) in overlapping().iter().enumerate() {
            let r = x.raw.copy().and_then(|y| {
                Expr::array(&y.at(src)?).eval_into_raw(&y.at(dst)?)?;
                Out::raw(&y)
            });
            let j = json!({
                "op": "at_self_assign",
                "dst": selection_json(dst),
                "src": selection_json(src),
            });
            rec.case(format!("at_self_assign/{dtype}/{k}"), j, dtype, &[&x], r);
        }
    }
}
