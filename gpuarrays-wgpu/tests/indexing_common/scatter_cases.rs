//! Scatter cases: index arrays that reach distinct or repeated target elements (each
//! position written as some index of it under the mode), and the check of stores where
//! repeats allow more than one result.

use gpuarrays_core::kernel::{IndexMode, ScatterOp};
use gpuarrays_core::{Backend, DType, OpKind, Support};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

use super::{Case, Rng, addends, bytes, place, run_scatter};

pub fn open(profile: Profile, binding_limit: Option<u64>) -> Option<WgpuBackend> {
    crate::common::open_or_skip(&WgpuOptions {
        profile,
        binding_limit,
        ..WgpuOptions::default()
    })
}

pub fn dtypes(g: &WgpuBackend) -> Vec<DType> {
    DType::ALL
        .into_iter()
        .filter(|&d| g.supports(d, OpKind::Scatter) == Support::Yes)
        .collect()
}

/// How the index picks positions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Picks {
    /// A permutation along `count` (count ≤ extent), each written as some index of that
    /// position under the mode: no target element is reached twice.
    Distinct,
    /// Random positions among the first `n` (repeats).
    Among(usize),
}

/// An index value whose position under `mode` is `p` (some, at random).
pub fn encode(rng: &mut Rng, p: usize, n: usize, mode: IndexMode) -> i64 {
    let (p, n) = (p as i64, n as i64);
    match (mode, rng.below(3)) {
        (IndexMode::Raise, 0) => p - n,
        (IndexMode::Wrap, 0) => p - n * (1 + rng.below(1000) as i64),
        (IndexMode::Wrap, 1) => p + n * (rng.below(1 << 40) as i64),
        (IndexMode::Clip, 0) if p == 0 => -(rng.below(1 << 50) as i64) - 1,
        (IndexMode::Clip, 0) if p == n - 1 => i64::MAX - rng.below(1000) as i64,
        _ => p,
    }
}

/// A scatter case; `idx`, `tgt`, `val` are stride factors (see `place`).
#[allow(clippy::too_many_arguments)]
pub fn case(
    rng: &mut Rng,
    d: DType,
    dims: [usize; 3],
    extent: usize,
    mode: IndexMode,
    picks: Picks,
    (idx, tgt, val): ([isize; 3], [isize; 3], [isize; 3]),
    add: Option<bool>,
) -> Case {
    let index_place = place(dims, idx, 1);
    let table_place = place([dims[0], extent, dims[2]], tgt, 2);
    let other_place = place(dims, val, 1);
    let perm: Vec<usize> = {
        let mut p: Vec<usize> = (0..extent).collect();
        for i in (1..extent).rev() {
            p.swap(i, rng.below(i as u64 + 1) as usize);
        }
        p
    };
    let mut index = vec![0i64; index_place.len];
    for o in 0..dims[0] {
        for j in 0..dims[1] {
            for k in 0..dims[2] {
                let p = match picks {
                    Picks::Distinct => perm[j],
                    Picks::Among(m) => rng.below(m.min(extent) as u64) as usize,
                };
                index[index_place.at(o, j, k)] = encode(rng, p, extent, mode);
            }
        }
    }
    let other = match add {
        Some(exact) => addends(rng, d, other_place.len, exact),
        None => bytes(rng, d, other_place.len),
    };
    let table = match add {
        Some(exact) => addends(rng, d, table_place.len, exact),
        None => bytes(rng, d, table_place.len),
    };
    Case {
        dtype: d,
        dims,
        extent,
        mode,
        index,
        index_place,
        table,
        table_place,
        other,
        other_place,
        shared: false,
    }
}

/// Stores: the reference exactly where no element is reached twice; where one is, the
/// last update (2- and 4-word elements) or any of the updates; elsewhere the old bytes.
pub fn check_store(what: &str, k: &Case, got: &[u8], want: &[u8]) -> Option<String> {
    let size = k.dtype.size();
    let mut hits: Vec<Vec<usize>> = vec![Vec::new(); k.table_place.len];
    for (t, v) in k.updates() {
        hits[t].push(v);
    }
    let whole = size >= 8;
    for (e, vs) in hits.iter().enumerate() {
        let g = &got[e * size..(e + 1) * size];
        let ok = if vs.len() <= 1 || whole {
            g == &want[e * size..(e + 1) * size]
        } else {
            vs.iter().any(|&v| g == &k.other[v * size..(v + 1) * size])
        };
        if !ok {
            return Some(format!(
                "{what}: element {e} ({} updates): got {g:?}, reference {:?}",
                vs.len(),
                &want[e * size..(e + 1) * size]
            ));
        }
    }
    None
}

pub const LAYOUTS: [([isize; 3], [isize; 3], [isize; 3]); 5] = [
    ([1, 1, 1], [1, 1, 1], [1, 1, 1]),
    ([-1, 1, -1], [-1, -1, 1], [1, -1, 1]),
    ([0, 1, 0], [1, 2, -1], [0, 0, 0]),
    ([1, -1, 2], [1, 1, -2], [-1, 2, 0]),
    ([1, 1, 0], [2, -1, 1], [0, 1, 1]),
];

pub const SHAPES: [([usize; 3], usize); 4] = [
    ([3, 5, 4], 6),
    ([1, 37, 1], 40),
    ([2, 1, 9], 1),
    ([4, 7, 3], 7),
];

pub fn run_both(g: &WgpuBackend, k: &Case, op: ScatterOp) -> Result<(Vec<u8>, Vec<u8>), String> {
    let got = run_scatter(g, k, op).map_err(|e| e.to_string())?;
    let want = run_scatter(&CpuBackend::new(), k, op).expect("CPU reference scatter");
    Ok((got, want))
}
