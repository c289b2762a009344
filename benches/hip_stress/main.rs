//! Stress of the HIP backend's ordering promise (any thread may use any array; the runtime
//! orders the work): many threads share read-mostly arrays while their writers overwrite
//! them, read through views and derived arrays, free derived arrays on other threads and
//! release shared arrays for every holder from a third thread. Every output is checked
//! against a host model (on the GPU); on the test double the race detector checks every
//! access instead. Prints one summary line and exits non-zero on any mismatch or race.
//!
//! ```text
//! cargo bench --bench hip_stress -- [--platform gpu|double] [--threads 16] [--rounds 2000] [--len 65536]
//! ```
//!
//! The host model (see `workload.rs`): array `i` only ever holds `value(i, k)` for a round
//! `k` of its writer. A reader loads `committed[i]` (the last round whose write had been
//! enqueued) before its read and `started[i]` after: its read is ordered after the write
//! recorded when it was enqueued and before any later write, so it must see one whole
//! `value(i, k)` with `k` between the two — a torn array, a value from outside that range or
//! a freed buffer's garbage is a mismatch.

#[path = "../common/hip_target.rs"]
mod hip_target;
mod workload;

use gpuarrays_core::Backend;
use hip_target::{Target, arg};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("hip_stress: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let platform: String = arg("--platform", "gpu".to_string())?;
    let params = workload::Params {
        threads: arg("--threads", 16)?,
        rounds: arg("--rounds", 2000)?,
        len: arg("--len", 1 << 16)?,
    };
    params.check()?;
    let target = match Target::open(&platform, true) {
        Ok(t) => t,
        Err(e)
            if platform == "gpu"
                && std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            println!("hip_stress: skipped: {e}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let start = Instant::now();
    let report = workload::run(&target, &params)?;
    let races = target.races();
    println!(
        "hip_stress: platform={platform} threads={} rounds={} len={} operations={} checked_reads={} \
         writes={} cross_thread_frees={} released_for_all={} mismatches={} races={} seconds={:.2}",
        params.threads,
        params.rounds,
        params.len,
        report.operations,
        report.checked_reads,
        report.writes,
        report.cross_thread_frees,
        report.released_for_all,
        report.mismatches.len(),
        races.len(),
        start.elapsed().as_secs_f64()
    );
    // A clean teardown for leak checkers (compute-sanitizer's --leak-check): wait for all
    // work, then return the pool's cached blocks to the driver; what is still in use after
    // every array of the workload is dropped would be a leak of ours.
    target.backend.synchronize().map_err(|e| e.to_string())?;
    let memory = target.backend.device_state().memory();
    let released = memory.trim();
    let stats = memory.stats();
    println!(
        "hip_stress: teardown: trimmed {released} cached bytes; in use after the workload {} bytes",
        stats.in_use_bytes
    );
    for m in report.mismatches.iter().take(20) {
        eprintln!("mismatch: {m}");
    }
    for r in races.iter().take(20) {
        eprintln!("race: {r}");
    }
    if report.mismatches.is_empty() && races.is_empty() {
        Ok(())
    } else {
        Err("FAILED (mismatches or races above)".into())
    }
}
