//! `graph/...`: what a captured graph saves. The same small workloads run eagerly (one
//! operation at a time through the user API) and as one launch of a graph captured from
//! that code (`gpuarrays::capture`); `benches/suite_torch.py` runs them eagerly and through
//! `torch.cuda.CUDAGraph` replay.
//!
//! - `chain100`: 100 elementwise operations on 1,024 f32, each one kernel (alternately
//!   `z * 0.999` and `z + 0.001`): launch cost and nothing else.
//! - `mlp_step`: a training-style step, `relu(x · w)` summed over rows, with x 256 × 512
//!   and w 512 × 256 (a BLAS product, an elementwise kernel, a reduction).
//! - `chain100/update` and `chain100/recapture`: a new scalar at every call (the chain's
//!   factor alternates between two values), recorded again and launched, either into the
//!   same graph (`Graph::update`: on HIP the driver's executable graph updated in place) or
//!   as a new graph (`capture`: instantiated, the old one destroyed). Their difference is
//!   what an update saves over a new capture; both include recording the 100 operations.
//!
//! On HIP the replay is one driver graph launch; on the CPU reference and wgpu it is core's
//! graph, which repeats the recorded backend calls without core's side of each operation.

use gpuarrays::{AnyBackend, Array, Graph, Result, capture};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Sizes, Work};

/// Elements of the chain's array, and its operations.
const CHAIN_LEN: usize = 1024;
const CHAIN_OPS: usize = 100;
/// The training step's shapes: x is (ROWS, INNER), w is (INNER, COLS).
const ROWS: usize = 256;
const INNER: usize = 512;
const COLS: usize = 256;

type F = Array<f32, AnyBackend>;

fn chain(x: &F) -> Result<F> {
    let mut z = x.copy()?;
    for i in 0..CHAIN_OPS {
        z = if i % 2 == 0 {
            (z.ex() * 0.999f32).eval()?
        } else {
            (z.ex() + 0.001f32).eval()?
        };
    }
    Ok(z)
}

/// The chain with the factor `k` in place of 0.999.
fn scaled_chain(x: &F, k: f32) -> Result<F> {
    let mut z = x.copy()?;
    for i in 0..CHAIN_OPS {
        z = if i % 2 == 0 {
            (z.ex() * k).eval()?
        } else {
            (z.ex() + 0.001f32).eval()?
        };
    }
    Ok(z)
}

/// The two factors the scalar rows alternate between.
fn factor(call: usize) -> f32 {
    if call % 2 == 0 { 0.999 } else { 0.998 }
}

fn mlp_step(x: &F, w: &F) -> Result<F> {
    let h = x.matmul(w)?;
    let a: F = h.ex().max(0.0f32).eval()?;
    a.sum_axis(1)
}

/// A runner that launches `graph` and keeps the arrays it uses alive.
fn replay<T: 'static>(graph: Graph, keep: T) -> Runner {
    Box::new(move || {
        let _ = &keep;
        graph.launch()
    })
}

pub fn cases(sizes: Sizes) -> Vec<Case> {
    if !sizes.small() {
        return Vec::new();
    }
    let chain_params = |graph: bool| {
        json!({"op": "chain", "dtype": "f32", "dims": [CHAIN_LEN], "ops": CHAIN_OPS,
               "graph": graph})
    };
    let mlp_params = |graph: bool| {
        json!({"op": "mlp_step", "dtype": "f32", "a": [ROWS, INNER], "b": [INNER, COLS],
               "graph": graph})
    };
    let chain_bytes = Work::Bytes((CHAIN_OPS * CHAIN_LEN * 8) as f64);
    let mlp_flops = Work::Flops((2 * ROWS * INNER * COLS) as f64);
    vec![
        Case::new(
            "graph/chain100/eager",
            chain_params(false),
            chain_bytes,
            |b| {
                let x = data::<f32>(b, &[CHAIN_LEN], 61)?;
                Ok(Box::new(move || chain(&x).map(drop)) as Runner)
            },
        ),
        Case::new(
            "graph/chain100/replay",
            chain_params(true),
            chain_bytes,
            |b| {
                let x = data::<f32>(b, &[CHAIN_LEN], 61)?;
                chain(&x)?; // compiles the kernels outside the capture
                let (graph, z) = capture(b, || chain(&x))?;
                Ok(replay(graph, (x, z)))
            },
        ),
        Case::new(
            "graph/chain100/update",
            json!({"op": "chain_update", "dtype": "f32", "dims": [CHAIN_LEN], "ops": CHAIN_OPS}),
            chain_bytes,
            |b| {
                let x = data::<f32>(b, &[CHAIN_LEN], 61)?;
                scaled_chain(&x, factor(0))?;
                // Outputs are dropped at once: their memory is the graph's while it uses it.
                let (graph, _) = capture(b, || scaled_chain(&x, factor(0)))?;
                let mut call = 0;
                Ok(Box::new(move || {
                    call += 1;
                    graph.update(|| scaled_chain(&x, factor(call)))?;
                    graph.launch()
                }) as Runner)
            },
        ),
        Case::new(
            "graph/chain100/recapture",
            json!({"op": "chain_recapture", "dtype": "f32", "dims": [CHAIN_LEN], "ops": CHAIN_OPS}),
            chain_bytes,
            |b| {
                let x = data::<f32>(b, &[CHAIN_LEN], 61)?;
                scaled_chain(&x, factor(0))?;
                let b = b.clone();
                let mut call = 0;
                Ok(Box::new(move || {
                    call += 1;
                    let (graph, _) = capture(&b, || scaled_chain(&x, factor(call)))?;
                    graph.launch()
                }) as Runner)
            },
        ),
        Case::new("graph/mlp_step/eager", mlp_params(false), mlp_flops, |b| {
            let x = data::<f32>(b, &[ROWS, INNER], 62)?;
            let w = data::<f32>(b, &[INNER, COLS], 63)?;
            Ok(Box::new(move || mlp_step(&x, &w).map(drop)) as Runner)
        }),
        Case::new("graph/mlp_step/replay", mlp_params(true), mlp_flops, |b| {
            let x = data::<f32>(b, &[ROWS, INNER], 62)?;
            let w = data::<f32>(b, &[INNER, COLS], 63)?;
            mlp_step(&x, &w)?;
            let (graph, s) = capture(b, || mlp_step(&x, &w))?;
            Ok(replay(graph, (x, w, s)))
        }),
    ]
}
