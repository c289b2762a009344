//! Operands larger than one storage binding, for every kind of kernel, against the CPU
//! reference. The binding limit is lowered to 16 KiB (`WgpuOptions::binding_limit`), so
//! arrays of tens of thousands of elements take the paths that arrays larger than 128 MiB
//! (lavapipe) or 2 GiB (wgpu on the H200) take: windows, group ranges, k ranges, slabs, far
//! pairs. The sizes also exceed lavapipe's 65,535 loop iterations wherever a single thread
//! could be tempted to walk a whole axis.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;

use gpuarrays_core::{Array, Backend, Element, Result};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

fn open() -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions {
        adapter: None,
        profile: Profile::Adapter,
        binding_limit: Some(16 << 10),
        ..WgpuOptions::default()
    })
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| ((self.next() >> 40) as f32 / (1u64 << 24) as f32) * 200.0 - 100.0)
            .collect()
    }
    fn i32s(&mut self, n: usize) -> Vec<i32> {
        (0..n).map(|_| self.next() as i32).collect()
    }
}

/// Both backends' arrays of the same host data.
fn pair<T: Element>(
    g: &WgpuBackend,
    c: &CpuBackend,
    dims: &[usize],
    data: &[T],
) -> Result<(Array<T, WgpuBackend>, Array<T, CpuBackend>)> {
    Ok((
        Array::from_slice(g, dims, data)?,
        Array::from_slice(c, dims, data)?,
    ))
}

/// Floats agree within `rel` of the magnitude `scale` (one per element, or the first for all).
fn close(what: &str, got: &[f32], want: &[f32], scale: &[f32], rel: f32) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!(
            "{what}: {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let s = scale
            .get(i)
            .or(scale.first())
            .copied()
            .unwrap_or(1.0)
            .max(1.0);
        if (g - w).abs() > rel * s || g.is_nan() != w.is_nan() {
            return Some(format!("{what}: element {i}: got {g}, expected {w}"));
        }
    }
    None
}

fn exact<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!(
            "{what}: {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    got.iter().zip(want).position(|(g, w)| g != w).map(|i| {
        format!(
            "{what}: element {i}: got {:?}, expected {:?}",
            got[i], want[i]
        )
    })
}

