//! Scans, sorts, finds and reordering operations for the NumPy cross-check.

use super::*;

/// Scans, sorts, finds and reordering operations.
pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        for dims in AXIS_SHAPES {
            let scan_kinds = [
                (Kind::Exact, "exact", ScanOp::Sum),
                (Kind::Wide, "wide", ScanOp::Sum),
                (Kind::Dups, "dups", ScanOp::Sum),
                (Kind::ProdExact, "prod_exact", ScanOp::Prod),
                (Kind::NearOne, "near_one", ScanOp::Prod),
            ];
            for (kind, kname, op) in scan_kinds {
                let a = shaped_input(rng, rec, dtype, dims, kind);
                for axis in 0..dims.len() {
                    let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>().and_then(|t| {
                        match op {
                            ScanOp::Sum => t.cumsum(axis),
                            ScanOp::Prod => t.cumprod(axis),
                            ScanOp::Max => t.cummax(axis),
                            ScanOp::Min => t.cummin(axis),
                        }
                    }).and_then(|x| Out::typed(&x)));
                    let j = json!({"op": "scan", "fn": op.name(), "axis": axis, "kind": kname});
                    let id = format!("scan/{}/{dtype}/{dims:?}/{axis}/{kname}", op.name());
                    rec.case(id, j, dtype, &[&a], r);
                }
            }
            for (kind, kname) in [(Kind::Dups, "dups"), (Kind::Mixed, "mixed")] {
                let a = shaped_input(rng, rec, dtype, dims, kind);
                let r = out(a.raw.sort());
                rec.case(
                    format!("sort/{dtype}/{dims:?}/{kname}"),
                    json!({"op": "sort"}),
                    dtype,
                    &[&a],
                    r,
                );
            }
            for (kind, kname) in [
                (Kind::Dups, "dups"),
                (Kind::Mixed, "mixed"),
                (Kind::Density(0.02), "sparse"),
                (Kind::Density(0.0), "zero"),
            ] {
                let a = shaped_input(rng, rec, dtype, dims, kind);
                let r = out(a.raw.find());
                rec.case(
                    format!("find/{dtype}/{dims:?}/{kname}"),
                    json!({"op": "find"}),
                    dtype,
                    &[&a],
                    r,
                );
                let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                .and_then(|t| t.find_first())
                .map(|first| Out {
                    dtype: DType::I64,
                    dims: vec![first.is_some() as usize],
                    bytes: first.map(|i| (i as i64).to_le_bytes().to_vec()).unwrap_or_default(),
                }));
                let id = format!("find_first/{dtype}/{dims:?}/{kname}");
                rec.case(id, json!({"op": "find_first"}), dtype, &[&a], r);
            }
        }
        // Products over short axes with NaN, ±inf, ±0 (complex: also in one part).
        for (kind, with_inf) in [("tame", false), ("tame_special", true)] {
            let tame = tame_values(rng, dtype, 5 * 7, with_inf);
            let a = rec.array(dtype, &[5, 7], &tame);
            let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                .and_then(|t| t.cumprod(1)).and_then(|x| Out::typed(&x)));
            let j = json!({"op": "scan", "fn": "cumprod", "axis": 1, "kind": kind});
            rec.case(format!("scan/cumprod/{dtype}/{kind}"), j, dtype, &[&a], r);
        }
        // Every pair of special values, and each alone: the second element of a scan
        // along an axis of two is one operation.
        let (pairs, alone) = special_lanes(rec, dtype);
        for op in ScanOp::ALL {
            for (a, axis, kind) in [(&pairs, 0, "pairs"), (&alone, 1, "alone")] {
                let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>().and_then(|t| {
                    match op {
                        ScanOp::Sum => t.cumsum(axis),
                        ScanOp::Prod => t.cumprod(axis),
                        ScanOp::Max => t.cummax(axis),
                        ScanOp::Min => t.cummin(axis),
                    }
                }).and_then(|x| Out::typed(&x)));
                let j = json!({"op": "scan", "fn": op.name(), "axis": axis, "kind": kind});
                let id = format!("scan/{}/{dtype}/{kind}", op.name());
                rec.case(id, j, dtype, &[a], r);
            }
        }

        // reverse (np.flip) and permute (np.transpose).
        let a = shaped_input(rng, rec, dtype, &[4, 6, 9], Kind::Mixed);
        for axis in 0..3 {
            let j = json!({"op": "reverse", "axis": axis});
            rec.case(
                format!("reverse/{dtype}/{axis}"),
                j,
                dtype,
                &[&a],
                out(a.raw.reverse(axis)),
            );
        }
        let v = shaped_input(rng, rec, dtype, &[1001], Kind::Mixed);
        rec.case(
            format!("reverse/{dtype}/1-D"),
            json!({"op": "reverse", "axis": 0}),
            dtype,
            &[&v],
            out(v.raw.reverse(0)),
        );
        let perms: [&[usize]; 6] = [
            &[0, 1, 2],
            &[0, 2, 1],
            &[1, 0, 2],
            &[1, 2, 0],
            &[2, 0, 1],
            &[2, 1, 0],
        ];
        for p in perms {
            let j = json!({"op": "permute", "axes": p});
            rec.case(
                format!("permute/{dtype}/{p:?}"),
                j,
                dtype,
                &[&a],
                out(a.raw.permute(p)),
            );
        }
        let v = values(rng, dtype, 30, Kind::Mixed);
        let a4 = rec.array(dtype, &[2, 3, 1, 5], &v);
        let j = json!({"op": "permute", "axes": [3, 1, 0, 2]});
        rec.case(
            format!("permute/{dtype}/4-D"),
            j,
            dtype,
            &[&a4],
            out(a4.raw.permute(&[3, 1, 0, 2])),
        );
        let m = shaped_input(rng, rec, dtype, &[37, 53], Kind::Mixed);
        let r = dispatch_dtype!(dtype, T => m.raw.clone().into_typed::<T>()
            .and_then(|t| t.transpose()).and_then(|x| Out::typed(&x)));
        let j = json!({"op": "permute", "axes": [1, 0]});
        rec.case(format!("transpose/{dtype}"), j, dtype, &[&m], r);
    }
    // Large inputs, split across threads.
    for dtype in [DType::F32, DType::I32, DType::U64, DType::Bool] {
        let v = values(rng, dtype, 300_001, Kind::Dups);
        let a = rec.array(dtype, &[300_001], &v);
        rec.case(
            format!("large/sort/{dtype}"),
            json!({"op": "sort"}),
            dtype,
            &[&a],
            out(a.raw.sort()),
        );
        rec.case(
            format!("large/find/{dtype}"),
            json!({"op": "find"}),
            dtype,
            &[&a],
            out(a.raw.find()),
        );
        if dtype != DType::Bool {
            let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                .and_then(|t| t.cumsum(0)).and_then(|x| Out::typed(&x)));
            let j = json!({"op": "scan", "fn": "cumsum", "axis": 0, "kind": "dups"});
            rec.case(format!("large/cumsum/{dtype}"), j, dtype, &[&a], r);
        }
    }
}
