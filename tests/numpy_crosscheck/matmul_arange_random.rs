//! Matrix products, `arange` and random numbers for the NumPy cross-check.

use super::*;

/// Matrix products, `arange` and the random-number generators.
pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    let shapes: [(&[usize], &[usize]); 9] = [
        (&[3, 4], &[4, 5]),
        (&[1, 1], &[1, 1]),
        (&[17, 33], &[33, 9]),
        (&[5, 0], &[0, 3]),
        (&[2, 3, 4], &[2, 4, 5]),
        (&[2, 3, 4], &[4, 5]),
        (&[3, 4], &[2, 4, 5]),
        (&[1, 3, 4], &[3, 4, 5]),
        (&[3, 1, 64], &[3, 64, 2]),
    ];
    for dtype in DType::ALL {
        for (kind, kname) in [
            (Kind::SmallInt, "small_int"),
            (Kind::Unit, "unit"),
            (Kind::Mixed, "mixed"),
        ] {
            if kind == Kind::Mixed && (dtype.is_float() || dtype.is_complex()) {
                continue; // overflow would make float results order-dependent
            }
            for (sa, sb) in shapes {
                let va = values(rng, dtype, sa.iter().product(), kind);
                let vb = values(rng, dtype, sb.iter().product(), kind);
                let (a, b) = (rec.array(dtype, sa, &va), rec.array(dtype, sb, &vb));
                let j = json!({"op": "matmul", "kind": kname});
                let id = format!("matmul/{dtype}/{sa:?}x{sb:?}/{kname}");
                rec.case(id, j, dtype, &[&a, &b], out(a.raw.matmul(&b.raw)));
            }
        }
        // An operand that is a view with an offset.
        let v = values(rng, dtype, 6 * 4, Kind::SmallInt);
        let a = rec.array(dtype, &[6, 4], &v).view(&[2..5, 0..4]);
        let v = values(rng, dtype, 4 * 3, Kind::SmallInt);
        let b = rec.array(dtype, &[4, 3], &v);
        let j = json!({"op": "matmul", "kind": "small_int"});
        rec.case(
            format!("matmul/{dtype}/view"),
            j,
            dtype,
            &[&a, &b],
            out(a.raw.matmul(&b.raw)),
        );

        // arange: start + i·step in the element type.
        let mut params: Vec<(Scalar, Scalar, usize)> = vec![
            (Scalar::I64(-5).cast(dtype), Scalar::I64(3).cast(dtype), 100),
            (
                Scalar::F64(0.1).cast(dtype),
                Scalar::F64(0.3).cast(dtype),
                1000,
            ),
            (
                Scalar::I64(250).cast(dtype),
                Scalar::I64(1).cast(dtype),
                300,
            ),
        ];
        let sp = specials(dtype);
        for len in [7, 64] {
            params.push((rng.pick(&sp), rng.pick(&sp), len));
        }
        for (start, step, len) in params {
            let (si, st) = (rec.scalar(start), rec.scalar(step));
            let r = dispatch_dtype!(dtype, T => {
                let (s0, s1) = (T::from_scalar(start).unwrap(), T::from_scalar(step).unwrap());
                Array::<T, B>::arange(&rec.backend, s0, s1, len).and_then(|x| Out::typed(&x))
            });
            let j = json!({"op": "arange", "len": len});
            rec.case(
                format!("arange/{dtype}/{start}/{step}/{len}"),
                j,
                dtype,
                &[&si, &st],
                r,
            );
        }

        // Counter-based random numbers (the documented Philox recipe).
        for dist in ["uniform", "normal"] {
            for (seed, dims) in [
                (0u64, vec![1000]),
                (42, vec![7, 13]),
                ((1 << 40) + 7, vec![257]),
                (u64::MAX, vec![64]),
            ] {
                let r = dispatch_dtype!(dtype, T => {
                    let a = if dist == "uniform" {
                        Array::<T, B>::random_uniform(&rec.backend, &dims, seed)
                    } else {
                        Array::<T, B>::random_normal(&rec.backend, &dims, seed)
                    };
                    a.and_then(|x| Out::typed(&x))
                });
                let j =
                    json!({"op": "random", "dist": dist, "seed": seed.to_string(), "shape": dims});
                rec.case(format!("random/{dist}/{dtype}/{seed}"), j, dtype, &[], r);
            }
        }
    }
}