fn checks(g: &WgpuBackend) -> Result<Vec<String>> {
    let c = CpuBackend::new();
    let mut rng = Rng(0x1A26_E0FF);
    let mut failures = Vec::new();

    // Reductions: one long row (the vec4 row kernel in many windows and levels), argmax,
    // a column reduction with an axis in k ranges.
    let n = 300_000;
    let x = rng.f32s(n);
    let (xg, xc) = pair(g, &c, &[n], &x)?;
    let sum_abs: f32 = x.iter().map(|v| v.abs()).sum();
    failures.extend(close("sum", &[xg.sum()?], &[xc.sum()?], &[sum_abs], 1e-5));
    failures.extend(exact("max", &[xg.max()?], &[xc.max()?]));
    failures.extend(exact("argmax", &[xg.argmax()?], &[xc.argmax()?]));
    let (mg, mc) = pair(g, &c, &[600, 500], &x[..300_000])?;
    let col_abs = vec![60000.0f32];
    failures.extend(close(
        "sum_axis(0)",
        &mg.sum_axis(0)?.to_vec()?,
        &mc.sum_axis(0)?.to_vec()?,
        &col_abs,
        1e-5,
    ));
    failures.extend(exact(
        "argmin_axis(1)",
        &mg.argmin_axis(1)?.to_vec()?,
        &mc.argmin_axis(1)?.to_vec()?,
    ));

    // Scans: a long row (blocked, nested levels), columns longer than 32 Ki (k ranges).
    let ints = rng.i32s(n);
    let (ig, ic) = pair(g, &c, &[n], &ints)?;
    failures.extend(exact(
        "cumsum i32 row",
        &ig.cumsum(0)?.to_vec()?,
        &ic.cumsum(0)?.to_vec()?,
    ));
    let (cg, cc) = pair(g, &c, &[75_000, 4], &ints[..300_000])?;
    failures.extend(exact(
        "cumsum i32 axis 0",
        &cg.cumsum(0)?.to_vec()?,
        &cc.cumsum(0)?.to_vec()?,
    ));
    let prefix: Vec<f32> = x
        .iter()
        .scan(0.0f32, |s, v| {
            *s += v.abs();
            Some(*s)
        })
        .collect();
    failures.extend(close(
        "cumsum f32 row",
        &xg.cumsum(0)?.to_vec()?,
        &xc.cumsum(0)?.to_vec()?,
        &prefix,
        1e-5,
    ));

    // Sort: key arrays of many windows (global steps with far pairs), rows.
    let mut s = rng.f32s(40_000);
    s[17] = f32::NAN;
    s[3000] = f32::INFINITY;
    let (sg, sc) = pair(g, &c, &[40_000], &s)?;
    // Bits, with every NaN as one (which NaN a sort keeps is unspecified).
    let bits = |v: &f32| if v.is_nan() { u32::MAX } else { v.to_bits() };
    let got: Vec<u32> = sg.sort()?.to_vec()?.iter().map(bits).collect();
    let want: Vec<u32> = sc.sort()?.to_vec()?.iter().map(bits).collect();
    failures.extend(exact("sort f32", &got, &want));
    let (rg, rc) = pair(g, &c, &[7, 5000], &ints[..35_000])?;
    failures.extend(exact(
        "sort i32 rows",
        &rg.sort()?.to_vec()?,
        &rc.sort()?.to_vec()?,
    ));

    // Find: positions of many windows.
    let flags: Vec<bool> = (0..200_000).map(|i| ints[i] % 3 == 0).collect();
    let (fg, fc) = pair(g, &c, &[200_000], &flags)?;
    failures.extend(exact("find", &fg.find()?.to_vec()?, &fc.find()?.to_vec()?));

    // Matmul: operands of many windows (row blocks, k ranges accumulated in order).
    let (m, k, nn) = (150, 300, 70);
    let a: Vec<i32> = ints[..m * k].iter().map(|v| v % 1000).collect();
    let b: Vec<i32> = ints[m * k..m * k + k * nn]
        .iter()
        .map(|v| v % 1000)
        .collect();
    let (ag, ac) = pair(g, &c, &[m, k], &a)?;
    let (bg, bc) = pair(g, &c, &[k, nn], &b)?;
    failures.extend(exact(
        "matmul i32",
        &ag.matmul(&bg)?.to_vec()?,
        &ac.matmul(&bc)?.to_vec()?,
    ));
    let af: Vec<f32> = x[..m * k].to_vec();
    let bf: Vec<f32> = x[m * k..m * k + k * nn].to_vec();
    let (ag, ac) = pair(g, &c, &[m, k], &af)?;
    let (bg, bc) = pair(g, &c, &[k, nn], &bf)?;
    failures.extend(close(
        "matmul f32",
        &ag.matmul(&bg)?.to_vec()?,
        &ac.matmul(&bc)?.to_vec()?,
        &[k as f32 * 1e4],
        1e-5,
    ));

    // Elementwise: a transposed (strided) operand larger than a binding (slabs).
    let (tg, tc) = pair(g, &c, &[300, 200], &ints[..60_000])?;
    failures.extend(exact(
        "transpose copy",
        &tg.transpose()?.copy()?.to_vec()?,
        &tc.transpose()?.copy()?.to_vec()?,
    ));
    let e = (xg.ex() * 2.0f32 + xg.ex()).eval::<f32>()?.to_vec()?;
    let ec = (xc.ex() * 2.0f32 + xc.ex()).eval::<f32>()?.to_vec()?;
    failures.extend(exact("fused", &e, &ec));
    g.synchronize()?;
    Ok(failures)
}

#[test]
fn operands_larger_than_one_binding_agree_with_the_cpu() {
    let Some(g) = open() else {
        return;
    };
    println!("{}", g.adapter());
    let failures = checks(&g).unwrap_or_else(|e| vec![format!("error: {e}")]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
