//! A quick timing probe of the CPU backend's hot paths (fused elementwise, in place,
//! allocating eval, copy, sums, axis sums, cumsum) beside plain rayon loops, for profiling
//! runs (`perf record`, callgrind) where criterion's harness would be in the way. The
//! recorded comparison is `cargo bench --bench cpu_vs_ndarray`; this is not it.
//!
//! ```text
//! T=2 N=1048576 R=50 W=fused cargo run --release -p gpuarrays-cpu-ref --example probe
//! ```
//! `T` threads (0: rayon's default), `N` elements, `R` repetitions, `W` one of all, fused,
//! inplace, ref, eval, copy, sum, axis, scan. Prints medians in µs (mean, p10, p90 on stderr).

use gpuarrays_core::Array;
use gpuarrays_cpu_ref::CpuBackend;
use std::time::Instant;

fn med(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    eprintln!(
        "  (mean {mean:.1}, p10 {:.1}, p90 {:.1})",
        v[v.len() / 10],
        v[v.len() * 9 / 10]
    );
    v[v.len() / 2]
}

fn main() {
    let threads: usize = std::env::var("T")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 20);
    let what = std::env::var("W").unwrap_or("all".into());
    let cpu = if threads == 0 {
        CpuBackend::new()
    } else {
        CpuBackend::with_threads(threads).unwrap()
    };
    let xs: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let x = Array::<f32, _>::from_slice(&cpu, &[n], &xs).unwrap();
    let y = Array::<f32, _>::from_slice(&cpu, &[n], &xs).unwrap();
    let mut out = Array::<f32, _>::zeros(&cpu, &[n]).unwrap();
    let reps: usize = std::env::var("R")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let time = |f: &mut dyn FnMut()| {
        f();
        med((0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect())
    };
    if what == "all" || what == "fused" {
        println!(
            "fused eval_into: {:.1} us",
            time(&mut || (x.ex() * 0.5f32 + y.ex())
                .max(0.0)
                .eval_into(&mut out)
                .unwrap())
        );
    }
    if what == "all" || what == "inplace" {
        let mut yi = y.copy().unwrap();
        println!(
            "inplace: {:.1} us",
            time(&mut || {
                let e = (yi.ex() * 0.5f32 + 0.25f32).max(0.0);
                e.eval_into(&mut yi).unwrap()
            })
        );
    }
    if what == "all" || what == "ref" {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut o = vec![0f32; n];
        let ys = xs.clone();
        println!(
            "ref fused: {:.1} us",
            time(&mut || pool.install(|| o
                .par_iter_mut()
                .zip(&xs)
                .zip(&ys)
                .for_each(|((o, &x), &y)| *o = (0.5 * x + y).max(0.0))))
        );
        let mut yy = xs.clone();
        println!(
            "ref inplace: {:.1} us",
            time(&mut || pool.install(|| yy
                .par_iter_mut()
                .for_each(|v| *v = (0.5 * *v + 0.25).max(0.0))))
        );
        println!(
            "ref 1-thread inplace: {:.1} us",
            time(&mut || yy.iter_mut().for_each(|v| *v = (0.5 * *v + 0.25).max(0.0)))
        );
        println!(
            "ref sum: {:.1} us",
            time(&mut || {
                std::hint::black_box(pool.install(|| {
                    xs.par_chunks(1 << 16)
                        .map(|c| c.iter().sum::<f32>())
                        .sum::<f32>()
                }));
            })
        );
    }
    if what == "all" || what == "eval" {
        println!(
            "eval alloc: {:.1} us",
            time(&mut || {
                std::hint::black_box((x.ex() * 0.5f32 + y.ex()).max(0.0).eval::<f32>().unwrap());
            })
        );
    }
    if what == "all" || what == "copy" {
        println!("copy: {:.1} us", time(&mut || out.assign(&x).unwrap()));
    }
    if what == "all" || what == "sum" {
        println!(
            "sum: {:.1} us",
            time(&mut || {
                std::hint::black_box(x.sum().unwrap());
            })
        );
    }
    if what == "all" || what == "scan" {
        println!(
            "cumsum 1-D: {:.1} us",
            time(&mut || {
                std::hint::black_box(x.cumsum(0).unwrap());
            })
        );
    }
    let r = (n as f64).sqrt() as usize;
    let m = Array::<f32, _>::from_slice(&cpu, &[r, r], &xs[..r * r]).unwrap();
    if what == "all" || what == "axis" {
        println!(
            "sum_axis0: {:.1} us",
            time(&mut || {
                std::hint::black_box(m.sum_axis(0).unwrap());
            })
        );
        println!(
            "sum_axis1: {:.1} us",
            time(&mut || {
                std::hint::black_box(m.sum_axis(1).unwrap());
            })
        );
    }
}
