//! wgpu kernel throughput on 1 GiB f32 arrays with device-side timestamps, side by side
//! with PyTorch, plus the host cost of one small operation.
//!
//! Run on the GPU machine, through Vulkan, next to the HIP backend and PyTorch (see
//! `gpuarrays-wgpu/README.md`, "Timings on the H200", for the packing command):
//!
//! ```text
//! python3 benches/torch_hip_kernels.py > $OUT/torch.json
//! TORCH_RESULTS=$OUT/torch.json .gpu/bin/bench-hip_kernels
//! TORCH_RESULTS=$OUT/torch.json .gpu/bin/bench-wgpu_timings
//! ```
//!
//! Every figure is the median over 7 repetitions of (the device time of `k` back-to-back
//! operations) / `k`. Device time comes from timestamp queries written at the beginning and
//! end of every compute pass (`WgpuBackend::device_time`: first beginning to last end, so
//! the gaps between the passes of one operation count); an adapter without TIMESTAMP_QUERY
//! falls back to wall time of the `k` operations followed by a wait, and the table says so
//! ("wall"). Bandwidth counts the bytes each operation must move once, in GB/s of 10⁹
//! bytes. `WGPU_BENCH_MIB=64` runs smaller arrays (e.g. on lavapipe).

use gpuarrays_core::bench_stats::{Rounds, interleaved, median};
use std::time::Instant;

#[path = "common/axpy_program.rs"]
mod axpy_program;
use axpy_program::{axpy_args, axpy_program, f32_operand};

use gpuarrays_core::kernel::{
    ElementwiseArgs, Instr, Node, Program, ReduceArgs, ReduceOp, ScanArgs, ScanOp,
};
use gpuarrays_core::{Array, Backend, DType};
use gpuarrays_wgpu::{WgpuBackend, WgpuBuffer};

/// Median seconds per operation: device time of `k` operations per repetition, or wall
/// time with a wait when the adapter has no timestamps. Returns (seconds, "device"/"wall").
fn time(b: &WgpuBackend, k: usize, mut f: impl FnMut()) -> (f64, &'static str) {
    for _ in 0..2 {
        f();
    }
    b.synchronize().expect("synchronize");
    let mut device = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        let ((), dt) = b
            .device_time(|| {
                for _ in 0..k {
                    f();
                }
            })
            .expect("device time");
        wall.push(t0.elapsed().as_secs_f64() / k as f64);
        if let Some(dt) = dt {
            device.push(dt.as_secs_f64() / k as f64);
        }
    }
    if device.len() == 7 {
        (median(device), "device")
    } else {
        (median(wall), "wall")
    }
}

fn torch_results() -> Vec<(String, f64)> {
    let Ok(path) = std::env::var("TORCH_RESULTS") else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("could not read TORCH_RESULTS={path}");
        return Vec::new();
    };
    // One `{"name": "...", "gbps": X, ...}` object per line.
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

fn ins(node: Node) -> Instr {
    Instr {
        node,
        dtype: DType::F32,
    }
}

fn copy_program() -> Program {
    Program {
        inputs: vec![DType::F32],
        scalars: vec![],
        instrs: vec![ins(Node::Input(0))],
    }
}

/// A sum over the middle axis of an (outer, len, inner) view of `input` into `output`.
fn sum_args<'a>(
    input: &'a WgpuBuffer,
    output: &'a WgpuBuffer,
    outer: usize,
    len: usize,
    inner: usize,
) -> ReduceArgs<'a, WgpuBuffer> {
    ReduceArgs {
        op: ReduceOp::Sum,
        dtype: DType::F32,
        input,
        input_offset: 0,
        outer,
        len,
        inner,
        output,
        output_offset: 0,
    }
}

struct Row {
    name: &'static str,
    bytes: f64,
    secs: f64,
    how: &'static str,
}

