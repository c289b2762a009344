//! The oracle of the sort family, from NumPy's and PyTorch's documentation: each lane along
//! the axis ordered by a stable sort of positions under the comparison of `sort` (NaNs
//! equal to each other and largest, `-0.0 == 0.0`, `false < true`), reversed for descending
//! order; `unique` groups equal neighbours of that order; `searchsorted` counts.

use std::cmp::Ordering;

use gpuarrays_core::Scalar;

use super::axis::order;
use super::rules::{
    self, AXIS_OUT_OF_RANGE, DTYPE_MISMATCH, Expected, INVALID_ARGUMENT, RANK_MISMATCH,
};
use crate::case::OrderCase;
use crate::host::{HostArray, HostData};

fn shape_checks(a: &HostArray, axis: usize) -> Result<(), Expected> {
    if a.dims.is_empty() {
        return Err(RANK_MISMATCH);
    }
    if axis >= a.dims.len() {
        return Err(AXIS_OUT_OF_RANGE);
    }
    Ok(())
}

/// The flat positions of lane `l` along `axis`: `outer × inner` lanes of `dims[axis]`.
fn lane(dims: &[usize], axis: usize, l: usize) -> Vec<usize> {
    let inner: usize = dims[axis + 1..].iter().product();
    let len = dims[axis];
    let (o, i) = (l / inner.max(1), l % inner.max(1));
    (0..len).map(|j| (o * len + j) * inner + i).collect()
}

fn lanes(dims: &[usize], axis: usize) -> usize {
    dims.iter()
        .product::<usize>()
        .checked_div(dims[axis])
        .unwrap_or(0)
}

/// The stable order of `values` (ascending, or descending by the reversed comparison).
fn stable_order(values: &[Scalar], descending: bool) -> Vec<usize> {
    let mut p: Vec<usize> = (0..values.len()).collect();
    p.sort_by(|&x, &y| {
        let o = order(&values[x], &values[y]);
        if descending { o.reverse() } else { o }
    });
    p
}

/// For each lane, the stable order of its elements; the result puts lane position `j` of
/// the output at `take` elements per lane.
fn per_lane(
    a: &HostArray,
    axis: usize,
    descending: bool,
    take: usize,
    mut emit: impl FnMut(usize, usize, usize),
) {
    let mut out_dims = a.dims.clone();
    out_dims[axis] = take;
    for l in 0..lanes(&a.dims, axis) {
        let src = lane(&a.dims, axis, l);
        let dst = lane(&out_dims, axis, l);
        let vals: Vec<Scalar> = src.iter().map(|&p| a.data.get(p)).collect();
        for (j, &k) in stable_order(&vals, descending)
            .iter()
            .take(take)
            .enumerate()
        {
            emit(dst[j], k, src[k]);
        }
    }
}

fn sorted(
    a: &HostArray,
    axis: usize,
    descending: bool,
    k: usize,
    indices: bool,
) -> Result<HostArray, Expected> {
    let mut dims = a.dims.clone();
    dims[axis] = k;
    let n: usize = dims.iter().product();
    if indices {
        let mut out = vec![0i64; n];
        per_lane(a, axis, descending, k, |d, j, _| out[d] = j as i64);
        Ok(HostArray::new(dims, HostData::I64(out)))
    } else {
        let mut out = vec![Scalar::zero(a.dtype()); n];
        per_lane(a, axis, descending, k, |d, _, p| out[d] = a.data.get(p));
        let data = HostData::from_scalars(a.dtype(), out).map_err(|_| INVALID_ARGUMENT)?;
        Ok(HostArray::new(dims, data))
    }
}

fn kth_ok(kth: isize, len: usize) -> Result<(), Expected> {
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k as usize >= len {
        return Err(INVALID_ARGUMENT);
    }
    Ok(())
}

