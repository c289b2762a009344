//! `pad` in reflect and symmetric modes (and constant pads large enough to have their
//! margins filled one slab at a time), `repeat_counts`, `logspace` and `einsum` on the CPU
//! reference: their error paths (each a typed error) and a few values worked out by hand.

use gpuarrays_core::{Array, DataRef, ErrorKind, Pad, RawArray, Result};
use gpuarrays_cpu_ref::CpuBackend;

fn kind<T>(r: Result<T>) -> Option<ErrorKind> {
    r.err().map(|e| e.kind())
}

#[test]
fn pad_mirrors_follow_numpy() -> Result<()> {
    let cpu = CpuBackend::new();
    let a = Array::<i32, _>::from_slice(&cpu, &[3], &[0, 1, 2])?;
    // np.pad(np.arange(3), (7, 8), 'reflect') and 'symmetric'.
    let r = a.pad(&[(7, 8)], Pad::Reflect)?.to_vec()?;
    assert_eq!(r, [1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2]);
    let s = a.pad(&[(7, 8)], Pad::Symmetric)?.to_vec()?;
    assert_eq!(s, [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1]);
    // A reversed 2-D view, padded along both axes.
    let m = Array::<i32, _>::from_slice(&cpu, &[2, 2], &[1, 2, 3, 4])?.reverse(1)?;
    let p = m.pad(&[(1, 0), (0, 2)], Pad::Reflect)?;
    assert_eq!(p.dims(), [3, 4]);
    assert_eq!(p.to_vec()?, [4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3]);
    let one = Array::<f64, _>::from_slice(&cpu, &[1], &[5.0])?;
    assert_eq!(one.pad(&[(3, 2)], Pad::Reflect)?.to_vec()?, [5.0; 6]);
    let zero_d = Array::<f64, _>::from_slice(&cpu, &[], &[7.0])?;
    assert_eq!(zero_d.pad(&[], Pad::Symmetric)?.item()?, 7.0);
    Ok(())
}

/// A constant pad of over 4 MiB (margins filled slab by slab) of a strided view, against
/// loops over the result: every element outside the middle is the constant, none inside.
#[test]
fn large_constant_pads_fill_every_margin() -> Result<()> {
    let cpu = CpuBackend::new();
    let (d0, d1, d2) = (40usize, 100, 300);
    let data: Vec<i32> = (0..(d0 * d1 * d2) as i32).collect();
    let a = Array::<i32, _>::from_slice(&cpu, &[d2, d1, d0], &data)?.permute(&[2, 1, 0])?;
    let w = [(1usize, 2usize), (0, 3), (5, 0)];
    let p = a.pad(&w, Pad::Constant(-7))?;
    let dims = [d0 + 3, d1 + 3, d2 + 5];
    assert_eq!(p.dims(), dims);
    let got = p.to_vec()?;
    for i in 0..dims[0] {
        for j in 0..dims[1] {
            for k in 0..dims[2] {
                let v = got[(i * dims[1] + j) * dims[2] + k];
                let inside = (1..1 + d0).contains(&i) && j < d1 && (5..5 + d2).contains(&k);
                let want = match inside {
                    // a[i, j, k] is data[k][j][i] of the [d2, d1, d0] array.
                    true => data[((k - 5) * d1 + j) * d0 + (i - 1)],
                    false => -7,
                };
                assert_eq!(v, want, "at {i}, {j}, {k}");
            }
        }
    }
    Ok(())
}

#[test]
fn pad_mirror_errors() -> Result<()> {
    let cpu = CpuBackend::new();
    let empty = Array::<f32, _>::zeros(&cpu, &[0, 3])?;
    for mode in [Pad::Reflect, Pad::Symmetric] {
        assert_eq!(
            kind(empty.pad(&[(1, 0), (0, 0)], mode)),
            Some(ErrorKind::InvalidArgument)
        );
        // Padding only the non-empty axis is fine (NumPy too).
        assert_eq!(empty.pad(&[(0, 0), (2, 1)], mode)?.dims(), [0, 6]);
        assert_eq!(
            kind(empty.pad(&[(0, 0)], mode)),
            Some(ErrorKind::RankMismatch)
        );
    }
    Ok(())
}

