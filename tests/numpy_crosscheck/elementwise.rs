//! Elementwise operations and casts for the NumPy cross-check.

use super::*;

/// Every elementwise operation on every element type.
pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        let a = values(rng, dtype, 700, Kind::Mixed);
        let a = rec.array(dtype, &[a.len()], &a);
        for op in UnaryOp::ALL {
            let r = out(ex(&a).unary(op).eval_raw());
            let id = format!("unary/{op}/{dtype}");
            rec.case(id, json!({"op": "unary", "fn": op.name()}), dtype, &[&a], r);
        }

        let (pa, pb) = pairs(rng, dtype, 400);
        let n = pa.len();
        let (a, b) = (rec.array(dtype, &[n], &pa), rec.array(dtype, &[n], &pb));
        for op in BinaryOp::ALL {
            let r = out(ex(&a).binary(op, ex(&b)).eval_raw());
            let id = format!("binary/{op}/{dtype}");
            rec.case(
                id,
                json!({"op": "binary", "fn": op.name()}),
                dtype,
                &[&a, &b],
                r,
            );
            // The same with a scalar right-hand side (a kernel scalar argument).
            let s = rng.pick(&specials(dtype));
            let si = rec.scalar(s);
            let r = out(ex(&a).binary(op, s).eval_raw());
            let id = format!("binary_scalar/{op}/{dtype}/{s}");
            rec.case(
                id,
                json!({"op": "binary", "fn": op.name()}),
                dtype,
                &[&a, &si],
                r,
            );
        }

        // Operands that are views with offsets into larger buffers, 2-D.
        let base = values(rng, dtype, 9 * 50, Kind::Mixed);
        let base = rec.array(dtype, &[9, 50], &base);
        let (va, vb) = (base.view(&[2..6, 0..50]), base.view(&[5..9, 0..50]));
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Eq, BinaryOp::Max] {
            let r = out(ex(&va).binary(op, ex(&vb)).eval_raw());
            let id = format!("binary_views/{op}/{dtype}");
            let j = json!({"op": "binary", "fn": op.name(), "coverage": false});
            rec.case(id, j, dtype, &[&va, &vb], r);
        }

        // select(cond, a, b) with three-way broadcasting.
        let c = values(rng, DType::Bool, 20, Kind::Density(0.5));
        let c = rec.array(DType::Bool, &[4, 1, 5], &c);
        let sa = values(rng, dtype, 3, Kind::Mixed);
        let sa = rec.array(dtype, &[3, 1], &sa);
        let sb = values(rng, dtype, 5, Kind::Mixed);
        let sb = rec.array(dtype, &[5], &sb);
        let r = out(ex(&c).select(ex(&sa), ex(&sb)).eval_raw());
        rec.case(
            format!("select/{dtype}"),
            json!({"op": "select"}),
            dtype,
            &[&c, &sa, &sb],
            r,
        );

        // broadcast_to, full, copy of a view.
        let r = dispatch_dtype!(dtype, T => sa.raw.clone().into_typed::<T>()
            .and_then(|x| x.broadcast_to(&[2, 3, 4]))
            .and_then(|x| Out::typed(&x)));
        let j = json!({"op": "broadcast_to", "shape": [2, 3, 4]});
        rec.case(format!("broadcast_to/{dtype}"), j, dtype, &[&sa], r);
        let s = rng.pick(&specials(dtype));
        let si = rec.scalar(s);
        let r = out(RawArray::full(&rec.backend, &[3, 5], s));
        let j = json!({"op": "full", "shape": [3, 5]});
        rec.case(format!("full/{dtype}/{s}"), j, dtype, &[&si], r);
        let r = out(va.raw.copy());
        rec.case(
            format!("copy/{dtype}"),
            json!({"op": "copy"}),
            dtype,
            &[&va],
            r,
        );
    }

    // NumPy broadcasting between differently shaped operands.
    let shapes: [(&[usize], &[usize]); 6] = [
        (&[3, 1, 5], &[4, 1]),
        (&[2, 3], &[3]),
        (&[], &[2, 3]),
        (&[5, 1], &[1, 7]),
        (&[1], &[6]),
        (&[4, 1, 1, 3], &[2, 1]),
    ];
    for dtype in [DType::F32, DType::I32, DType::U8, DType::C64, DType::Bool] {
        let ops: &[BinaryOp] = match dtype {
            DType::Bool => &[BinaryOp::Xor, BinaryOp::Eq],
            DType::C64 => &[BinaryOp::Add, BinaryOp::Ne],
            _ => &[BinaryOp::Add, BinaryOp::Mul, BinaryOp::Lt, BinaryOp::Max],
        };
        for (sa, sb) in shapes {
            let a = values(rng, dtype, sa.iter().product(), Kind::Mixed);
            let b = values(rng, dtype, sb.iter().product(), Kind::Mixed);
            let (a, b) = (rec.array(dtype, sa, &a), rec.array(dtype, sb, &b));
            for &op in ops {
                let r = out(ex(&a).binary(op, ex(&b)).eval_raw());
                let id = format!("broadcast/{op}/{dtype}/{sa:?}x{sb:?}");
                let j = json!({"op": "binary", "fn": op.name(), "coverage": false});
                rec.case(id, j, dtype, &[&a, &b], r);
            }
        }
    }

    // Fused multi-operation expressions, evaluated in one kernel.
    for dtype in [DType::F32, DType::F64] {
        let (pa, pb) = pairs(rng, dtype, 300);
        let (a, b) = (
            rec.array(dtype, &[pa.len()], &pa),
            rec.array(dtype, &[pb.len()], &pb),
        );
        let exprs: [(&str, Expr<B>); 5] = [
            ("axpy_relu", (ex(&a) * 2.5 + ex(&b)).max(0.0)),
            (
                "select_sqrt",
                ex(&a)
                    .lt(ex(&b))
                    .select(ex(&a).sqrt(), ex(&b) * ex(&b) - 1.0),
            ),
            (
                "bool_logic",
                (ex(&a).gt(0.0) & ex(&b).le(0.0)) | !ex(&a).eq(ex(&b)),
            ),
            ("lit_sub", 2.0 - ex(&a)),
            ("lit_div", 1.0 / ex(&b)),
        ];
        for (name, e) in exprs {
            let j = json!({"op": "expr", "name": name, "coverage": false});
            rec.case(
                format!("expr/{name}/{dtype}"),
                j,
                dtype,
                &[&a, &b],
                out(e.eval_raw()),
            );
        }
    }
    let (pa, pb) = pairs(rng, DType::I32, 300);
    let (a, b) = (
        rec.array(DType::I32, &[pa.len()], &pa),
        rec.array(DType::I32, &[pb.len()], &pb),
    );
    let e = (ex(&a).cast(DType::F64) * 0.5 + ex(&b).cast(DType::F64)).cast(DType::I32);
    let j = json!({"op": "expr", "name": "int_mix", "coverage": false});
    rec.case(
        "expr/int_mix/i32",
        j,
        DType::I32,
        &[&a, &b],
        out(e.eval_raw()),
    );

    // Large enough to be split across threads and chunks.
    for dtype in [DType::F32, DType::I64] {
        let n = 300_001;
        let (a, b) = (
            values(rng, dtype, n, Kind::Mixed),
            values(rng, dtype, n, Kind::Mixed),
        );
        let (a, b) = (rec.array(dtype, &[n], &a), rec.array(dtype, &[n], &b));
        let r = out(ex(&a).binary(BinaryOp::Add, ex(&b)).eval_raw());
        let j = json!({"op": "binary", "fn": "add", "coverage": false});
        rec.case(format!("large/add/{dtype}"), j, dtype, &[&a, &b], r);
        let r = out(ex(&a).cast(DType::I32).eval_raw());
        let j = json!({"op": "cast", "to": "i32", "coverage": false});
        rec.case(format!("large/cast/{dtype}"), j, dtype, &[&a], r);
    }
}

