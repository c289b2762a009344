//! Scenario 3: `threads` threads touch the GPU for the first time at once; each measures
//! how long it waits for its stream. Reported: median and maximum wait.

use std::sync::Barrier;
use std::time::Instant;

use gpuarrays::hip::HipBackend;
use gpuarrays::hip::platform::DeviceId;

use crate::stats;

pub fn run(hip: &HipBackend, threads: usize) -> Result<(), String> {
    let barrier = Barrier::new(threads);
    let waits: Vec<Result<f64, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let t = Instant::now();
                    let stream = hip
                        .runtime()
                        .stream(DeviceId(0))
                        .map_err(|e| e.to_string())?;
                    let waited = t.elapsed().as_secs_f64() * 1e3;
                    stream.synchronize().map_err(|e| e.to_string())?;
                    Ok(waited)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("thread panicked".into())))
            .collect()
    });
    let waits = waits.into_iter().collect::<Result<Vec<f64>, String>>()?;
    let waits = gpuarrays::bench_stats::Summary::of(waits);
    let (median, max) = (waits.median, waits.max);
    let (_, alive, idle, created) = stats::device(hip);
    println!(
        "scenario,first-touch,threads,median_ms,max_ms,streams_alive,pool_idle,streams_created"
    );
    println!("scenario,first-touch,{threads},{median:.3},{max:.3},{alive},{idle},{created}");
    Ok(())
}
