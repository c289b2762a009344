//! WGSL scatters against the CPU reference (core's host scatter) and the host model of
//! where updates land: stores and adds of every element type the adapter stores, every
//! index mode, reversed, gapped and broadcast (zero) strides of the index and the values,
//! targets sharing the values' buffer.
//!
//! - Without repeated target elements, every store and add equals the reference exactly.
//! - With repeats, stores of 2- and 4-word elements keep the last update whole (the claim
//!   scheme), other stores one of the updates; integer adds are exact; float adds of
//!   multiples of 1/16 (exact in any order) are exact, and of arbitrary values within a
//!   tolerance.
//! - Lanes next to the updated packed elements (bool, u8, i8: bytes; i16, u16, f16, bf16:
//!   half-words) keep their values, also when invocations update every lane of one word
//!   at once.
//! - Halves added in different orders differ by at most the rounding of each addition.
//! - Indices at the edges of i64 reach the elements the host computes.
//!
//! Sizes and limits: `scatter_limits_wgpu.rs`. Skips without an adapter unless
//! `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;
mod indexing_common;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{IndexMode, ScatterOp};
use gpuarrays_wgpu::Profile;
use indexing_common::scatter_cases::{
    LAYOUTS, Picks, SHAPES, case, check_store, dtypes, open, run_both,
};
use indexing_common::{Case, Rng, extremes, first_difference, first_far, floats};

#[test]
fn stores_match_the_reference_for_every_type_mode_and_layout() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0001);
    let mut failures = Vec::new();
    for d in dtypes(&g) {
        for mode in IndexMode::ALL {
            for (dims, extent) in SHAPES {
                for (li, layout) in LAYOUTS.into_iter().enumerate() {
                    for picks in [Picks::Distinct, Picks::Among(3)] {
                        let mut k = case(&mut rng, d, dims, extent, mode, picks, layout, None);
                        // Odd layouts: the values in the target's buffer, after it.
                        k.shared = li % 2 == 1;
                        let what = format!(
                            "store {d} {} dims {dims:?} extent {extent} {layout:?} {picks:?} shared {}",
                            mode.name(),
                            k.shared
                        );
                        match run_both(&g, &k, ScatterOp::Assign) {
                            Ok((got, want)) => failures.extend(check_store(&what, &k, &got, &want)),
                            Err(e) => failures.push(format!("{what}: {e}")),
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn adds_match_the_reference_for_every_type_mode_and_layout() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0002);
    let mut failures = Vec::new();
    for d in dtypes(&g).into_iter().filter(|&d| d != DType::Bool) {
        let float = d.is_float() || d.is_complex();
        for mode in IndexMode::ALL {
            for (dims, extent) in SHAPES {
                for (li, layout) in LAYOUTS.into_iter().enumerate() {
                    for (picks, exact) in [
                        (Picks::Distinct, false),
                        (Picks::Among(3), true),
                        (Picks::Among(2), false),
                    ] {
                        let mut k =
                            case(&mut rng, d, dims, extent, mode, picks, layout, Some(exact));
                        k.shared = li % 2 == 1;
                        let what = format!(
                            "add {d} {} dims {dims:?} extent {extent} {layout:?} {picks:?} shared {}",
                            mode.name(),
                            k.shared
                        );
                        let (got, want) = match run_both(&g, &k, ScatterOp::Add) {
                            Ok(x) => x,
                            Err(e) => {
                                failures.push(format!("{what}: {e}"));
                                continue;
                            }
                        };
                        let repeats = picks != Picks::Distinct;
                        if float && repeats && !exact && d.size() == 2 {
                            failures.extend(first_far_halves(&what, &k, &got, &want));
                        } else if float && repeats && !exact {
                            let tol = if d.size() == 4 || d == DType::C32 {
                                1e-5
                            } else {
                                1e-12
                            };
                            failures.extend(first_far(&what, d, &got, &want, tol));
                        } else {
                            failures.extend(first_difference(&what, d, &got, &want));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Halves added in another order than the reference's: each of an element's `n` additions
/// rounds its partial sum (at most `n + 1` in magnitude: the old value and the addends lie
/// in −1..1) by at most half an ulp, so two orders differ by at most `n` ulps of `n + 1`;
/// an element updated once must equal the reference.
fn first_far_halves(what: &str, k: &Case, got: &[u8], want: &[u8]) -> Option<String> {
    let d = k.dtype;
    let mut n = vec![0usize; k.table_place.len];
    for (t, _) in k.updates() {
        n[t] += 1;
    }
    let fraction_bits = if d == DType::F16 { 10 } else { 7 };
    let (g, w) = (floats(d, got), floats(d, want));
    (0..g.len())
        .find(|&e| {
            let tol = match n[e] {
                0 | 1 => 0.0,
                m => m as f64 * 2f64.powi(((m + 1) as f64).log2().floor() as i32 - fraction_bits),
            };
            (g[e] - w[e]).abs() > tol || g[e].is_nan() != w[e].is_nan()
        })
        .map(|e| {
            format!(
                "{what}: element {e} ({} updates): got {}, expected {}",
                n[e], g[e], w[e]
            )
        })
}

#[test]
fn packed_bytes_keep_their_neighbours() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0003);
    let mut failures = Vec::new();
    for d in [
        DType::U8,
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::F16,
        DType::BF16,
    ] {
        for op in [ScatterOp::Assign, ScatterOp::Add] {
            if d == DType::Bool && op == ScatterOp::Add {
                continue;
            }
            // Dense: every byte of every word updated, by different invocations at once;
            // gapped (stride 2 or 3): the bytes between must keep their values.
            for (tgt, extent) in [([1, 1, 1], 4096), ([1, 2, 1], 1000), ([1, -3, 1], 999)] {
                let dims = [2, extent, 3];
                let layout = ([1, 1, 1], tgt, [1, 1, 1]);
                let add = (op == ScatterOp::Add).then_some(false);
                let k = case(
                    &mut rng,
                    d,
                    dims,
                    extent,
                    IndexMode::Raise,
                    Picks::Distinct,
                    layout,
                    add,
                );
                let what = format!("{d} {} target {tgt:?}", op.name());
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
fn indices_at_the_edges_of_i64_reach_the_right_elements() {
    let Some(g) = open(Profile::Adapter, None) else {
        return;
    };
    let mut rng = Rng(0x5CA7_0004);
    let mut failures = Vec::new();
    for extent in [1usize, 3, 7, 1000] {
        let ext = extremes(extent as i64);
        for mode in IndexMode::ALL {
            for d in [DType::U8, DType::I32, DType::I64] {
                let dims = [1, ext.len(), 1];
                let layout = ([1, 1, 1], [1, 1, 1], [1, 1, 1]);
                let mut k = case(
                    &mut rng,
                    d,
                    dims,
                    extent,
                    mode,
                    Picks::Among(1),
                    layout,
                    Some(true),
                );
                for (j, &r) in ext.iter().enumerate() {
                    let at = k.index_place.at(0, j, 0);
                    k.index[at] = r;
                }
                let what = format!("edges {d} {} extent {extent}", mode.name());
                match run_both(&g, &k, ScatterOp::Add) {
                    Ok((got, want)) => failures.extend(first_difference(&what, d, &got, &want)),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
