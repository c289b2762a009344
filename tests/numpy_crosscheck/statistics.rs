//! var, std, logsumexp, the vector norms, dot, vdot and outer (composed in core), and
//! cummax/cummin, for the NumPy cross-check: every element type (the refused ones must give
//! `InvalidDType`), over everything and along each axis.

use gpuarrays_core::NormOrd;

use super::*;

/// The statistics and vector operations.
pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        for dims in AXIS_SHAPES {
            let a = shaped_input(rng, rec, dtype, dims, Kind::Wide);
            for axis in std::iter::once(None).chain((0..dims.len()).map(Some)) {
                for ddof in [0, 1] {
                    for (f, std) in [("var", false), ("std", true)] {
                        let r = if std {
                            a.raw.std(axis, ddof)
                        } else {
                            a.raw.var(axis, ddof)
                        };
                        let j = json!({"op": "stat", "fn": f, "axis": axis, "ddof": ddof});
                        let id = format!("{f}/{dtype}/{dims:?}/{axis:?}/{ddof}");
                        rec.case(id, j, dtype, &[&a], out(r));
                    }
                }
                let j = json!({"op": "stat", "fn": "logsumexp", "axis": axis});
                let id = format!("logsumexp/{dtype}/{dims:?}/{axis:?}");
                rec.case(id, j, dtype, &[&a], out(a.raw.logsumexp(axis)));
            }
            for op in [ScanOp::Max, ScanOp::Min] {
                let m = shaped_input(rng, rec, dtype, dims, Kind::Dups);
                for axis in 0..dims.len() {
                    let j = json!({"op": "scan", "fn": op.name(), "axis": axis, "kind": "dups"});
                    let id = format!("scan/{}/{dtype}/{dims:?}/{axis}", op.name());
                    rec.case(id, j, dtype, &[&m], out(m.raw.scan(op, axis)));
                }
            }
        }
        // ddof at and past the length: a divisor of 0 (NaN or inf, as NumPy).
        let a = shaped_input(rng, rec, dtype, &[3], Kind::Wide);
        for ddof in [3, 5] {
            let j = json!({"op": "stat", "fn": "var", "axis": null, "ddof": ddof});
            rec.case(
                format!("var/{dtype}/ddof{ddof}"),
                j,
                dtype,
                &[&a],
                out(a.raw.var(None, ddof)),
            );
        }
        for n in [0, 1, 7, 1001] {
            let v = shaped_input(rng, rec, dtype, &[n], Kind::Wide);
            for ord in NormOrd::ALL {
                if ord == NormOrd::Inf && n == 0 {
                    continue;
                }
                let j = json!({"op": "stat", "fn": ord.name()});
                let id = format!("{}/{dtype}/{n}", ord.name());
                rec.case(id, j, dtype, &[&v], out(v.raw.norm(ord)));
            }
        }
        let m = shaped_input(rng, rec, dtype, &[37, 53], Kind::Wide);
        let j = json!({"op": "stat", "fn": "norm"});
        rec.case(
            format!("norm/{dtype}/matrix"),
            j,
            dtype,
            &[&m],
            out(m.raw.norm(NormOrd::Two)),
        );
        let pairs: [(&[usize], &[usize]); 7] = [
            (&[0], &[0]),
            (&[1001], &[1001]),
            (&[37, 53], &[53]),
            (&[53], &[53, 9]),
            (&[37, 53], &[53, 9]),
            (&[2, 0], &[0, 3]),
            (&[5, 7], &[35]),
        ];
        for (i, (da, db)) in pairs.iter().enumerate() {
            let x = shaped_input(rng, rec, dtype, da, Kind::Unit);
            let y = shaped_input(rng, rec, dtype, db, Kind::Unit);
            let (fname, r) = match i {
                6 => ("vdot", x.raw.vdot(&y.raw)),
                1 => ("vdot", x.raw.vdot(&y.raw)),
                _ => ("dot", x.raw.dot(&y.raw)),
            };
            let id = format!("{fname}/{dtype}/{da:?}/{db:?}");
            rec.case(
                id,
                json!({"op": "stat", "fn": fname}),
                dtype,
                &[&x, &y],
                out(r),
            );
            if i == 1 {
                let id = format!("dot/{dtype}/{da:?}/{db:?}");
                let r = out(x.raw.dot(&y.raw));
                rec.case(id, json!({"op": "stat", "fn": "dot"}), dtype, &[&x, &y], r);
            }
            let id = format!("outer/{dtype}/{da:?}/{db:?}");
            let r = out(x.raw.outer(&y.raw));
            rec.case(
                id,
                json!({"op": "stat", "fn": "outer"}),
                dtype,
                &[&x, &y],
                r,
            );
        }
    }
}
