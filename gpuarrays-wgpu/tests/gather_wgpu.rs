//! WGSL gathers against the CPU reference (core's host gather), byte for byte: every
//! element type the adapter stores, every index mode, reversed and broadcast (zero) strides
//! of the index and the source, indices at the edges of i64, outputs sharing the source's
//! buffer, more than 65,535 workgroups, operands split over small bindings, and the
//! WebGPU baseline profile (no SHADER_INT64: the index and i64 data move as words).
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;
mod indexing_common;

use gpuarrays_core::kernel::IndexMode;
use gpuarrays_core::{Backend, DType, OpKind, Support};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};
use indexing_common::{Case, Rng, bytes, extremes, first_difference, place, run_gather};

fn open(profile: Profile, binding_limit: Option<u64>) -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions {
        profile,
        binding_limit,
        ..WgpuOptions::default()
    })
}

/// The element types `g` gathers (asserting the answers agree with the adapter).
fn dtypes(g: &WgpuBackend) -> Vec<DType> {
    DType::ALL
        .into_iter()
        .filter(|&d| {
            let yes = g.supports(d, OpKind::Gather) == Support::Yes;
            let f64 = matches!(d, DType::F64 | DType::C64);
            assert_eq!(yes, !f64 || g.features().f64, "supports({d}, gather)");
            yes
        })
        .collect()
}

/// Index values for `n` positions: in range (either sign) under `Raise`, anything under
/// the other modes, with some extremes mixed in.
fn index_values(rng: &mut Rng, len: usize, n: usize, mode: IndexMode) -> Vec<i64> {
    let ext = extremes(n as i64);
    (0..len)
        .map(|_| match (rng.below(8), mode) {
            (0, _) => ext[rng.below(ext.len() as u64) as usize],
            (_, IndexMode::Raise) => rng.below(2 * n as u64) as i64 - n as i64,
            _ => rng.below(6 * n as u64) as i64 - 3 * n as i64,
        })
        .collect()
}

/// A gather case: `idx`, `src` are stride factors (see `place`).
#[allow(clippy::too_many_arguments)]
fn case(
    rng: &mut Rng,
    d: DType,
    dims: [usize; 3],
    extent: usize,
    mode: IndexMode,
    idx: [isize; 3],
    src: [isize; 3],
    shared: bool,
) -> Case {
    let index_place = place(dims, idx, 1);
    let table_place = place([dims[0], extent, dims[2]], src, 2);
    let pad = 3;
    let other_place = place(dims, [1, 1, 1], pad);
    Case {
        dtype: d,
        dims,
        extent,
        mode,
        index: index_values(rng, index_place.len, extent, mode),
        index_place,
        table: bytes(rng, d, table_place.len),
        table_place,
        other: bytes(rng, d, other_place.len),
        other_place,
        shared,
    }
}

fn compare(g: &WgpuBackend, c: &CpuBackend, case: &Case, what: &str, failures: &mut Vec<String>) {
    let got = match run_gather(g, case) {
        Ok(v) => v,
        Err(e) => return failures.push(format!("{what}: {e}")),
    };
    let want = run_gather(c, case).expect("CPU reference gather");
    failures.extend(first_difference(what, case.dtype, &got, &want));
}

