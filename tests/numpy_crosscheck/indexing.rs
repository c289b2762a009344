//! Gathers, scatters and masks against NumPy's `take` (raise, wrap, clip),
//! `take_along_axis`, `put`, `put_along_axis`, fancy assignment (`index_copy`),
//! `add.at` (`index_add`, `scatter_add`), boolean indexing, `nonzero`, `argwhere` and
//! `bincount`, for every element type, with strided and reversed operands and indices of
//! several integer types.

use gpuarrays_core::kernel::IndexMode;
use gpuarrays_core::s;

use super::*;

/// `n` integers of `t` drawn from `lo..=hi`.
fn ints(rec: &mut Recorder, rng: &mut Rng, t: DType, dims: &[usize], lo: i64, hi: i64) -> In {
    let n = dims.iter().product();
    let v: Vec<Scalar> = (0..n)
        .map(|_| Scalar::I64(rng.int(lo, hi)).cast(t))
        .collect();
    rec.array(t, dims, &v)
}

/// `n` distinct positions of `0..extent`, each written as `p` or `p − extent`.
fn distinct(rec: &mut Recorder, rng: &mut Rng, n: usize, extent: usize) -> In {
    let mut pool: Vec<i64> = (0..extent as i64).collect();
    for k in 0..n {
        let j = rng.int(k as i64, extent as i64 - 1) as usize;
        pool.swap(k, j);
    }
    let v: Vec<Scalar> = pool[..n]
        .iter()
        .map(|&p| {
            Scalar::I64(if rng.chance(0.5) {
                p - extent as i64
            } else {
                p
            })
        })
        .collect();
    rec.array(DType::I64, &[n], &v)
}

