//! Copies between the device and pageable host memory, by size: the driver's copy (staging
//! off) against the staged pipeline (`gpuarrays-hip/src/device/staged_copy.rs`), in one process
//! on one device, both directions; first, the first large copy of a process (which finds
//! no pinned set, takes the driver's path and has a set pinned in the background).
//!
//! ```text
//! cargo bench --bench hip_host_copies -- [--platform gpu|double] [--reps-mib 512]
//! GPUARRAYS_HOST_STAGING=chunk=16M,slots=4 cargo bench --bench hip_host_copies   # other settings
//! ```
//!
//! Each cell is the median of repeated calls (each call copies once and returns when the copy
//! is done, as `Backend::read`/`write` do) moving about `--reps-mib` MiB per size, after two
//! warm-up calls; the host buffer is written memory (not `calloc`'s untouched zero pages)
//! and already faulted in. The staged settings are `GPUARRAYS_HOST_STAGING`'s (or the
//! defaults) with `min=1`, so every size is staged.

// `arg` only; the rest serves the stress and soak programs.
#[path = "common/hip_target.rs"]
#[allow(dead_code)]
mod hip_target;

use gpuarrays::bench_stats::{Plan, Wait, median, try_sample};
use gpuarrays::hip::kernels::DiskCache;
use gpuarrays::hip::memory::{HOST_STAGING_ENV, StagingConfig};
use gpuarrays::hip::platform::select_platform;
use gpuarrays::hip::platform::test_double::{FakeConfig, FakePlatform};
use gpuarrays::hip::{DeviceBuffer, HipBackend, HipRuntime, Platform, RuntimeConfig};
use hip_target::arg;
use std::sync::Arc;
use std::time::Instant;

const SIZES: &[usize] = &[
    256 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    8 << 20,
    16 << 20,
    64 << 20,
    256 << 20,
    1 << 30,
];

fn main() {
    if let Err(e) = run() {
        eprintln!("hip_host_copies: {e}");
        std::process::exit(1);
    }
}

fn runtime(platform: &Arc<dyn Platform>, staging: StagingConfig) -> Result<HipBackend, String> {
    let rt = HipRuntime::new(
        platform.clone(),
        RuntimeConfig {
            staging,
            ..RuntimeConfig::default()
        },
    )
    .map_err(|e| e.to_string())?;
    HipBackend::with_runtime(rt, 0, DiskCache::off()).map_err(|e| e.to_string())
}

/// Median seconds per call of `f`.
fn time(reps: usize, f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let plan = Plan {
        warmup: 2,
        samples: reps,
        calls: 1,
        wait: Wait::Inside,
    };
    // The copies return when done: nothing to wait for.
    Ok(median(try_sample(plan, f, || Ok(()))?))
}

struct Cell {
    write: f64,
    read: f64,
}

fn measure(
    b: &HipBackend,
    buf: &DeviceBuffer,
    host: &mut [u8],
    reps: usize,
) -> Result<Cell, String> {
    let stream = b
        .device_state()
        .thread_stream()
        .map_err(|e| e.to_string())?;
    let n = host.len();
    let write = time(reps, || {
        buf.copy_from_host_at(&stream, 0, &host[..n])
            .map_err(|e| e.to_string())
    })?;
    let read = time(reps, || {
        buf.copy_to_host_at(&stream, 0, host)
            .map_err(|e| e.to_string())
    })?;
    Ok(Cell { write, read })
}