/// Casts between all element types.
pub fn build_casts(rec: &mut Recorder, rng: &mut Rng) {
    for from in DType::ALL {
        let a = values(rng, from, 600, Kind::Mixed);
        let a = rec.array(from, &[a.len()], &a);
        for to in DType::ALL {
            let r = out(ex(&a).cast(to).eval_raw());
            let j = json!({"op": "cast", "to": to.name()});
            rec.case(format!("cast/{from}->{to}"), j, from, &[&a], r);
        }
    }
    // Reinterpreted and offset inputs: the bytes NumPy's `view(dtype)` sees.
    let f = values(rng, DType::F32, 48, Kind::Mixed);
    let f = rec.array(DType::F32, &[8, 6], &f);
    let bits = f.view(&[2..6, 0..6]).reinterpret(DType::U32);
    let r = out(ex(&bits).unary(UnaryOp::Not).eval_raw());
    let j = json!({"op": "unary", "fn": "not", "coverage": false});
    rec.case("reinterpret/f32->u32/not", j, DType::U32, &[&bits], r);
    let c = values(rng, DType::C64, 10, Kind::Mixed);
    let c = rec.array(DType::C64, &[10], &c);
    let parts = c.reinterpret(DType::F64);
    let r = out(ex(&parts).unary(UnaryOp::Neg).eval_raw());
    let j = json!({"op": "unary", "fn": "neg", "coverage": false});
    rec.case("reinterpret/c64->f64/neg", j, DType::F64, &[&parts], r);
    let u = values(rng, DType::U8, 40, Kind::Mixed);
    let u = rec.array(DType::U8, &[40], &u);
    let words = u.view(&[8..40]).reinterpret(DType::I32).reshape(&[2, -1]);
    let r = out(ex(&words).cast(DType::F64).eval_raw());
    let j = json!({"op": "cast", "to": "f64", "coverage": false});
    rec.case(
        "reinterpret/u8->i32/reshape/cast",
        j,
        DType::I32,
        &[&words],
        r,
    );
}
