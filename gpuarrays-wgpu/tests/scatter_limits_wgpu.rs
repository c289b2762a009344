//! WGSL scatters at sizes and limits: more than 65,535 workgroups, f64/c64 adds whose
//! lists span several ranges, operands split over small bindings, the WebGPU baseline
//! (i64/u64 stored and added as words without SHADER_INT64), and bool adds refused as on
//! the host.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;
mod indexing_common;

use gpuarrays_core::kernel::{IndexMode, ScatterOp};
use gpuarrays_core::{Backend, DType, ErrorKind, OpKind, Support};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_wgpu::Profile;
use indexing_common::scatter_cases::{Picks, case, check_store, dtypes, open, run_both};
use indexing_common::{Rng, first_difference, first_far, run_scatter};

#[test]
fn counting_into_bins_over_more_than_65535_workgroups() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    // 4,100 · 4,096 points (65,600 workgroups), each adding 1 (broadcast values) at
    // (index[j], k): every element counts the j with index[j] = p.
    let (count, inner, extent) = (4100usize, 4096usize, 100usize);
    let mut rng = Rng(0x5CA7_0005);
    let layout = ([0, 1, 0], [1, 1, 1], [0, 0, 0]);
    let mut k = case(
        &mut rng,
        DType::U32,
        [1, count, inner],
        extent,
        IndexMode::Wrap,
        Picks::Among(extent),
        layout,
        Some(true),
    );
    k.other = [1u32; 3].iter().flat_map(|x| x.to_le_bytes()).collect();
    k.table = vec![0; k.table.len()];
    let got = run_scatter(&g, &k, ScatterOp::Add).expect("scatter");
    let mut bins = vec![0u32; extent];
    for j in 0..count {
        let r = k.index[k.index_place.at(0, j, 0)];
        bins[IndexMode::Wrap.position(r, extent)] += 1;
    }
    for (e, w) in got.chunks(4).enumerate() {
        let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let want = e
            .checked_sub(k.table_place.offset)
            .filter(|&x| x < extent * inner)
            .map_or(0, |x| bins[x / inner]);
        assert_eq!(v, want, "element {e}");
    }
}

#[test]
fn f64_adds_longer_than_one_list_range() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    if !g.features().f64 {
        return eprintln!("skipped: no SHADER_F64");
    }
    let mut rng = Rng(0x5CA7_0006);
    let mut failures = Vec::new();
    // 40,000 updates of 3 elements (lists of about 13,000 in ranges of 16,384 points).
    for d in [DType::F64, DType::C64] {
        for exact in [true, false] {
            let layout = ([1, 1, 1], [1, 1, 1], [1, -1, 1]);
            let k = case(
                &mut rng,
                d,
                [1, 40_000, 1],
                3,
                IndexMode::Clip,
                Picks::Among(3),
                layout,
                Some(exact),
            );
            let what = format!("long {d} exact {exact}");
            match run_both(&g, &k, ScatterOp::Add) {
                Ok((got, want)) if exact => {
                    failures.extend(first_difference(&what, d, &got, &want))
                }
                Ok((got, want)) => failures.extend(first_far(&what, d, &got, &want, 1e-9)),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scatters_split_over_small_bindings() {
    let Some(g) = open(Profile::Adapter, Some(16 << 10)) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0007);
    let mut failures = Vec::new();
    for d in dtypes(&g).into_iter().filter(|&d| d != DType::Bool) {
        // The indexed axis of one point fits (at most 900 elements of 16 bytes, or a range of
        // 400 inner positions); the index,
        // values and target of the whole space do not.
        for (dims, extent, layout, picks) in [
            (
                [40, 300, 2],
                300,
                ([1, 1, 1], [1, 1, 1], [1, 1, 1]),
                Picks::Distinct,
            ),
            (
                [40, 300, 2],
                300,
                ([1, 1, 1], [1, 1, 1], [1, 1, 1]),
                Picks::Among(5),
            ),
            (
                [3000, 3, 1],
                4,
                ([-1, 1, 1], [-1, 1, 1], [1, -1, 1]),
                Picks::Distinct,
            ),
            (
                [3000, 3, 1],
                4,
                ([-1, 1, 1], [-1, 1, 1], [1, -1, 1]),
                Picks::Among(2),
            ),
            (
                [1, 9000, 1],
                900,
                ([1, -1, 1], [1, 1, 1], [1, 1, 0]),
                Picks::Among(900),
            ),
            (
                [1, 9000, 1],
                900,
                ([1, -1, 1], [1, 1, 1], [1, 1, 0]),
                Picks::Among(5),
            ),
            (
                [2, 2, 400],
                2,
                ([1, 1, 1], [1, 1, -1], [1, 1, 1]),
                Picks::Distinct,
            ),
        ] {
            for op in ScatterOp::ALL {
                let add = (op == ScatterOp::Add).then_some(true);
                {
                    let k = case(
                        &mut rng,
                        d,
                        dims,
                        extent,
                        IndexMode::Wrap,
                        picks,
                        layout,
                        add,
                    );
                    let what = format!("small bindings {d} {} dims {dims:?} {picks:?}", op.name());
                    match run_both(&g, &k, op) {
                        Ok((got, want)) if op == ScatterOp::Assign => {
                            failures.extend(check_store(&what, &k, &got, &want))
                        }
                        Ok((got, want)) => failures.extend(first_difference(&what, d, &got, &want)),
                        Err(e) => failures.push(format!("{what}: {e}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn baseline_scatters_move_and_add_64_bit_integers_as_words() {
    let Some(g) = open(Profile::Baseline, None) else {
        return;
    };
    assert_eq!(g.supports(DType::I64, OpKind::Scatter), Support::Yes);
    assert_eq!(g.supports(DType::U64, OpKind::Scatter), Support::Yes);
    let mut rng = Rng(0x5CA7_0008);
    let mut failures = Vec::new();
    for d in [DType::I64, DType::U64] {
        for op in ScatterOp::ALL {
            for picks in [Picks::Distinct, Picks::Among(2)] {
                let layout = ([1, -1, 1], [1, 1, -1], [0, 1, 1]);
                let add = (op == ScatterOp::Add).then_some(false);
                let k = case(
                    &mut rng,
                    d,
                    [3, 9, 2],
                    9,
                    IndexMode::Raise,
                    picks,
                    layout,
                    add,
                );
                let what = format!("baseline {d} {} {picks:?}", op.name());
                match run_both(&g, &k, op) {
                    Ok((got, want)) => failures.extend(first_difference(&what, d, &got, &want)),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn adding_bools_is_refused_as_on_the_host() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0009);
    let layout = ([1, 1, 1], [1, 1, 1], [1, 1, 1]);
    let k = case(
        &mut rng,
        DType::Bool,
        [1, 4, 1],
        4,
        IndexMode::Raise,
        Picks::Distinct,
        layout,
        None,
    );
    let e = run_scatter(&g, &k, ScatterOp::Add).expect_err("bool add");
    let host = run_scatter(&CpuBackend::new(), &k, ScatterOp::Add).expect_err("bool add");
    assert_eq!(e.kind(), ErrorKind::InvalidDType, "{e}");
    assert_eq!(e.kind(), host.kind());
}