#[test]
fn gathers_match_the_cpu_reference_for_every_type_mode_and_layout() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let c = CpuBackend::new();
    let mut rng = Rng(0x6A7E_0001);
    let shapes: [([usize; 3], usize); 5] = [
        ([3, 5, 4], 6),
        ([1, 37, 1], 11),
        ([2, 1, 9], 1),
        ([4, 7, 3], 5),
        ([1, 300, 2], 700),
    ];
    let layouts: [([isize; 3], [isize; 3], bool); 6] = [
        ([1, 1, 1], [1, 1, 1], false),
        ([-1, 1, -1], [-1, -1, 1], false),
        ([0, 1, 0], [1, 1, -2], false),
        ([1, -2, 0], [0, 1, 0], false),
        ([0, 0, 0], [1, 2, 1], false),
        ([1, 1, 1], [1, -1, -1], true),
    ];
    let mut failures = Vec::new();
    let mut n = 0;
    for d in dtypes(&g) {
        for mode in IndexMode::ALL {
            for (dims, extent) in shapes {
                for (idx, src, shared) in layouts {
                    let k = case(&mut rng, d, dims, extent, mode, idx, src, shared);
                    let what = format!(
                        "gather {d} {} dims {dims:?} extent {extent} index {idx:?} source {src:?} shared {shared}",
                        mode.name()
                    );
                    compare(&g, &c, &k, &what, &mut failures);
                    n += 1;
                }
            }
        }
    }
    assert!(n >= 7 * 3 * 5 * 6, "{n} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gathers_read_the_right_element_for_indices_at_the_edges_of_i64() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let c = CpuBackend::new();
    let mut rng = Rng(0x6A7E_0002);
    let mut failures = Vec::new();
    for extent in [1usize, 2, 3, 7, 1000] {
        let ext = extremes(extent as i64);
        for mode in IndexMode::ALL {
            for d in [DType::U8, DType::I32, DType::C32] {
                let dims = [1, ext.len(), 1];
                let mut k = case(&mut rng, d, dims, extent, mode, [1, 1, 1], [1, 1, 1], false);
                for (j, &r) in ext.iter().enumerate() {
                    let at = k.index_place.at(0, j, 0);
                    k.index[at] = r;
                }
                // Every index here must land where the host says, not just anywhere valid.
                let what = format!("edges {d} {} extent {extent}", mode.name());
                compare(&g, &c, &k, &what, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gathers_of_more_than_65535_workgroups() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let c = CpuBackend::new();
    let mut rng = Rng(0x6A7E_0003);
    // 4,100 · 4,096 points: 65,600 workgroups of 256 for i32 (u8: a thread per output word,
    // 16,400 workgroups).
    let dims = [1, 4100, 4096];
    for d in [DType::I32, DType::U8] {
        let k = case(
            &mut rng,
            d,
            dims,
            97,
            IndexMode::Wrap,
            [0, 1, 0],
            [0, 1, 1],
            false,
        );
        let mut failures = Vec::new();
        compare(&g, &c, &k, &format!("large gather {d}"), &mut failures);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

#[test]
fn gathers_split_over_small_bindings() {
    let Some(g) = open(Profile::Adapter, Some(16 << 10)) else {
        return;
    };
    let c = CpuBackend::new();
    let mut rng = Rng(0x6A7E_0004);
    let mut failures = Vec::new();
    for d in [DType::U8, DType::F32, DType::I64, DType::C32] {
        for mode in IndexMode::ALL {
            for (dims, extent, idx, src) in [
                ([40, 300, 2], 50, [1, 1, 1], [1, 1, 1]),
                ([5000, 3, 1], 4, [-1, 1, 1], [-1, 1, 1]),
                ([1, 20_000, 1], 30, [1, -1, 1], [1, 1, 1]),
                ([3, 7, 900], 2, [1, 1, 1], [1, 1, -1]),
            ] {
                let k = case(&mut rng, d, dims, extent, mode, idx, src, false);
                let what = format!("small bindings {d} {} dims {dims:?}", mode.name());
                compare(&g, &c, &k, &what, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gathers_on_the_webgpu_baseline_read_the_index_as_words() {
    let Some(g) = open(Profile::Baseline, None) else {
        return;
    };
    let c = CpuBackend::new();
    assert_eq!(g.supports(DType::I64, OpKind::Gather), Support::Yes);
    assert_eq!(g.supports(DType::U64, OpKind::Gather), Support::Yes);
    assert!(g.supports(DType::F64, OpKind::Gather) != Support::Yes);
    let mut rng = Rng(0x6A7E_0005);
    let mut failures = Vec::new();
    for d in [DType::I64, DType::U64, DType::I32, DType::Bool] {
        for mode in IndexMode::ALL {
            let k = case(
                &mut rng,
                d,
                [3, 40, 2],
                9,
                mode,
                [1, -1, 1],
                [1, 1, -1],
                false,
            );
            compare(
                &g,
                &c,
                &k,
                &format!("baseline {d} {}", mode.name()),
                &mut failures,
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
