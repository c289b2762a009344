//! Arrays made from a rule for the NumPy cross-check: `linspace`, `logspace`, `eye`,
//! `identity`, `tri` and `meshgrid`, for every element type (the ones a constructor refuses
//! included).

use gpuarrays_core::Indexing;

use super::*;

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        // linspace: NumPy computes in f64 and rounds; ours is `start + i·step` in the type.
        let mut params: Vec<(Scalar, Scalar, usize, bool)> = vec![
            (Scalar::F64(0.0), Scalar::F64(1.0), 11, true),
            (Scalar::F64(-3.5), Scalar::F64(2.25), 50, false),
            (Scalar::F64(1e3), Scalar::F64(-1e3), 7, true),
            (Scalar::F64(2.0), Scalar::F64(2.0), 5, true),
            (Scalar::F64(0.1), Scalar::F64(0.7), 1, true),
            (Scalar::F64(0.1), Scalar::F64(0.7), 1, false),
            (Scalar::F64(5.0), Scalar::F64(9.0), 0, true),
        ];
        let pair = values(rng, DType::F64, 2, Kind::Unit);
        params.push((pair[0], pair[1], 33, rng.next_u64() % 2 == 0));
        for (start, stop, num, endpoint) in params {
            let (start, stop) = (start.cast(dtype), stop.cast(dtype));
            let (si, so) = (rec.scalar(start), rec.scalar(stop));
            let r = dispatch_dtype!(dtype, T => {
                let (a, b) = (T::from_scalar(start).unwrap(), T::from_scalar(stop).unwrap());
                Array::<T, B>::linspace(&rec.backend, a, b, num, endpoint)
                    .and_then(|x| Out::typed(&x))
            });
            let j = json!({"op": "linspace", "num": num, "endpoint": endpoint});
            let id = format!("linspace/{dtype}/{start}/{stop}/{num}/{endpoint}");
            rec.case(id, j, dtype, &[&si, &so], r);
        }

        // logspace: base^linspace(start, stop), NumPy's computed in f64.
        for (start, stop, num, endpoint, base) in [
            (0.0, 3.0, 4, true, 10.0),
            (-2.0, 2.0, 17, false, 2.0),
            (1.5, -0.5, 9, true, 0.5),
            (0.0, 4.0, 5, true, -2.0),
            (0.0, 1.0, 5, true, -3.0),
            (2.0, 3.0, 1, true, 10.0),
            (2.0, 3.0, 0, false, 10.0),
        ] {
            let [start, stop, base] = [start, stop, base].map(|x| Scalar::F64(x).cast(dtype));
            let ins = [rec.scalar(start), rec.scalar(stop), rec.scalar(base)];
            let r = dispatch_dtype!(dtype, T => {
                let [a, b, e] = [start, stop, base].map(|x| T::from_scalar(x).unwrap());
                Array::<T, B>::logspace(&rec.backend, a, b, num, endpoint, e)
                    .and_then(|x| Out::typed(&x))
            });
            let j = json!({"op": "logspace", "num": num, "endpoint": endpoint});
            let id = format!("logspace/{dtype}/{start}/{stop}/{num}/{endpoint}/{base}");
            rec.case(id, j, dtype, &[&ins[0], &ins[1], &ins[2]], r);
        }

        // eye and tri: diagonals inside, on the edge of and outside the matrix.
        for (n, m, k) in [
            (4, 4, 0),
            (3, 7, 2),
            (7, 3, -2),
            (5, 5, 7),
            (0, 3, 0),
            (6, 2, -6),
        ] {
            for (name, lower) in [("eye", false), ("tri", true)] {
                let r = dispatch_dtype!(dtype, T => {
                    let a = if lower {
                        Array::<T, B>::tri(&rec.backend, n, m, k)
                    } else {
                        Array::<T, B>::eye(&rec.backend, n, m, k)
                    };
                    a.and_then(|x| Out::typed(&x))
                });
                let j = json!({"op": name, "n": n, "m": m, "k": k});
                rec.case(format!("{name}/{dtype}/{n}x{m}/{k}"), j, dtype, &[], r);
            }
        }
        let r = dispatch_dtype!(dtype, T => {
            Array::<T, B>::identity(&rec.backend, 5).and_then(|x| Out::typed(&x))
        });
        let j = json!({"op": "eye", "n": 5, "m": 5, "k": 0});
        rec.case(format!("identity/{dtype}"), j, dtype, &[], r);

        // meshgrid: every output of one to three vectors, in both orders.
        for lens in [&[6][..], &[3, 4], &[2, 3, 5], &[4, 0, 2]] {
            let inputs: Vec<In> = lens
                .iter()
                .map(|&n| {
                    let v = values(rng, dtype, n, Kind::Mixed);
                    rec.array(dtype, &[n], &v)
                })
                .collect();
            for indexing in [Indexing::Xy, Indexing::Ij] {
                let name = if indexing == Indexing::Xy { "xy" } else { "ij" };
                let refs: Vec<&In> = inputs.iter().collect();
                for which in 0..lens.len() {
                    let r = dispatch_dtype!(dtype, T => {
                        let typed: Result<Vec<Array<T, B>>> =
                            inputs.iter().map(|i| i.raw.clone().into_typed::<T>()).collect();
                        typed.and_then(|t| {
                            let refs: Vec<&Array<T, B>> = t.iter().collect();
                            Out::typed(&Array::meshgrid(&refs, indexing)?[which])
                        })
                    });
                    let j = json!({"op": "meshgrid", "which": which, "indexing": name});
                    let id = format!("meshgrid/{dtype}/{lens:?}/{name}/{which}");
                    rec.case(id, j, dtype, &refs, r);
                }
            }
        }
    }
}
