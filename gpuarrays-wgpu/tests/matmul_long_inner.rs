//! Matrix products with a long inner dimension on wgpu, where lavapipe silently stopped
//! adding terms: its shaders run at most 65,535 loop iterations per invocation, all loops
//! together, and the tiled kernel's loops took 18 per 16 terms, so `ones(1, k)·ones(k, 1)`
//! was 58,255 for every k above that. Each dispatch now adds at most 16,384 terms
//! (`MAX_K_PER_DISPATCH`), a range continuing from the sums the previous one stored. These
//! pin the boundary exactly in both kernels (one thread per output below 16 rows or
//! columns, tiles from 16 up), the range edges, and the split paths (operands larger than
//! a binding; the word temporaries of u8), with exact integer data; and the order of the
//! additions, to the bit, against the CPU reference.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;

use gpuarrays_core::{Array, Complex32, DType, Element, Result};
use gpuarrays_wgpu::{WgpuBackend, WgpuOptions};

/// Around lavapipe's last exact k (58,255), the ranges of 16,384, and past 2^16.
const KS: [usize; 12] = [
    1, 16_383, 16_384, 16_385, 32_769, 58_254, 58_255, 58_256, 58_257, 65_535, 65_536, 70_001,
];

/// The same for the tiled kernel, whose products of 16 × 16 outputs take longer here.
const TILED_KS: [usize; 4] = [16_385, 58_255, 58_256, 70_001];

fn open(binding_limit: Option<u64>) -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions {
        binding_limit,
        ..WgpuOptions::default()
    })
}

/// The distinct elements of `ones(side, k) · ones(k, side)` on `g` (all equal when right).
fn product_of_ones<T: Element + PartialEq>(
    g: &WgpuBackend,
    side: usize,
    k: usize,
) -> Result<Vec<T>> {
    let a = Array::<T, _>::ones(g, &[side, k])?;
    let b = Array::<T, _>::ones(g, &[k, side])?;
    let mut v = a.matmul(&b)?.to_vec()?;
    v.dedup();
    Ok(v)
}

/// Every k of `ks` for `T` with matrices of `side` rows and columns, with `expect(k)` the
/// exact sum; the mismatches.
fn check<T: Element + PartialEq + std::fmt::Debug>(
    g: &WgpuBackend,
    side: usize,
    ks: &[usize],
    expect: impl Fn(usize) -> T,
) -> Result<Vec<String>> {
    if !g.features().f64 && matches!(T::DTYPE, DType::F64 | DType::C64) {
        return Ok(vec![]);
    }
    let mut bad = Vec::new();
    for &k in ks {
        let got = product_of_ones::<T>(g, side, k)?;
        if got != [expect(k)] {
            bad.push(format!(
                "{}: ones({side}, {k})·ones({k}, {side}) has elements {got:?}, expected {:?}",
                T::DTYPE,
                expect(k)
            ));
        }
    }
    Ok(bad)
}

fn all_types(g: &WgpuBackend, side: usize, ks: &[usize]) -> Result<Vec<String>> {
    let mut bad = check::<f32>(g, side, ks, |k| k as f32)?;
    bad.extend(check::<i32>(g, side, ks, |k| k as i32)?);
    bad.extend(check::<u32>(g, side, ks, |k| k as u32)?);
    bad.extend(check::<u8>(g, side, ks, |k| k as u8)?);
    bad.extend(check::<Complex32>(g, side, ks, |k| {
        Complex32::new(k as f32, 0.0)
    })?);
    bad.extend(check::<f64>(g, side, ks, |k| k as f64)?);
    Ok(bad)
}

#[test]
fn every_term_of_a_long_inner_dimension_is_added() -> Result<()> {
    let Some(g) = open(None) else { return Ok(()) };
    let mut bad = all_types(&g, 1, &KS)?;
    bad.extend(all_types(&g, 16, &TILED_KS)?);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    Ok(())
}

/// The same with bindings of 16 KiB: operands larger than a binding run in blocks of rows
/// and ranges of k (of what fits a binding, and at most 16,384).
#[test]
fn every_term_is_added_when_operands_exceed_a_binding() -> Result<()> {
    let Some(g) = open(Some(16 << 10)) else {
        return Ok(());
    };
    let mut bad = all_types(&g, 1, &KS)?;
    bad.extend(check::<f32>(&g, 16, &[70_001], |k| k as f32)?);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    Ok(())
}

/// Rows, columns and batches over a k split into ranges (of 16,384 terms, and with 16 KiB
/// bindings also of what fits a binding), with f32 values that round, in both kernels: each
/// output adds its products in order of k from zero (`acc = acc + a·b`, one rounding each,
/// computed here on the host), so the results agree to the bit, and a range after the
/// first continues from its own output.
#[test]
fn split_products_add_in_the_reference_order() -> Result<()> {
    let value = |i: usize| ((i * 2_654_435_761) % 20_011) as f32 / 1_000.3 - 10.0;
    // (batch, m, k, n): per-output, then tiled.
    for (batch, m, k, n) in [(2, 3, 40_000, 5), (1, 20, 40_000, 18)] {
        let a: Vec<f32> = (0..batch * m * k).map(value).collect();
        let b: Vec<f32> = (0..k * n).map(|i| value(i + 7)).collect();
        let mut want = vec![0f32; batch * m * n];
        for (o, w) in want.iter_mut().enumerate() {
            let (row, j) = (o / n, o % n);
            let mut acc = 0f32;
            for kk in 0..k {
                acc += a[row * k + kk] * b[kk * n + j];
            }
            *w = acc;
        }
        for limit in [None, Some(16 << 10)] {
            let Some(g) = open(limit) else { return Ok(()) };
            let got = Array::from_slice(&g, &[batch, m, k], &a)?
                .matmul(&Array::from_slice(&g, &[k, n], &b)?)?
                .to_vec()?;
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got),
                bits(&want),
                "({batch}, {m}, {k})·({k}, {n}), binding limit {limit:?}"
            );
        }
    }
    Ok(())
}
