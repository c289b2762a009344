//! Scenario 1: `loops` concurrent loops; each iteration spawns a thread that fills a device
//! array and then another that reduces and frees it. Reported every `every` iterations of
//! loop 0: time per block, RSS, device memory, streams alive, pool size.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use gpuarrays::hip::HipBackend;
use gpuarrays::prelude::*;

use crate::stats;

const N: usize = 1 << 20;

pub fn run(hip: &HipBackend, loops: usize, iterations: usize, every: usize) -> Result<(), String> {
    let failed = AtomicBool::new(false);
    println!(
        "scenario,producer-consumer,iterations,seconds_per_block,rss_mib,device_used_mib,streams_alive,pool_idle,streams_created"
    );
    std::thread::scope(|s| {
        for l in 0..loops {
            let failed = &failed;
            s.spawn(move || {
                let mut t = Instant::now();
                for i in 1..=iterations {
                    let value = (l * iterations + i) as f32 % 7.0;
                    let h = hip.clone();
                    let a = std::thread::spawn(move || Array::<f32, _>::full(&h, &[N], value)).join();
                    let a = match a {
                        Ok(Ok(a)) => a,
                        _ => {
                            failed.store(true, Ordering::Relaxed);
                            return;
                        }
                    };
                    let sum = std::thread::spawn(move || {
                        let s = a.sum();
                        a.free();
                        s
                    })
                    .join();
                    if !matches!(sum, Ok(Ok(s)) if s == value * N as f32) {
                        failed.store(true, Ordering::Relaxed);
                        return;
                    }
                    if l == 0 && i % every == 0 {
                        let (mem, alive, idle, created) = stats::device(hip);
                        println!(
                            "scenario,producer-consumer,{i},{:.3},{:.0},{:.0},{alive},{idle},{created}",
                            t.elapsed().as_secs_f64(),
                            stats::rss_mib(),
                            mem
                        );
                        t = Instant::now();
                    }
                }
            });
        }
    });
    if failed.load(Ordering::Relaxed) {
        Err("a fill or a sum failed or gave a wrong value".into())
    } else {
        Ok(())
    }
}
