//! The FFT plan cache under the two workloads it was designed for (many plan shapes, many threads), on a
//! HIP device:
//!
//! 1. **distinct-length churn**: 1-D c32 FFTs of 6,000 distinct lengths 16, 18, 20, ...; every
//!    50 lengths one CSV line with free device memory, cached plans (idle, live), their
//!    reported bytes, evictions, the memory pool's bytes and the work areas. Memory must stay
//!    flat within the budget instead of falling plan after plan.
//! 2. **hot/cold churn**: 200 iterations of "H plans reused, then C plans used once" for
//!    (H, C) = (1, 4), (4, 4), (8, 8), (16, 4); hot-plan rebuilds must equal H (each built
//!    once). Cold keys are new row counts of 1024- or 512-point transforms (each a new plan,
//!    cheap to create), hot keys 1024 rows of fixed lengths.
//!
//! ```text
//! .gpu/bin/bench-fft_plan_cache [churn|hotcold|all] [--lengths N] | tee $OUT/fft_plan_cache.csv
//! ```
//! Lines: `churn,<i>,<length>,<free MiB>,<idle plans>,<live plans>,<idle MiB>,<evictions>,
//! <pool in use MiB>,<pool cached MiB>,<work areas MiB>,<seconds>` and
//! `hotcold,<H>,<C>,<hot rebuilds>,<cold plans>,<hits>,<misses>,<evictions>,<seconds>`.
//! The budgets are the defaults unless `GPUARRAYS_FFT_PLAN_CACHE` says otherwise.

use std::time::Instant;

use gpuarrays_core::{Array, Backend, Complex32, FftNorm};
use gpuarrays_hip::HipBackend;

fn mib(b: usize) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn churn(hip: &HipBackend, lengths: usize) -> bool {
    let max = 16 + 2 * (lengths - 1);
    let host: Vec<Complex32> = (0..max)
        .map(|i| Complex32::new((i % 7) as f32, 1.0))
        .collect();
    let x = Array::from_slice(hip, &[max], &host).expect("input");
    let device = hip.device_state().clone();
    let platform = device.platform().clone();
    let start = Instant::now();
    println!(
        "# churn,i,length,free MiB,idle plans,live plans,idle MiB,evictions,pool in use MiB,pool cached MiB,work areas MiB,seconds"
    );
    let mut first_free = None;
    let mut lowest_free = usize::MAX;
    for i in 0..lengths {
        let n = 16 + 2 * i;
        let view = x.slice(0..n).expect("view");
        let y = view.fft(None, 0, FftNorm::Backward).expect("fft");
        drop(y);
        if (i + 1) % 50 == 0 || i == 0 {
            hip.synchronize().expect("sync");
            let free = platform.mem_info(device.id()).map(|m| m.free).unwrap_or(0);
            first_free.get_or_insert(free);
            lowest_free = lowest_free.min(free);
            let s = hip.fft_state().plan_cache().stats();
            let m = device.memory().stats();
            println!(
                "churn,{},{n},{:.1},{},{},{:.1},{},{:.1},{:.1},{:.1},{:.2}",
                i + 1,
                mib(free),
                s.idle,
                s.live,
                mib(s.idle_bytes),
                s.evictions,
                mib(m.in_use_bytes),
                mib(m.cached_bytes),
                mib(hip.fft_state().work_areas().bytes()),
                start.elapsed().as_secs_f64()
            );
        }
    }
    let limits = hip.fft_state().plan_cache().limits();
    let s = hip.fft_state().plan_cache().stats();
    let drop_mib = mib(first_free.unwrap_or(0).saturating_sub(lowest_free));
    println!(
        "# churn: {lengths} lengths, free memory fell by at most {drop_mib:.1} MiB after the first 50; idle plans {} (budget {}), idle bytes {:.1} MiB (budget {:.1})",
        s.idle,
        limits.max_idle,
        mib(s.idle_bytes),
        mib(limits.max_idle_bytes)
    );
    s.idle <= limits.max_idle && s.idle_bytes <= limits.max_idle_bytes
}

fn hot_cold(hip: &HipBackend) -> bool {
    let mut ok = true;
    let host: Vec<Complex32> = (0..1024 * 1024)
        .map(|i| Complex32::new(i as f32, 0.0))
        .collect();
    let x = Array::from_slice(hip, &[1024, 1024], &host).expect("input");
    println!("# hotcold,H,C,hot rebuilds,cold plans,hits,misses,evictions,seconds");
    for (hot, cold) in [(1, 4), (4, 4), (8, 8), (16, 4)] {
        hip.fft_state().plan_cache().clear();
        let mut next_cold = 0;
        let before = hip.fft_state().plan_cache().stats();
        let start = Instant::now();
        for _ in 0..200 {
            for h in 0..hot {
                // Hot: the 1024 rows cropped to 1000 − 8h points (a fixed plan each).
                let n = 1000 - 8 * h;
                drop(x.fft(Some(n), 1, FftNorm::Backward).expect("hot fft"));
            }
            for _ in 0..cold {
                // Cold: a key never used before in this run: 1..=1023 rows (the hot keys
                // have 1024) of 1024 points, then of 512.
                let (rows, n) = (next_cold % 1023 + 1, 1024 >> (next_cold / 1023));
                next_cold += 1;
                let v = x.view(&[0..rows, 0..1024]).expect("rows");
                drop(v.fft(Some(n), 1, FftNorm::Backward).expect("cold fft"));
            }
        }
        hip.synchronize().expect("sync");
        let s = hip.fft_state().plan_cache().stats();
        let misses = s.misses - before.misses;
        let cold_plans = 200 * cold as u64;
        let rebuilds = misses.saturating_sub(cold_plans);
        ok &= rebuilds == hot as u64;
        println!(
            "hotcold,{hot},{cold},{rebuilds},{cold_plans},{},{misses},{},{:.2}",
            s.hits - before.hits,
            s.evictions - before.evictions,
            start.elapsed().as_secs_f64()
        );
    }
    ok
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
        .cloned()
        .unwrap_or_else(|| "all".into());
    let lengths = args
        .iter()
        .position(|a| a == "--lengths")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(6000);
    let hip = match HipBackend::new(0) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("fft_plan_cache: no HIP device ({e}); nothing to measure");
            if std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() == Ok("1") {
                std::process::exit(1);
            }
            return;
        }
    };
    println!(
        "# device {hip:?}, plan budgets {:?}",
        hip.fft_state().plan_cache().limits()
    );
    let mut ok = true;
    if which == "all" || which == "hotcold" {
        ok &= hot_cold(&hip);
    }
    if which == "all" || which == "churn" {
        ok &= churn(&hip, lengths);
    }
    if !ok {
        eprintln!("fft_plan_cache: a target was missed (see above)");
        std::process::exit(1);
    }
}
