//! The stream pool under four threading patterns, as a benchmark program run on a HIP
//! device: producer/consumer loops, many short-lived threads, concurrent first touches, and a
//! stencil with a new thread per chunk per phase. These are the workloads that motivated
//! recycling per-thread streams instead of creating and destroying one per thread (see the
//! `gpuarrays_hip::stream` module); running them with the pool off shows what recycling saves.
//!
//! ```text
//! cargo bench --bench stream_pool_scenarios -- [all|producer-consumer|spawn-many|first-touch|stencil]
//! GPUARRAYS_STREAM_POOL=off cargo bench --bench stream_pool_scenarios -- all   # pooling disabled
//! ```
//!
//! Each scenario prints its measurements as lines starting with `scenario,` (CSV), so two
//! runs (pool on / off) can be put side by side. Results must match a CPU computation; a
//! mismatch exits non-zero.

mod first_touch;
mod producer_consumer;
mod spawn_many;
mod stats;
mod stencil;

use gpuarrays::hip::HipBackend;

fn main() {
    let which = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| "all".into());
    let hip = match HipBackend::new(0) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("stream_pool_scenarios: no HIP device ({e}); nothing to measure");
            if std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() == Ok("1") {
                std::process::exit(1);
            }
            return;
        }
    };
    let pooling = hip.runtime().config().pooling;
    println!(
        "# device {:?}, stream pool {}",
        hip,
        if pooling { "on" } else { "off" }
    );
    let run = |name: &str| which == "all" || which == name;
    let mut ok = true;
    if run("producer-consumer") {
        ok &= report(
            "producer-consumer",
            producer_consumer::run(&hip, 4, 2000, 250),
        );
    }
    if run("spawn-many") {
        ok &= report("spawn-many", spawn_many::run(&hip, 20_000));
    }
    if run("first-touch") {
        ok &= report("first-touch", first_touch::run(&hip, 64));
    }
    if run("stencil") {
        for chunks in [1, 2, 4] {
            ok &= report("stencil", stencil::run(&hip, 4096, chunks, 20));
        }
    }
    if !ok {
        std::process::exit(1);
    }
}

fn report(name: &str, r: Result<(), String>) -> bool {
    match r {
        Ok(()) => true,
        Err(e) => {
            eprintln!("{name}: FAILED: {e}");
            false
        }
    }
}
