//! Scenario 2: `threads` threads spawned one after another, each doing a small GPU
//! operation (fill 256 values, sum them, read the sum back).

use std::time::Instant;

use gpuarrays::hip::HipBackend;
use gpuarrays::prelude::*;

use crate::stats;

pub fn run(hip: &HipBackend, threads: usize) -> Result<(), String> {
    let t = Instant::now();
    for i in 0..threads {
        let h = hip.clone();
        let v = (i % 13) as f32;
        let r = std::thread::spawn(move || Array::<f32, _>::full(&h, &[256], v)?.sum()).join();
        match r {
            Ok(Ok(s)) if s == v * 256.0 => {}
            other => return Err(format!("thread {i}: {other:?}")),
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let (_, alive, idle, created) = stats::device(hip);
    println!(
        "scenario,spawn-many,threads,seconds,us_per_thread,streams_alive,pool_idle,streams_created"
    );
    println!(
        "scenario,spawn-many,{threads},{secs:.3},{:.1},{alive},{idle},{created}",
        secs * 1e6 / threads as f64
    );
    Ok(())
}