fn run() -> Result<(), String> {
    let which: String = arg("--platform", "gpu".to_string())?;
    let reps_mib: usize = arg("--reps-mib", 512)?;
    let platform: Arc<dyn Platform> = match which.as_str() {
        "gpu" => match select_platform() {
            Ok(p) => p,
            Err(e) if std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() != Ok("1") => {
                println!("hip_host_copies: skipped: {e}");
                return Ok(());
            }
            Err(e) => return Err(e.to_string()),
        },
        "double" => Arc::new(FakePlatform::new(FakeConfig {
            memory_per_device: 4 << 30,
            detect_races: false,
            keep_log: false,
            ..FakeConfig::default()
        })),
        other => return Err(format!("--platform {other}: expected gpu or double")),
    };
    let mut staged = match std::env::var(HOST_STAGING_ENV) {
        Ok(v) => StagingConfig::parse(&v).map_err(|e| e.to_string())?,
        Err(_) => StagingConfig::default(),
    };
    staged.enabled = true;
    staged.min_bytes = 1;
    let off = StagingConfig {
        enabled: false,
        ..staged
    };

    // The first large copy of a process finds no pinned set: it takes the driver's path and
    // has one pinned in the background. Timed in a fresh runtime: that copy, the wait for
    // the set (`prepare`), and the staged copies after it.
    let first = runtime(&platform, staged)?;
    let probe = 64 << 20;
    let buf = first
        .device_state()
        .alloc(probe)
        .map_err(|e| e.to_string())?;
    let mut host = vec![1u8; probe];
    let stream = first
        .device_state()
        .thread_stream()
        .map_err(|e| e.to_string())?;
    let timed = |host: &mut Vec<u8>| -> Result<f64, String> {
        let t0 = Instant::now();
        buf.copy_to_host_at(&stream, 0, host)
            .map_err(|e| e.to_string())?;
        Ok(t0.elapsed().as_secs_f64())
    };
    let first_call = timed(&mut host)?;
    let t0 = Instant::now();
    first
        .device_state()
        .staging()
        .prepare()
        .map_err(|e| e.to_string())?;
    let pinned_wait = t0.elapsed().as_secs_f64();
    let after = [timed(&mut host)?, timed(&mut host)?];
    drop(buf);
    drop(first);

    let (b_off, b_on) = (runtime(&platform, off)?, runtime(&platform, staged)?);
    println!(
        "staged settings: chunk {} MiB, {} slots, {} threads, streaming stores {:?}; platform {which}",
        staged.chunk_bytes >> 20,
        staged.slots,
        staged.threads,
        staged.streaming_stores
    );
    println!(
        "first 64 MiB read of the process: {:.2} ms (the driver's copy; a set is pinned in the \
         background), then {:.2} ms more until the set was pinned, then staged reads {:.2} ms, {:.2} ms",
        first_call * 1e3,
        pinned_wait * 1e3,
        after[0] * 1e3,
        after[1] * 1e3
    );
    println!();
    println!(
        "| bytes | host→device driver | staged | speed-up | device→host driver | staged | speed-up |"
    );
    println!("|---|---|---|---|---|---|---|");
    let largest = *SIZES.last().unwrap_or(&0);
    let mut host = vec![0u8; largest];
    for (i, byte) in host.iter_mut().enumerate() {
        *byte = (i % 251) as u8;
    }
    let (buf_off, buf_on) = (
        b_off
            .device_state()
            .alloc(largest)
            .map_err(|e| e.to_string())?,
        b_on.device_state()
            .alloc(largest)
            .map_err(|e| e.to_string())?,
    );
    for &n in SIZES {
        let reps = ((reps_mib << 20) / n).clamp(5, 400);
        let d = measure(&b_off, &buf_off, &mut host[..n], reps)?;
        let s = measure(&b_on, &buf_on, &mut host[..n], reps)?;
        let gbs = |t: f64| n as f64 / t / 1e9;
        println!(
            "| {} | {:.1} µs ({:.1} GB/s) | {:.1} µs ({:.1} GB/s) | {:.2}× | {:.1} µs ({:.1} GB/s) | {:.1} µs ({:.1} GB/s) | {:.2}× |",
            human(n),
            d.write * 1e6,
            gbs(d.write),
            s.write * 1e6,
            gbs(s.write),
            d.write / s.write,
            d.read * 1e6,
            gbs(d.read),
            s.read * 1e6,
            gbs(s.read),
            d.read / s.read
        );
    }
    Ok(())
}

fn human(n: usize) -> String {
    if n >= 1 << 30 {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}