/// The expected result of `op` on `ins`.
pub fn evaluate(op: OrderCase, ins: &[&HostArray]) -> Result<HostArray, Expected> {
    let a = *ins.first().ok_or(INVALID_ARGUMENT)?;
    match op {
        OrderCase::Argsort { axis, descending } | OrderCase::SortAlong { axis, descending } => {
            shape_checks(a, axis)?;
            rules::ordered_only(a.dtype())?;
            let indices = matches!(op, OrderCase::Argsort { .. });
            sorted(a, axis, descending, a.dims[axis], indices)
        }
        OrderCase::Topk {
            k,
            axis,
            descending,
            which,
        } => {
            shape_checks(a, axis)?;
            if k > a.dims[axis] {
                return Err(INVALID_ARGUMENT);
            }
            rules::ordered_only(a.dtype())?;
            sorted(a, axis, descending, k, which == 1)
        }
        OrderCase::Partition { kth, axis } | OrderCase::Argpartition { kth, axis } => {
            shape_checks(a, axis)?;
            kth_ok(kth, a.dims[axis])?;
            rules::ordered_only(a.dtype())?;
            let indices = matches!(op, OrderCase::Argpartition { .. });
            sorted(a, axis, false, a.dims[axis], indices)
        }
        OrderCase::Unique(which) => unique(a, which),
        OrderCase::Searchsorted { right } => {
            let v = *ins.get(1).ok_or(INVALID_ARGUMENT)?;
            if a.dims.len() != 1 {
                return Err(RANK_MISMATCH);
            }
            if v.dtype() != a.dtype() {
                return Err(DTYPE_MISMATCH);
            }
            rules::ordered_only(a.dtype())?;
            // The count of elements before (or not after) each value, by binary search in a
            // sorted copy (the cases' arrays are sorted; the backends search them as given).
            let mut sorted_a: Vec<Scalar> = a.data.scalars().collect();
            sorted_a.sort_by(order);
            let counts = (0..v.len())
                .map(|j| {
                    let x = v.data.get(j);
                    sorted_a.partition_point(|y| match order(y, &x) {
                        Ordering::Less => true,
                        Ordering::Equal => right,
                        Ordering::Greater => false,
                    }) as i64
                })
                .collect();
            Ok(HostArray::new(v.dims.clone(), HostData::I64(counts)))
        }
    }
}

/// Output `which` of NumPy's `unique(return_index, return_inverse, return_counts)` of the
/// flattened array.
fn unique(a: &HostArray, which: usize) -> Result<HostArray, Expected> {
    rules::ordered_only(a.dtype())?;
    let vals: Vec<Scalar> = a.data.scalars().collect();
    let p = stable_order(&vals, false);
    let (mut firsts, mut counts) = (Vec::<usize>::new(), Vec::<i64>::new());
    let mut inverse = vec![0i64; vals.len()];
    for (j, &k) in p.iter().enumerate() {
        let new_group = j == 0 || order(&vals[p[j - 1]], &vals[k]) != Ordering::Equal;
        if new_group {
            firsts.push(k);
            counts.push(0);
        }
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
        inverse[k] = firsts.len() as i64 - 1;
    }
    let u = firsts.len();
    Ok(match which {
        0 | 4 => {
            let data = HostData::from_scalars(
                a.dtype(),
                firsts.iter().map(|&k| vals[k]).collect::<Vec<_>>(),
            )
            .map_err(|_| INVALID_ARGUMENT)?;
            HostArray::new(vec![u], data)
        }
        1 => HostArray::new(
            vec![u],
            HostData::I64(firsts.iter().map(|&k| k as i64).collect()),
        ),
        2 => HostArray::new(a.dims.clone(), HostData::I64(inverse)),
        _ => HostArray::new(vec![u], HostData::I64(counts)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argsort_is_stable_and_nan_last() {
        let a = HostArray::new(vec![5], HostData::F64(vec![1.0, f64::NAN, -0.0, 0.0, -1.0]));
        let r = evaluate(
            OrderCase::Argsort {
                axis: 0,
                descending: false,
            },
            &[&a],
        )
        .unwrap();
        assert_eq!(r.data, HostData::I64(vec![4, 2, 3, 0, 1]));
        let r = evaluate(
            OrderCase::Argsort {
                axis: 0,
                descending: true,
            },
            &[&a],
        )
        .unwrap();
        assert_eq!(r.data, HostData::I64(vec![1, 0, 2, 3, 4]));
    }

    #[test]
    fn unique_groups_nans_and_zeros() {
        let a = HostArray::new(
            vec![6],
            HostData::F64(vec![2.0, f64::NAN, -0.0, 0.0, f64::NAN, 1.0]),
        );
        let counts = evaluate(OrderCase::Unique(3), &[&a]).unwrap();
        assert_eq!(counts.data, HostData::I64(vec![2, 1, 1, 2]));
        let first = evaluate(OrderCase::Unique(1), &[&a]).unwrap();
        assert_eq!(first.data, HostData::I64(vec![2, 5, 0, 1]));
    }

    #[test]
    fn searchsorted_counts() {
        let a = HostArray::new(vec![4], HostData::I32(vec![1, 2, 2, 3]));
        let v = HostArray::new(vec![2, 2], HostData::I32(vec![2, 5, 0, 2]));
        let r = evaluate(OrderCase::Searchsorted { right: true }, &[&a, &v]).unwrap();
        assert_eq!(r.data, HostData::I64(vec![3, 4, 0, 3]));
        let r = evaluate(OrderCase::Searchsorted { right: false }, &[&a, &v]).unwrap();
        assert_eq!(r.data, HostData::I64(vec![1, 4, 0, 1]));
    }
}
