//! How long a thread waits for its stream when a finished thread's stream is ready in the
//! pool — the pooled take the stream pool exists for (target: ≤ 1 µs median).
//!
//! Each sample: thread A uses the device (an upload, which it waits for) and ends, so its
//! stream goes back to the pool with its work complete; A is joined (its thread-local
//! destructors have run); then a new thread B times its first `HipRuntime::stream` call,
//! which takes A's stream from the pool (one stream query, a generation bump). For
//! comparison, B's second call (its own lease, no pool) is timed too. The pool's counters
//! confirm that B's first call was a reuse, not a creation.
//!
//! ```text
//! cargo bench --bench hip_stream_take -- [--platform gpu|double] [--samples 2000]
//! ```
//!
//! (An earlier version of this measurement, a test, released and took the stream on one
//! thread under two owner tokens: it measured the same-thread path twice. See
//! `docs/results/hip-runtime.md`.)

// Shared with the stress and soak programs; this one needs no output checks or races.
#[path = "common/hip_target.rs"]
#[allow(dead_code)]
mod hip_target;

use gpuarrays::Array;
use gpuarrays::hip::StreamPriority;
use gpuarrays::hip::platform::DeviceId;
use hip_target::{Target, arg};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("hip_stream_take: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let platform: String = arg("--platform", "gpu".to_string())?;
    let samples: usize = arg("--samples", 2000)?;
    let target = match Target::open(&platform, false) {
        Ok(t) => t,
        Err(e)
            if platform == "gpu"
                && std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            println!("hip_stream_take: skipped: {e}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let b = target.backend.clone();
    let pool = b.device_state().pool(StreamPriority::Normal).clone();
    let (mut first, mut again) = (Vec::with_capacity(samples), Vec::with_capacity(samples));
    let mut reused_takes = 0;
    for i in 0..samples + 50 {
        let b1 = b.clone();
        std::thread::spawn(move || -> Result<(), String> {
            let x = Array::from_vec(&b1, vec![1.0f32; 64]).map_err(|e| e.to_string())?;
            x.to_vec().map(drop).map_err(|e| e.to_string())
        })
        .join()
        .map_err(|_| "a using thread panicked".to_string())??;
        let before = pool.stats();
        let rt = b.runtime().clone();
        let (t1, t2) = std::thread::spawn(move || -> Result<(f64, f64), String> {
            let t = Instant::now();
            let s = rt.stream(DeviceId(0)).map_err(|e| e.to_string())?;
            let t1 = t.elapsed().as_secs_f64() * 1e9;
            let t = Instant::now();
            let s2 = rt.stream(DeviceId(0)).map_err(|e| e.to_string())?;
            let t2 = t.elapsed().as_secs_f64() * 1e9;
            drop((s, s2));
            Ok((t1, t2))
        })
        .join()
        .map_err(|_| "a taking thread panicked".to_string())??;
        let after = pool.stats();
        if i >= 50 {
            // The first 50 warm up (thread-local storage, allocator, code paths).
            first.push(t1);
            again.push(t2);
            if after.reused > before.reused && after.created == before.created {
                reused_takes += 1;
            }
        }
    }
    let (m1, p1, x1) = stats(first);
    let (m2, p2, x2) = stats(again);
    println!(
        "# {platform}: {samples} samples; a new thread's first stream, a finished thread's ready stream in the pool"
    );
    println!("take,path,median_ns,p90_ns,max_ns,samples,reused_from_pool");
    println!("take,finished-thread-ready-stream,{m1:.0},{p1:.0},{x1:.0},{samples},{reused_takes}");
    println!("take,same-thread-lease,{m2:.0},{p2:.0},{x2:.0},{samples},-");
    if reused_takes != samples {
        return Err(format!(
            "only {reused_takes} of {samples} first takes reused a pooled stream: the measurement is not of the pooled take"
        ));
    }
    Ok(())
}

/// Median, 90th percentile and maximum (the workspace's one definition of each:
/// `gpuarrays::bench_stats`).
fn stats(v: Vec<f64>) -> (f64, f64, f64) {
    let s = gpuarrays::bench_stats::Summary::of(v);
    (s.median, s.p90, s.max)
}
