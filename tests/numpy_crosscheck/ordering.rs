//! The sort family against NumPy: stable `argsort` (descending: NumPy's stable order of the
//! reversed comparison, as PyTorch's `sort(descending=True, stable=True)`), `sort` along any
//! axis, `topk`, `partition`/`argpartition`, `unique` with its index, inverse and counts,
//! and `searchsorted` (both sides), for every element type, with duplicates and special
//! values, on views with offsets.

use gpuarrays_core::{Side, SortOrder};

use super::*;

fn order_of(descending: bool) -> SortOrder {
    if descending {
        SortOrder::Descending
    } else {
        SortOrder::Ascending
    }
}

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        for dims in [&[7usize][..], &[37, 53], &[4, 6, 9], &[0, 3], &[1001]] {
            for (kind, kname) in [(Kind::Dups, "dups"), (Kind::Mixed, "mixed")] {
                let a = shaped_input(rng, rec, dtype, dims, kind);
                for axis in 0..dims.len() {
                    let len = dims[axis];
                    for descending in [false, true] {
                        let order = order_of(descending);
                        let j = json!({"op": "argsort", "axis": axis, "descending": descending});
                        let id = format!("argsort/{dtype}/{dims:?}/{axis}/{descending}/{kname}");
                        rec.case(id, j, dtype, &[&a], out(a.raw.argsort(axis, order)));
                        let j = json!({"op": "sort_along", "axis": axis, "descending": descending});
                        let id = format!("sort_along/{dtype}/{dims:?}/{axis}/{descending}/{kname}");
                        rec.case(id, j, dtype, &[&a], out(a.raw.sort_along(axis, order)));
                        let k = len.min(3);
                        for which in 0..2 {
                            let r = a
                                .raw
                                .topk(k, axis, order)
                                .and_then(|(v, i)| Out::raw(if which == 0 { &v } else { &i }));
                            let j = json!({"op": "topk", "k": k, "axis": axis,
                                "descending": descending, "which": which});
                            let id = format!(
                                "topk/{dtype}/{dims:?}/{axis}/{descending}/{which}/{kname}"
                            );
                            rec.case(id, j, dtype, &[&a], r);
                        }
                    }
                    if len > 0 {
                        let kth = (len / 2) as isize;
                        let j = json!({"op": "partition", "kth": kth, "axis": axis});
                        let id = format!("partition/{dtype}/{dims:?}/{axis}/{kname}");
                        rec.case(id, j, dtype, &[&a], out(a.raw.partition(kth, axis)));
                        let j = json!({"op": "argpartition", "kth": kth, "axis": axis});
                        let id = format!("argpartition/{dtype}/{dims:?}/{axis}/{kname}");
                        rec.case(id, j, dtype, &[&a], out(a.raw.argpartition(kth, axis)));
                    }
                }
                for which in 0..4 {
                    let r = a.raw.unique_all().and_then(|u| {
                        Out::raw([&u.values, &u.indices, &u.inverse, &u.counts][which])
                    });
                    let j = json!({"op": "unique", "which": which});
                    rec.case(
                        format!("unique/{dtype}/{dims:?}/{which}/{kname}"),
                        j,
                        dtype,
                        &[&a],
                        r,
                    );
                }
            }
        }
        // searchsorted: the array is sorted here by our sort and by NumPy's on the other
        // side; the values have duplicates of its elements and special values.
        for (n, vdims) in [
            (9usize, &[5usize][..]),
            (1001, &[37, 53]),
            (0, &[3]),
            (6, &[0]),
        ] {
            let a = shaped_input(rng, rec, dtype, &[n], Kind::Dups);
            let v = shaped_input(rng, rec, dtype, vdims, Kind::Mixed);
            for right in [false, true] {
                let side = if right { Side::Right } else { Side::Left };
                let r = out(a.raw.sort().and_then(|s| s.searchsorted(&v.raw, side)));
                let j = json!({"op": "searchsorted", "right": right});
                rec.case(
                    format!("searchsorted/{dtype}/{n}/{vdims:?}/{right}"),
                    j,
                    dtype,
                    &[&a, &v],
                    r,
                );
            }
        }
    }
}
