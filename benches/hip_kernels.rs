//! HIP kernel throughput on 1 GiB f32 arrays, side by side with PyTorch, plus host-side costs
//! (the host enqueue of a tiny op directly and through `AnyBackend`, a pooled stream take).
//!
//! Run on the GPU machine (see docs/results/2026-11-29-hip-kernels.md):
//!
//! ```text
//! python3 benches/torch_hip_kernels.py > $OUT/torch.json
//! TORCH_RESULTS=$OUT/torch.json .gpu/bin/bench-hip_kernels
//! ```
//!
//! Every figure is the median over repetitions of (wall time of `k` back-to-back launches,
//! bracketed by stream synchronisations) / `k`, the method the PyTorch script uses too.
//! Bandwidth counts the bytes each operation must move once (inputs read, outputs written),
//! in GB/s of 10⁹ bytes.

#[path = "common/host_enqueue.rs"]
mod host_enqueue;

use std::time::Instant;

use gpuarrays_core::kernel::ReduceOp;
use gpuarrays_core::{Array, Backend};
use gpuarrays_hip::HipBackend;

const N: usize = 1 << 28; // 1 GiB of f32
const SIDE: usize = 1 << 14; // 16384 × 16384 f32 = 1 GiB
const GIB: f64 = (1u64 << 30) as f64;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median seconds per call of `f` (k calls between synchronisations, `reps` repetitions,
/// after `warm` calls).
fn time(hip: &HipBackend, warm: usize, reps: usize, k: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..warm {
        f();
    }
    hip.synchronize().expect("sync");
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        for _ in 0..k {
            f();
        }
        hip.synchronize().expect("sync");
        t.push(t0.elapsed().as_secs_f64() / k as f64);
    }
    median(t)
}

struct Row {
    name: &'static str,
    bytes: f64,
    secs: f64,
}

fn torch_results() -> Vec<(String, f64)> {
    let Ok(path) = std::env::var("TORCH_RESULTS") else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("could not read TORCH_RESULTS={path}");
        return Vec::new();
    };
    // One `{"name": "...", "gbps": X, ...}` object per line (no JSON dependency needed).
    text.lines()
        .filter_map(|l| {
            let name = l
                .split("\"name\": \"")
                .nth(1)?
                .split('"')
                .next()?
                .to_string();
            let gbps: f64 = l
                .split("\"gbps\": ")
                .nth(1)?
                .split([',', '}'])
                .next()?
                .trim()
                .parse()
                .ok()?;
            Some((name, gbps))
        })
        .collect()
}

fn main() {
    let hip = match HipBackend::new(0) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("hip_kernels: no HIP device ({e}); nothing to measure");
            return;
        }
    };
    println!("device: {}", hip.device());
    let x = Array::<f32, _>::random_uniform(&hip, &[N], 1).expect("x");
    let y = Array::<f32, _>::random_uniform(&hip, &[N], 2).expect("y");
    let mut z = Array::<f32, _>::zeros(&hip, &[N]).expect("z");
    let m = Array::<f32, _>::random_uniform(&hip, &[SIDE, SIDE], 3).expect("m");
    let mut rows = Vec::new();
    // HIP_BENCH_ONLY=cumsum,sum runs only those rows (and skips the host-side figures).
    let only = std::env::var("HIP_BENCH_ONLY").ok();
    let wanted = |n: &str| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == n));
    if let Ok(mode) = std::env::var("GPUARRAYS_SCAN") {
        println!("GPUARRAYS_SCAN={mode}");
    }

    if wanted("axpy") {
        let t = time(&hip, 3, 7, 10, || {
            (&x * 1.5f32 + &y).eval_into(&mut z).expect("axpy");
        });
        rows.push(Row {
            name: "axpy",
            bytes: 3.0 * GIB,
            secs: t,
        });
    }
    if wanted("copy") {
        let t = time(&hip, 3, 7, 10, || {
            let _ = x.copy().expect("copy");
        });
        rows.push(Row {
            name: "copy",
            bytes: 2.0 * GIB,
            secs: t,
        });
    }
    if wanted("sum") {
        let t = time(&hip, 3, 7, 10, || {
            let _ = x.raw().reduce(ReduceOp::Sum, None).expect("sum");
        });
        rows.push(Row {
            name: "sum",
            bytes: GIB,
            secs: t,
        });
    }
    if wanted("sum_dim0") {
        let t = time(&hip, 3, 7, 10, || {
            let _ = m.sum_axis(0).expect("sum0");
        });
        rows.push(Row {
            name: "sum_dim0",
            bytes: GIB,
            secs: t,
        });
    }
    if wanted("sum_dim1") {
        let t = time(&hip, 3, 7, 10, || {
            let _ = m.sum_axis(1).expect("sum1");
        });
        rows.push(Row {
            name: "sum_dim1",
            bytes: GIB,
            secs: t,
        });
    }
    if wanted("cumsum") {
        let t = time(&hip, 2, 5, 5, || {
            let _ = x.cumsum(0).expect("cumsum");
        });
        rows.push(Row {
            name: "cumsum",
            bytes: 2.0 * GIB,
            secs: t,
        });
    }

    let torch = torch_results();
    println!("\n| op (1 GiB f32) | gpuarrays-hip ms | GB/s | PyTorch GB/s | ratio |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        let gbps = r.bytes / r.secs / 1e9;
        let theirs = torch.iter().find(|(n, _)| n == r.name).map(|(_, g)| *g);
        let (tg, ratio) = match theirs {
            Some(g) => (format!("{g:.0}"), format!("{:.3}", gbps / g)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {:.3} | {gbps:.0} | {tg} | {ratio} |",
            r.name,
            r.secs * 1e3
        );
    }

    if only.is_some() {
        return;
    }

    // Host enqueue of a tiny fused op: per-call host time, not device time, directly on the
    // HIP backend and through the runtime-chosen AnyBackend wrapping it (the method is in
    // benches/common/host_enqueue.rs).
    println!();
    let any = gpuarrays::AnyBackend::from(hip.clone());
    host_enqueue::print(&host_enqueue::tiny_axpy(&hip, &any));

    // Taking a pooled stream is measured by `benches/hip_stream_take.rs` (a finished
    // thread's ready stream, taken by a new thread): the pool's take/release are internal
    // since issue 7 (no caller may hand one stream to two live threads).
    let s = hip.kernels().cache_stats();
    println!(
        "kernels: compiled {}, from disk {}, loaded {}",
        s.compiled, s.disk_hits, s.loaded
    );
}