#[test]
fn repeat_counts_values_and_errors() -> Result<()> {
    let cpu = CpuBackend::new();
    let a = Array::<f32, _>::from_slice(&cpu, &[2, 3], &[1., 2., 3., 4., 5., 6.])?;
    let c = Array::<u8, _>::from_slice(&cpu, &[3], &[0, 2, 1])?;
    let r = a.repeat_counts(&c, Some(1))?;
    assert_eq!(r.dims(), [2, 3]);
    assert_eq!(r.to_vec()?, [2., 2., 3., 5., 5., 6.]);
    let c2 = Array::<i64, _>::from_slice(&cpu, &[2], &[3, 0])?;
    let r = a.repeat_counts(&c2, Some(0))?;
    assert_eq!(r.to_vec()?, [1., 2., 3., 1., 2., 3., 1., 2., 3.]);
    let one = Array::<i32, _>::from_slice(&cpu, &[1], &[2])?;
    assert_eq!(a.repeat_counts(&one, None)?.len(), 12);
    let zeros = Array::<i32, _>::from_slice(&cpu, &[3], &[0, 0, 0])?;
    assert_eq!(a.repeat_counts(&zeros, Some(1))?.dims(), [2, 0]);

    let neg = Array::<i32, _>::from_slice(&cpu, &[3], &[1, -1, 2])?;
    assert_eq!(
        kind(a.repeat_counts(&neg, Some(1))),
        Some(ErrorKind::InvalidArgument)
    );
    let neg1 = Array::<i64, _>::from_slice(&cpu, &[1], &[-2])?;
    assert_eq!(
        kind(a.repeat_counts(&neg1, Some(1))),
        Some(ErrorKind::InvalidArgument)
    );
    assert_eq!(
        kind(a.repeat_counts(&c, Some(0))),
        Some(ErrorKind::ShapeMismatch)
    );
    assert_eq!(
        kind(a.repeat_counts(&c, Some(2))),
        Some(ErrorKind::AxisOutOfRange)
    );
    let fl = Array::<f32, _>::from_slice(&cpu, &[3], &[1., 1., 1.])?;
    assert_eq!(
        kind(a.repeat_counts(&fl, Some(1))),
        Some(ErrorKind::InvalidDType)
    );
    let b = Array::<bool, _>::from_slice(&cpu, &[3], &[true, true, false])?;
    assert_eq!(
        kind(a.repeat_counts(&b, Some(1))),
        Some(ErrorKind::InvalidDType)
    );
    let two_d = Array::<i32, _>::from_slice(&cpu, &[1, 3], &[1, 1, 1])?;
    assert_eq!(
        kind(a.repeat_counts(&two_d, Some(1))),
        Some(ErrorKind::RankMismatch)
    );
    Ok(())
}

#[test]
fn logspace_values_and_errors() -> Result<()> {
    let cpu = CpuBackend::new();
    let v = Array::<f64, _>::logspace(&cpu, 0.0, 3.0, 4, true, 10.0)?.to_vec()?;
    assert_eq!(v, [1.0, 10.0, 100.0, 1000.0]);
    let v = Array::<f64, _>::logspace(&cpu, 0.0, 4.0, 4, false, 2.0)?.to_vec()?;
    assert_eq!(v, [1.0, 2.0, 4.0, 8.0]);
    assert!(Array::<f32, _>::logspace(&cpu, 1.0, 2.0, 0, true, 10.0)?.is_empty());
    assert_eq!(
        kind(Array::<i32, _>::logspace(&cpu, 0, 3, 4, true, 10)),
        Some(ErrorKind::InvalidDType)
    );
    Ok(())
}

#[test]
fn einsum_values() -> Result<()> {
    let cpu = CpuBackend::new();
    let m = Array::<i64, _>::from_slice(&cpu, &[2, 3], &[1, 2, 3, 4, 5, 6])?;
    let sq = Array::<i64, _>::from_slice(&cpu, &[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9])?;
    let e = |s: &str, ops: &[&Array<i64, CpuBackend>]| -> Result<Vec<i64>> {
        Array::einsum(s, ops)?.to_vec()
    };
    assert_eq!(e("ij->ji", &[&m])?, [1, 4, 2, 5, 3, 6]);
    assert_eq!(e("ij->", &[&m])?, [21]);
    assert_eq!(e("ij->j", &[&m])?, [5, 7, 9]);
    assert_eq!(e("ii->i", &[&sq])?, [1, 5, 9]);
    assert_eq!(e("ii", &[&sq])?, [15]);
    assert_eq!(e("ij,jk", &[&m, &sq])?, [30, 36, 42, 66, 81, 96]);
    assert_eq!(e("ij,ij->ij", &[&m, &m])?, [1, 4, 9, 16, 25, 36]);
    assert_eq!(e("ij,ij->", &[&m, &m])?, [91]);
    let v = Array::<i64, _>::from_slice(&cpu, &[3], &[1, 2, 3])?;
    assert_eq!(e("i,i->", &[&v, &v])?, [14]);
    assert_eq!(e("i,j->ij", &[&v, &v])?, [1, 2, 3, 2, 4, 6, 3, 6, 9]);
    assert_eq!(e("ij,j->i", &[&m, &v])?, [14, 32]);
    // The result is a new array, not a view of the operand.
    let t = Array::einsum("ij->ij", &[&m])?;
    assert!(!DataRef::same_buffer(t.data(), m.data()));
    Ok(())
}

#[test]
fn einsum_errors() -> Result<()> {
    let cpu = CpuBackend::new();
    let m = Array::<f32, _>::zeros(&cpu, &[2, 3])?;
    let k = |s: &str, ops: &[&Array<f32, CpuBackend>]| kind(Array::einsum(s, ops));
    assert_eq!(k("ij->ji", &[]), Some(ErrorKind::InvalidArgument));
    assert_eq!(
        k("i,i,i->", &[&m, &m, &m]),
        Some(ErrorKind::InvalidArgument)
    );
    assert_eq!(k("ij,jk->ik", &[&m]), Some(ErrorKind::InvalidArgument));
    assert_eq!(k("...j->j", &[&m]), Some(ErrorKind::InvalidArgument));
    assert_eq!(k("ij,jk->ik", &[&m, &m]), Some(ErrorKind::ShapeMismatch));
    assert_eq!(k("ijk->i", &[&m]), Some(ErrorKind::RankMismatch));
    let d = Array::<f64, _>::zeros(&cpu, &[3, 2])?;
    assert_eq!(
        kind(RawArray::einsum("ij,jk->ik", &[m.raw(), d.raw()])),
        Some(ErrorKind::DTypeMismatch)
    );
    let b = Array::<bool, _>::zeros(&cpu, &[2, 2])?;
    assert_eq!(
        kind(Array::einsum("ij->", &[&b])),
        Some(ErrorKind::InvalidDType)
    );
    Ok(())
}