fn mode_name(m: IndexMode) -> &'static str {
    m.name()
}

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        let arr = |rec: &mut Recorder, rng: &mut Rng, dims: &[usize]| {
            let n = dims.iter().product();
            let v = values(rng, dtype, n, Kind::Mixed);
            rec.array(dtype, dims, &v)
        };
        let a = arr(rec, rng, &[4, 5]);
        let big = arr(rec, rng, &[6, 8]);
        let stepped = big.at(&s![1..;2, ..;-2]); // [3, 4], strided and reversed
        // take: every mode, an axis or the flattened array, indices of several types.
        // (The first two fit the view's [3, 4] as well as `a`'s [4, 5]; the third is out
        // of range for the view, which must refuse it as NumPy does.)
        let takes = [
            (Some(1usize), IndexMode::Raise, DType::I64, -4, 3),
            (Some(0), IndexMode::Raise, DType::I32, -3, 2),
            (Some(1), IndexMode::Raise, DType::I64, 4, 4),
            (None, IndexMode::Wrap, DType::I64, -50, 50),
            (Some(1), IndexMode::Clip, DType::I32, -9, 9),
            (Some(0), IndexMode::Wrap, DType::U8, 0, 200),
        ];
        for (k, (axis, mode, it, lo, hi)) in takes.into_iter().enumerate() {
            let idx = ints(rec, rng, it, &[2, 3], lo, hi);
            for (name, x) in [("a", &a), ("stepped", &stepped)] {
                let r = x.raw.take(&idx.raw, axis, mode).and_then(|o| Out::raw(&o));
                let j = json!({"op": "take", "axis": axis, "mode": mode_name(mode)});
                rec.case(format!("take/{dtype}/{k}/{name}"), j, dtype, &[x, &idx], r);
            }
        }
        // take_along_axis, with indices broadcast along the other axis.
        for (axis, dims) in [(1usize, [4usize, 7]), (0, [3, 5]), (1, [1, 3])] {
            let n = a.raw.dims()[axis] as i64;
            let idx = ints(rec, rng, DType::I64, &dims, -n, n - 1);
            let r = a
                .raw
                .take_along_axis(&idx.raw, axis)
                .and_then(|o| Out::raw(&o));
            let j = json!({"op": "take_along_axis", "axis": axis});
            rec.case(
                format!("take_along_axis/{dtype}/{axis}/{dims:?}"),
                j,
                dtype,
                &[&a, &idx],
                r,
            );
        }
        // put (values repeated cyclically) into a copy, and into a strided view's copy.
        for (k, mode) in IndexMode::ALL.into_iter().enumerate() {
            let idx = distinct(rec, rng, 7, 20);
            let vals = arr(rec, rng, &[3]);
            let r = a.raw.copy().and_then(|y| {
                y.put(&idx.raw, &vals.raw, mode)?;
                Out::raw(&y)
            });
            let j = json!({"op": "put", "mode": mode_name(mode)});
            rec.case(format!("put/{dtype}/{k}"), j, dtype, &[&a, &idx, &vals], r);
        }
        // put_along_axis and the sums (add.at), along each axis.
        for axis in [0usize, 1] {
            let n = a.raw.dims()[axis];
            let mut dims = a.raw.dims().to_vec();
            dims[axis] = 2;
            let cols: Vec<Scalar> = (0..dims.iter().product::<usize>())
                .map(|_| Scalar::I64(0))
                .collect();
            // Distinct positions along the axis in every lane: a shuffled column per lane.
            let mut lanes = cols;
            let other = dims[1 - axis];
            for l in 0..other {
                let pick = distinct(rec, rng, 2, n);
                let host = pick.raw.to_bytes().expect("read");
                for j in 0..2 {
                    let p = i64::from_le_bytes(host[j * 8..j * 8 + 8].try_into().expect("8 bytes"));
                    let at = if axis == 0 { j * other + l } else { l * 2 + j };
                    lanes[at] = Scalar::I64(p);
                }
            }
            let idx = rec.array(DType::I64, &dims, &lanes);
            let vals = arr(rec, rng, &dims);
            let r = a.raw.copy().and_then(|y| {
                y.put_along_axis(&idx.raw, &vals.raw, axis)?;
                Out::raw(&y)
            });
            let j = json!({"op": "put_along_axis", "axis": axis});
            rec.case(
                format!("put_along_axis/{dtype}/{axis}"),
                j,
                dtype,
                &[&a, &idx, &vals],
                r,
            );
            let m = 4i64; // the target's length along `axis` ([4, 5] or [5, 4])
            let dup = ints(rec, rng, DType::I64, &[5, 5], -m, m - 1);
            let dup = if axis == 0 { dup } else { dup.permute(&[1, 0]) };
            let add_vals = arr(rec, rng, &[5, 5]);
            let (target, vals_t) = if axis == 0 {
                (arr(rec, rng, &[4, 5]), add_vals)
            } else {
                (arr(rec, rng, &[5, 4]), add_vals)
            };
            let r = target.raw.copy().and_then(|y| {
                y.scatter_add(&dup.raw, &vals_t.raw, axis)?;
                Out::raw(&y)
            });
            let j = json!({"op": "scatter_add", "axis": axis});
            rec.case(
                format!("scatter_add/{dtype}/{axis}"),
                j,
                dtype,
                &[&target, &dup, &vals_t],
                r,
            );
        }
        // index_copy (distinct) and index_add (repeats), on a strided target.
        let idx = distinct(rec, rng, 3, 3);
        let vals = arr(rec, rng, &[3, 4]);
        let r = stepped.raw.copy().and_then(|y| {
            y.index_copy(0, &idx.raw, &vals.raw)?;
            Out::raw(&y)
        });
        let j = json!({"op": "index_copy", "axis": 0});
        rec.case(
            format!("index_copy/{dtype}"),
            j,
            dtype,
            &[&stepped, &idx, &vals],
            r,
        );
        let rep = ints(rec, rng, DType::I32, &[6], -4, 3);
        let vals = arr(rec, rng, &[3, 6]);
        let r = stepped.raw.copy().and_then(|y| {
            y.index_add(1, &rep.raw, &vals.raw)?;
            Out::raw(&y)
        });
        let j = json!({"op": "index_add", "axis": 1});
        rec.case(
            format!("index_add/{dtype}"),
            j,
            dtype,
            &[&stepped, &rep, &vals],
            r,
        );
        // Boolean masks: select and assign, over all or the leading dimensions.
        for (k, dims) in [vec![4usize, 5], vec![4]].into_iter().enumerate() {
            let n = dims.iter().product();
            let m: Vec<Scalar> = (0..n).map(|_| Scalar::Bool(rng.chance(0.5))).collect();
            let mask = rec.array(DType::Bool, &dims, &m);
            let r = a.raw.masked_select(&mask.raw).and_then(|o| Out::raw(&o));
            let j = json!({"op": "masked_select"});
            rec.case(
                format!("masked_select/{dtype}/{k}"),
                j,
                dtype,
                &[&a, &mask],
                r,
            );
            let value = arr(rec, rng, &[]);
            let r = a.raw.copy().and_then(|y| {
                y.masked_assign(&mask.raw, &value.raw)?;
                Out::raw(&y)
            });
            let j = json!({"op": "masked_assign"});
            rec.case(
                format!("masked_assign/{dtype}/{k}"),
                j,
                dtype,
                &[&a, &mask, &value],
                r,
            );
        }
        // nonzero and argwhere of a sparse array (and of the strided view).
        let sparse: Vec<Scalar> = values(rng, dtype, 20, Kind::Mixed)
            .into_iter()
            .map(|v| {
                if rng.chance(0.5) {
                    Scalar::zero(dtype)
                } else {
                    v
                }
            })
            .collect();
        let sp = rec.array(dtype, &[4, 5], &sparse);
        for (name, x) in [("sparse", &sp), ("stepped", &stepped)] {
            for k in 0..2 {
                let r = x.raw.nonzero().and_then(|v| Out::raw(&v[k]));
                let j = json!({"op": "nonzero", "which": k});
                rec.case(format!("nonzero/{dtype}/{name}/{k}"), j, dtype, &[x], r);
            }
            let r = x.raw.argwhere().and_then(|o| Out::raw(&o));
            rec.case(
                format!("argwhere/{dtype}/{name}"),
                json!({"op": "argwhere"}),
                dtype,
                &[x],
                r,
            );
        }
        // bincount of small non-negative values of this type (other types refused).
        let counts: Vec<Scalar> = (0..30)
            .map(|_| Scalar::I64(rng.int(0, 9)).cast(dtype))
            .collect();
        let xs = rec.array(dtype, &[30], &counts);
        let r = xs.raw.bincount(None, 12).and_then(|o| Out::raw(&o));
        let j = json!({"op": "bincount", "minlength": 12});
        rec.case(format!("bincount/{dtype}"), j, dtype, &[&xs], r);
        let w = rec.array(DType::F32, &[30], &values(rng, DType::F32, 30, Kind::Mixed));
        let r = xs.raw.bincount(Some(&w.raw), 0).and_then(|o| Out::raw(&o));
        let j = json!({"op": "bincount", "minlength": 0, "weighted": true});
        rec.case(
            format!("bincount_weighted/{dtype}"),
            j,
            dtype,
            &[&xs, &w],
            r,
        );
    }
}
