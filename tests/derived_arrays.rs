//! Derived arrays (`view`, `slice`, `reshape`, `reinterpret`, `share`) share one buffer:
//! identity and reference counts, offsets, writes through one seen through the others,
//! release of one reference versus `free_all_shared`, and derived arrays as operands of
//! every kind of operation (results checked against plain host computations).

use gpuarrays::DataRef;
use gpuarrays::prelude::*;

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

/// `[0, 1, 2, ...]` as i32 of shape `dims`, and the same values on the host.
fn iota(b: &CpuBackend, dims: &[usize]) -> (Array<i32, CpuBackend>, Vec<i32>) {
    let n: usize = dims.iter().product();
    let host: Vec<i32> = (0..n as i32).collect();
    (Array::from_slice(b, dims, &host).unwrap(), host)
}

#[test]
fn derived_arrays_share_the_buffer_and_count_references() {
    let b = cpu();
    let (a, _) = iota(&b, &[4, 6]);
    assert_eq!(a.data().ref_count(), 1);
    let view = a.view(&[1..3, 0..6]).unwrap();
    let slice = a.slice(5..9).unwrap();
    let reshaped = a.reshape(&[6, -1]).unwrap();
    let words = a.reinterpret::<u32>().unwrap();
    let shared = a.share();
    let copy = a.copy().unwrap();
    for d in [view.data(), slice.data(), reshaped.data(), shared.data()] {
        assert!(DataRef::same_buffer(a.data(), d));
    }
    assert!(DataRef::same_buffer(a.data(), words.data()));
    assert!(!DataRef::same_buffer(a.data(), copy.data()));
    assert_eq!(a.data().ref_count(), 6);
    assert_eq!(copy.data().ref_count(), 1);
    drop((view, slice));
    assert_eq!(a.data().ref_count(), 4);
    words.free();
    assert_eq!(a.data().ref_count(), 3);
    assert_eq!(reshaped.dims(), &[6, 4]);
}

#[test]
fn offsets_are_where_the_elements_are() {
    let b = cpu();
    let (a, host) = iota(&b, &[4, 6]);
    let rows = a.view(&[1..3, 0..6]).unwrap();
    assert_eq!((rows.offset(), rows.dims()), (6, &[2usize, 6][..]));
    assert_eq!(rows.to_vec().unwrap(), host[6..18]);
    let part = a.view(&[2..3, 1..5]).unwrap();
    assert_eq!(part.offset(), 13);
    assert_eq!(part.to_vec().unwrap(), host[13..17]);
    // A view of a view adds the offsets; a reshape keeps the offset.
    let inner = rows.view(&[1..2, 2..6]).unwrap();
    assert_eq!(inner.offset(), 6 + 8);
    assert_eq!(inner.to_vec().unwrap(), host[14..18]);
    let flat = rows.reshape(&[3, 4]).unwrap();
    assert_eq!(flat.offset(), 6);
    assert_eq!(flat.to_vec().unwrap(), host[6..18]);
    // A reinterpret scales the offset by the element sizes.
    let pairs = a.slice(4..12).unwrap().reinterpret::<i64>().unwrap();
    assert_eq!((pairs.offset(), pairs.dims()), (2, &[4usize][..]));
    let expect: Vec<i64> = host[4..12]
        .chunks(2)
        .map(|p| (p[0] as u32 as i64) | ((p[1] as i64) << 32))
        .collect();
    assert_eq!(pairs.to_vec().unwrap(), expect);
    let bytes = a.slice(1..3).unwrap().reinterpret::<u8>().unwrap();
    assert_eq!((bytes.offset(), bytes.len()), (4, 8));
    assert_eq!(bytes.to_vec().unwrap(), [1, 0, 0, 0, 2, 0, 0, 0]);
}

#[test]
fn writes_through_one_array_are_seen_through_the_others() {
    let b = cpu();
    let (a, mut host) = iota(&b, &[4, 6]);
    let mut rows = a.view(&[1..3, 0..6]).unwrap();
    let flat = a.reshape(&[-1]).unwrap();
    rows.fill(-7).unwrap();
    host[6..18].fill(-7);
    assert_eq!(flat.to_vec().unwrap(), host);
    // assign into a reshape of a slice.
    let mut tail = a.slice(18..24).unwrap().reshape(&[2, 3]).unwrap();
    let src = Array::from_slice(&b, &[2, 3], &[10, 11, 12, 13, 14, 15]).unwrap();
    tail.assign(&src).unwrap();
    host[18..24].copy_from_slice(&[10, 11, 12, 13, 14, 15]);
    assert_eq!(a.to_vec().unwrap(), host);
    // eval_into a reinterpret: bit patterns written as u32 are seen as i32.
    let mut bits = a.slice(0..6).unwrap().reinterpret::<u32>().unwrap();
    (bits.ex() ^ 0xFFu32).eval_into(&mut bits).unwrap();
    for x in &mut host[0..6] {
        *x ^= 0xFF;
    }
    assert_eq!(flat.to_vec().unwrap(), host);
    // An expression reading its destination at another position uses a temporary.
    let mut head = a.slice(0..4).unwrap();
    let next = a.slice(1..5).unwrap();
    (next.ex() + 0).eval_into(&mut head).unwrap();
    let expect: Vec<i32> = host[1..5].to_vec();
    host[0..4].copy_from_slice(&expect);
    assert_eq!(a.to_vec().unwrap(), host);
}