fn main() {
    let b = match WgpuBackend::new() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("wgpu_timings: no wgpu adapter ({e}); nothing to measure");
            return;
        }
    };
    let mib: usize = std::env::var("WGPU_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let n = (mib << 20) / 4;
    let side = 1usize << ((n as f64).log2() as u32 / 2);
    let bytes = (n * 4) as f64;
    let limits = b.limits();
    println!("adapter: {}", b.adapter());
    println!(
        "arrays: {mib} MiB f32 ({n} elements; matrices {side}×{side}); max storage binding {} MiB, \
         so an array is {} window(s); timestamps: {}",
        limits.max_storage_buffer_binding_size >> 20,
        (n as u64 * 4).div_ceil(limits.max_storage_buffer_binding_size.max(1)),
        if b.has_timestamps() {
            "yes (device time)"
        } else {
            "no (wall time + wait)"
        }
    );
    let x = Array::<f32, _>::random_uniform(&b, &[n], 1).expect("x");
    let y = Array::<f32, _>::random_uniform(&b, &[n], 2).expect("y");
    let z = Array::<f32, _>::zeros(&b, &[n]).expect("z");
    let m = Array::<f32, _>::random_uniform(&b, &[side, side], 3).expect("m");
    let r = Array::<f32, _>::zeros(&b, &[side]).expect("r");
    let (xb, yb, zb, mb, rb) = (
        x.raw().buffer().expect("x"),
        y.raw().buffer().expect("y"),
        z.raw().buffer().expect("z"),
        m.raw().buffer().expect("m"),
        r.raw().buffer().expect("r"),
    );
    let (copy, axpy) = (copy_program(), axpy_program());
    let copy_args = ElementwiseArgs {
        shape: &[n],
        inputs: &[f32_operand(&*xb)],
        scalars: &[],
        output: f32_operand(&*zb),
    };
    let axpy_holder = axpy_args(n, [&*xb, &*yb, &*zb], 1.5);
    let axpy_operands = axpy_holder.args();
    let scan = ScanArgs {
        op: ScanOp::Sum,
        dtype: DType::F32,
        input: &*xb,
        input_offset: 0,
        outer: 1,
        len: n,
        inner: 1,
        output: &*zb,
        output_offset: 0,
    };
    let only = std::env::var("WGPU_BENCH_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|x| x == name))
    };
    let mut rows = Vec::new();
    let mut measure = |name: &'static str, moved: f64, k: usize, f: &mut dyn FnMut()| {
        if wanted(name) {
            let (secs, how) = time(&b, k, f);
            rows.push(Row {
                name,
                bytes: moved,
                secs,
                how,
            });
        }
    };
    measure("copy", 2.0 * bytes, 10, &mut || {
        b.elementwise(&copy, &copy_args).expect("copy");
    });
    measure("axpy", 3.0 * bytes, 10, &mut || {
        b.elementwise(&axpy, &axpy_operands).expect("axpy");
    });
    measure("sum", bytes, 10, &mut || {
        b.reduce(&sum_args(&xb, &rb, 1, n, 1)).expect("sum");
    });
    measure("sum_dim0", bytes, 10, &mut || {
        b.reduce(&sum_args(&mb, &rb, 1, side, side))
            .expect("sum_dim0");
    });
    measure("sum_dim1", bytes, 10, &mut || {
        b.reduce(&sum_args(&mb, &rb, side, side, 1))
            .expect("sum_dim1");
    });
    measure("cumsum", 2.0 * bytes, 5, &mut || {
        b.scan(&scan).expect("cumsum");
    });

    let torch = torch_results();
    println!("\n| op ({mib} MiB f32) | gpuarrays-wgpu ms | GB/s | timing | PyTorch GB/s | ratio |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        let gbps = r.bytes / r.secs / 1e9;
        let theirs = torch.iter().find(|(n, _)| n == r.name).map(|(_, g)| *g);
        let (tg, ratio) = match theirs {
            Some(g) => (format!("{g:.0}"), format!("{:.3}", gbps / g)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {:.3} | {gbps:.0} | {} | {tg} | {ratio} |",
            r.name,
            r.secs * 1e3,
            r.how
        );
    }
    let gbps = |name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .map(|r| r.bytes / r.secs / 1e9)
    };
    if let (Some(a), Some(c)) = (gbps("axpy"), gbps("copy")) {
        println!(
            "fused elementwise (axpy) / copy bandwidth: {:.3} (target ≥ 0.85)",
            a / c
        );
    }
    if let (Some(s), Some(t)) = (
        gbps("sum"),
        torch.iter().find(|(n, _)| n == "sum").map(|(_, g)| *g),
    ) {
        println!("full sum / PyTorch: {:.3} (target ≥ 0.8)", s / t);
    }

    // Host cost of one small operation (1024 f32): enqueue only (recorded into the pending
    // command encoder), and enqueue + submit. Per call: median of individually timed calls;
    // per batch: median over rounds of (100 back-to-back calls) / 100. The device is drained
    // between rounds (outside the timings).
    let small = 1024;
    let xs = Array::<f32, _>::random_uniform(&b, &[small], 4).expect("xs");
    let ys = Array::<f32, _>::random_uniform(&b, &[small], 5).expect("ys");
    let mut zs = Array::<f32, _>::zeros(&b, &[small]).expect("zs");
    let measure_host = |f: &mut dyn FnMut()| -> (f64, f64) {
        let rounds = Rounds {
            rounds: 60,
            warm_rounds: 5,
            calls: 100,
        };
        let wait = &mut || b.synchronize().expect("synchronize");
        let s = interleaved(rounds, wait, &mut [f]).pop().expect("one path");
        (median(s.per_call) * 1e6, median(s.per_batch) * 1e6)
    };
    let (xsb, ysb, zsb) = (
        xs.raw().buffer().expect("xs"),
        ys.raw().buffer().expect("ys"),
        zs.raw().buffer().expect("zs"),
    );
    let small_holder = axpy_args(small, [&*xsb, &*ysb, &*zsb], 1.5);
    let small_args = small_holder.args();
    let (enq_call, enq_batch) = measure_host(&mut || {
        b.elementwise(&axpy, &small_args).expect("small");
    });
    let (sub_call, sub_batch) = measure_host(&mut || {
        b.elementwise(&axpy, &small_args).expect("small");
        b.submit();
    });
    drop((xsb, ysb, zsb));
    let (api_call, api_batch) = measure_host(&mut || {
        (&xs * 1.5f32 + &ys).eval_into(&mut zs).expect("small");
    });
    println!("\nhost cost of a tiny fused op (a*x+y, 1024 f32), per call / per 100-call batch:");
    println!("  Backend::elementwise, enqueue only:      {enq_call:.2} / {enq_batch:.2} µs");
    println!("  Backend::elementwise + submit:           {sub_call:.2} / {sub_batch:.2} µs");
    println!("  Expr::eval_into (the user API), enqueue: {api_call:.2} / {api_batch:.2} µs");
    let stats = b.pipeline_stats();
    println!("pipelines compiled: {}", stats.created);

    println!("\njson:");
    for r in &rows {
        println!(
            "{{\"name\": \"wgpu_{}\", \"gbps\": {:.1}, \"ms\": {:.4}, \"timing\": \"{}\", \"mib\": {mib}}}",
            r.name,
            r.bytes / r.secs / 1e9,
            r.secs * 1e3,
            r.how
        );
    }
    println!(
        "{{\"name\": \"wgpu_enqueue_small_us\", \"us\": {enq_call:.2}, \"batch_us\": {enq_batch:.2}, \"submit_us\": {sub_call:.2}, \"submit_batch_us\": {sub_batch:.2}, \"api_us\": {api_call:.2}}}"
    );
}
