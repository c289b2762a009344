//! Bandwidth between devices: peer copies (`Array::to_device`) against the same copy through
//! the host and against one device's own copy, and all-reduce of every device of the machine
//! through NCCL/RCCL (one process, one rank per device, one group per call) — the figures
//! `benches/torch_multi_gpu.py` measures for PyTorch on the same machine.
//!
//! ```text
//! cargo bench --bench hip_multi_gpu -- [--reps 20] [--max-mib 1024]
//! ```
//!
//! Each cell is the median of `--reps` samples; a sample is one call on every device
//! followed by a wait for all of them (wall clock), after two warm-up calls. Peer and host
//! copies move an f32 array of the size from device 0 to device 1 (skipped with one device);
//! all-reduce sums an f32 array of the size on every device, in place (as PyTorch's does). For all-reduce the "bus
//! bandwidth" is nccl-tests' figure: bytes / time × 2(n − 1)/n, what each link carries (with
//! one rank it is 0 and only the time means something).
//!
//! Output: one line per cell, `bench=… size_bytes=… seconds=… gbps=…`, and a JSON line per
//! cell (`{"bench": …}`) for the results tables.

use gpuarrays::bench_stats::{Plan, Wait, median, try_sample};
use gpuarrays::hip::HipBackend;
use gpuarrays::hip::collectives::{Communicator, ReduceOp, group};
use gpuarrays_core::{Array, Backend};

#[path = "common/hip_target.rs"]
#[allow(dead_code)]
mod hip_target;
use hip_target::arg;

fn main() {
    if let Err(e) = run() {
        eprintln!("hip_multi_gpu: {e}");
        std::process::exit(1);
    }
}

/// Median seconds per call of `f` followed by a wait for every device.
fn time(
    reps: usize,
    devices: &[HipBackend],
    f: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let plan = Plan {
        warmup: 2,
        samples: reps,
        calls: 1,
        wait: Wait::Inside,
    };
    let wait = || {
        for d in devices {
            d.synchronize().map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    Ok(median(try_sample(plan, f, wait)?))
}

fn report(bench: &str, bytes: usize, seconds: f64, gbps: f64) {
    println!("bench={bench} size_bytes={bytes} seconds={seconds:.6e} gbps={gbps:.2}");
    println!(
        "{{\"bench\": \"{bench}\", \"size_bytes\": {bytes}, \"seconds\": {seconds:.6e}, \"gbps\": {gbps:.3}}}"
    );
}

fn run() -> Result<(), String> {
    let reps: usize = arg("--reps", 20)?;
    let max_mib: usize = arg("--max-mib", 1024)?;
    let devices = match HipBackend::all() {
        Ok(d) if !d.is_empty() => d,
        Ok(_) => return Err("no HIP device".into()),
        Err(e) => {
            println!("hip_multi_gpu: skipped: {e}");
            return Ok(());
        }
    };
    let n = devices.len();
    println!("devices: {n}");
    let sizes: Vec<usize> = (20..=40)
        .step_by(2)
        .map(|p| 1usize << p)
        .filter(|&b| b <= max_mib << 20)
        .collect();

    if n >= 2 {
        let (d0, d1) = (&devices[0], &devices[1]);
        println!("route 0 -> 1: {:?}", d0.device_copy_route(d1));
        for &bytes in &sizes {
            let a = Array::<f32, _>::full(d0, &[bytes / 4], 1.0).map_err(|e| e.to_string())?;
            let t = time(reps, &devices, || {
                a.to_device(d1).map(drop).map_err(|e| e.to_string())
            })?;
            report("peer_copy", bytes, t, bytes as f64 / t / 1e9);
            let t = time(reps.min(5), &devices, || {
                let host = a.to_vec().map_err(|e| e.to_string())?;
                Array::from_slice(d1, &[bytes / 4], &host)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })?;
            report("host_copy", bytes, t, bytes as f64 / t / 1e9);
            let t = time(reps, &devices, || {
                a.to_device(d0).map(drop).map_err(|e| e.to_string())
            })?;
            report("same_device_copy", bytes, t, bytes as f64 / t / 1e9);
        }
    } else {
        println!("peer copies: skipped (one device)");
    }

    match Communicator::library_version(&devices[0]) {
        Ok(v) => println!("collectives: {v}"),
        Err(e) => {
            println!("all_reduce: skipped: {e}");
            return Ok(());
        }
    }
    let comms = Communicator::for_devices(&devices).map_err(|e| e.to_string())?;
    for &bytes in &sizes {
        let mut xs = devices
            .iter()
            .map(|d| Array::<f32, _>::full(d, &[bytes / 4], 1.0))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        // In place, as torch.distributed.all_reduce.
        let t = time(reps, &devices, || {
            group(&devices[0], || {
                for (c, x) in comms.iter().zip(xs.iter_mut()) {
                    c.all_reduce_in_place(x, ReduceOp::Sum)?;
                }
                Ok(())
            })
            .map_err(|e| e.to_string())
        })?;
        let bus = bytes as f64 / t / 1e9 * 2.0 * (n as f64 - 1.0) / n as f64;
        report(&format!("all_reduce_{n}"), bytes, t, bus);
    }
    Ok(())
}