#[test]
fn dropping_one_array_leaves_the_others_working() {
    let b = cpu();
    let (a, host) = iota(&b, &[3, 4]);
    let rows = a.view(&[1..3, 0..4]).unwrap();
    let flat = a.reshape(&[12]).unwrap();
    drop(a);
    assert_eq!(rows.to_vec().unwrap(), host[4..12]);
    assert_eq!(rows.data().ref_count(), 2);
    flat.free();
    assert_eq!(rows.data().ref_count(), 1);
    assert!(rows.data().is_alive());
    assert_eq!(rows.sum().unwrap(), host[4..12].iter().sum::<i32>());
}

#[test]
fn free_all_shared_frees_for_every_holder() {
    let b = cpu();
    let (a, _) = iota(&b, &[3, 4]);
    let rows = a.view(&[1..3, 0..4]).unwrap();
    let words = a.reinterpret::<f32>().unwrap();
    let other = a.copy().unwrap();
    rows.free_all_shared().unwrap();
    for d in [a.data(), rows.data()] {
        assert!(!d.is_alive());
    }
    assert!(matches!(a.to_vec(), Err(Error::Freed)));
    assert!(matches!(rows.sum(), Err(Error::Freed)));
    assert!(matches!(words.to_vec(), Err(Error::Freed)));
    // Arrays with their own buffers are untouched.
    assert!(other.data().is_alive());
    assert_eq!(other.to_vec().unwrap(), (0..12).collect::<Vec<_>>());
    a.free_all_shared().unwrap();
    drop((a, rows, words));
}

/// `m` rows of `n` f32 values from a host vector.
fn host_matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum();
        }
    }
    out
}

#[test]
fn derived_arrays_are_operands_of_every_kind_of_operation() {
    let b = cpu();
    // Small integers as f32: every result below is exact.
    let host: Vec<f32> = (0..60).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
    let base = Array::from_slice(&b, &[60], &host).unwrap();
    let m = base.slice(7..31).unwrap().reshape(&[4, 6]).unwrap();
    let hm = &host[7..31];
    let row = base.view(std::slice::from_ref(&(40..46))).unwrap();
    let hr = &host[40..46];

    // Elementwise with broadcasting of a second derived array.
    let sum: Vec<f32> = (m.ex() * 2.0 + row.ex())
        .eval::<f32>()
        .unwrap()
        .to_vec()
        .unwrap();
    let expect: Vec<f32> = (0..24).map(|i| hm[i] * 2.0 + hr[i % 6]).collect();
    assert_eq!(sum, expect);
    // Casts and comparisons.
    let ints = m.cast::<i32>().unwrap().to_vec().unwrap();
    assert_eq!(ints, hm.iter().map(|&x| x as i32).collect::<Vec<_>>());
    let mask = m.ex().gt(0.0).eval::<bool>().unwrap();
    let hits: Vec<i64> = (0..24).filter(|&i| hm[i] > 0.0).map(|i| i as i64).collect();
    assert_eq!(mask.find().unwrap().to_vec().unwrap(), hits);
    assert_eq!(
        mask.find_first().unwrap(),
        hits.first().map(|&i| i as usize)
    );
    // Reductions, over everything and per axis.
    assert_eq!(m.sum().unwrap(), hm.iter().sum::<f32>());
    let col_sums: Vec<f32> = (0..6)
        .map(|j| (0..4).map(|i| hm[i * 6 + j]).sum())
        .collect();
    assert_eq!(m.sum_axis(0).unwrap().to_vec().unwrap(), col_sums);
    let row_max: Vec<f32> = hm
        .chunks(6)
        .map(|r| r.iter().cloned().fold(f32::MIN, f32::max))
        .collect();
    assert_eq!(m.max_axis(1).unwrap().to_vec().unwrap(), row_max);
    let first_min = (0..24).fold(0, |best, i| if hm[i] < hm[best] { i } else { best });
    assert_eq!(m.argmin().unwrap(), first_min);
    assert_eq!(m.mean().unwrap(), hm.iter().sum::<f32>() / 24.0);
    // Scans, reverse, permute.
    let cums: Vec<f32> = hm
        .chunks(6)
        .flat_map(|r| {
            r.iter()
                .scan(0.0, |s, &x| {
                    *s += x;
                    Some(*s)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(m.cumsum(1).unwrap().to_vec().unwrap(), cums);
    let rev: Vec<f32> = hm.chunks(6).rev().flatten().cloned().collect();
    assert_eq!(m.reverse(0).unwrap().to_vec().unwrap(), rev);
    let t: Vec<f32> = (0..24).map(|p| hm[(p % 4) * 6 + p / 4]).collect();
    assert_eq!(m.transpose().unwrap().to_vec().unwrap(), t);
    // Sort each row.
    let sorted: Vec<f32> = hm
        .chunks(6)
        .flat_map(|r| {
            let mut r = r.to_vec();
            r.sort_by(|a, b| a.partial_cmp(b).unwrap());
            r
        })
        .collect();
    assert_eq!(m.sort().unwrap().to_vec().unwrap(), sorted);
    // Matrix product of two derived arrays.
    let rhs = base.slice(31..49).unwrap().reshape(&[6, 3]).unwrap();
    let expect = host_matmul(hm, &host[31..49], 4, 6, 3);
    assert_eq!(m.matmul(&rhs).unwrap().to_vec().unwrap(), expect);
    // Copies and broadcasts of derived arrays are new buffers with the right values.
    let c = row.copy().unwrap();
    assert!(!DataRef::same_buffer(c.data(), base.data()));
    assert_eq!(c.to_vec().unwrap(), hr);
    let wide = row.broadcast_to(&[2, 6]).unwrap();
    assert_eq!(wide.to_vec().unwrap(), [hr, hr].concat());
    // Nothing wrote into the base.
    assert_eq!(base.to_vec().unwrap(), host);
}
