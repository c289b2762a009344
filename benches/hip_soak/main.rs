//! Soak of the HIP backend's per-thread streams: a million short threads, each doing GPU
//! work on a shared array and handing its result to another thread to free, while process
//! RSS, device memory and the pooled-stream counts are sampled into a CSV. Flat columns
//! (after the warm-up) show that nothing grows with the number of threads that came and
//! went: no stream, event, record or block is kept per finished thread.
//!
//! ```text
//! cargo bench --bench hip_soak -- [--platform gpu|double] [--threads 1000000] [--concurrency 8] \
//!     [--sample-every 10000] [--csv hip_soak.csv]
//! python3 benches/hip_soak/plot.py hip_soak.csv hip_soak.png
//! ```
//!
//! Each thread computes `y = x * k + 1` (k from its number) from the shared `x`, reads `y`
//! back and checks it (on the GPU), and sends `y` to the freeing thread. Exits non-zero on a
//! wrong result or a failed operation.

#[path = "../common/hip_target.rs"]
mod hip_target;
mod sample;

use gpuarrays::Array;
use gpuarrays::hip::HipBackend;
use hip_target::{Target, arg};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc::sync_channel;
use std::time::Instant;

const LEN: usize = 256;

fn main() {
    if let Err(e) = run() {
        eprintln!("hip_soak: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let platform: String = arg("--platform", "gpu".to_string())?;
    let threads: usize = arg("--threads", 1_000_000)?;
    let concurrency: usize = arg("--concurrency", 8)?;
    let every: usize = arg("--sample-every", 10_000)?;
    let csv: String = arg("--csv", "hip_soak.csv".to_string())?;
    if concurrency == 0 || every == 0 {
        return Err("--concurrency and --sample-every must be at least 1".into());
    }
    let target = match Target::open(&platform, false) {
        Ok(t) => t,
        Err(e)
            if platform == "gpu"
                && std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            println!("hip_soak: skipped: {e}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let b = &target.backend;
    let x = Array::from_vec(b, (0..LEN).map(|i| i as f32).collect()).map_err(|e| e.to_string())?;
    let mut out = sample::Csv::create(&csv)?;
    let start = Instant::now();
    out.row(b, 0, start)?;
    let out = Mutex::new(out);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let (free_tx, free_rx) = sync_channel::<Array<f32, HipBackend>>(4096);
    let computes = target.computes();
    std::thread::scope(|s| {
        s.spawn(move || free_rx.into_iter().for_each(drop));
        for _ in 0..concurrency {
            let (x, free_tx) = (&x, free_tx.clone());
            let (next, done, failures, out) = (&next, &done, &failures, &out);
            s.spawn(move || {
                loop {
                    let n = next.fetch_add(1, SeqCst);
                    if n >= threads {
                        break;
                    }
                    let mine = x.share();
                    let tx = free_tx.clone();
                    let r = std::thread::spawn(move || short_thread(n, mine, tx, computes))
                        .join()
                        .unwrap_or_else(|_| Err(format!("thread {n} panicked")));
                    if let Err(e) = r {
                        let mut f = failures.lock().unwrap_or_else(|p| p.into_inner());
                        if f.len() < 20 {
                            f.push(e);
                        }
                    }
                    let d = done.fetch_add(1, SeqCst) + 1;
                    if d % every == 0 {
                        let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                        if let Err(e) = o.row(b, d, start) {
                            failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                        }
                    }
                }
            });
        }
        drop(free_tx);
    });
    let out = out.into_inner().unwrap_or_else(|p| p.into_inner());
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    let secs = start.elapsed().as_secs_f64();
    println!(
        "hip_soak: platform={platform} threads={threads} concurrency={concurrency} seconds={secs:.1} \
         wall_us_per_thread={:.1} samples={} csv={csv}",
        secs * 1e6 / threads.max(1) as f64,
        out.rows()
    );
    println!("{}", out.summary());
    for f in &failures {
        eprintln!("failure: {f}");
    }
    // Empty unless the double runs with its race detector (off for the soak: it keeps
    // state per allocation); kept so a run with it on reports what it found.
    for r in target.races().iter().take(20) {
        eprintln!("race: {r}");
    }
    if failures.is_empty() && target.races().is_empty() {
        Ok(())
    } else {
        Err(format!("{} thread(s) failed", failures.len()))
    }
}

/// One short thread: GPU work on the shared array, checked, its result freed elsewhere.
fn short_thread(
    n: usize,
    x: Array<f32, HipBackend>,
    free: std::sync::mpsc::SyncSender<Array<f32, HipBackend>>,
    computes: bool,
) -> Result<(), String> {
    let k = (n % 7) as f32;
    let y: Array<f32, HipBackend> = (x.ex() * k + 1.0).eval().map_err(|e| e.to_string())?;
    let got = y.to_vec().map_err(|e| e.to_string())?;
    if computes {
        for (i, &g) in got.iter().enumerate() {
            if g != i as f32 * k + 1.0 {
                return Err(format!(
                    "thread {n}: y[{i}] = {g}, expected {}",
                    i as f32 * k + 1.0
                ));
            }
        }
    }
    free.send(y)
        .map_err(|_| format!("thread {n}: the freeing thread is gone"))
}
