//! Times the CPU reference's matrix products (the figures of `docs/results/cpu-matmul.md`):
//! square f32 and f64 products, a matrix times a vector (m×k · k×1), a
//! vector times a matrix (1×k · k×n), a product whose left operand was transposed first
//! (a copy, then the product), an i64 product and a c64 product. Medians of `R` samples
//! (`bench_stats::median`, the upper median) in milliseconds and GFLOP/s (2·m·n·k flops).
//!
//! ```text
//! N=1024 R=15 cargo run --release -p gpuarrays-cpu-ref --example matmul_speed
//! ```
//! `N` the size, `R` samples, `T` threads (0, the default: rayon's default pool).

use gpuarrays_core::bench_stats::{Plan, Wait, median, sample};
use gpuarrays_core::{Array, Element};
use gpuarrays_cpu_ref::CpuBackend;
use num_complex::Complex64;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn row<T: Element>(
    cpu: &CpuBackend,
    label: &str,
    (m, k, n): (usize, usize, usize),
    make: impl Fn(usize) -> T,
    transpose_lhs: bool,
    reps: usize,
) {
    let av: Vec<T> = (0..m * k).map(&make).collect();
    let bv: Vec<T> = (0..k * n).map(|i| make(i + 7)).collect();
    let a = Array::<T, _>::from_slice(cpu, &[m, k], &av).expect("lhs");
    let b = Array::<T, _>::from_slice(cpu, &[k, n], &bv).expect("rhs");
    let plan = Plan {
        warmup: 2,
        samples: reps,
        calls: 1,
        wait: Wait::Outside,
    };
    let t = median(sample(
        plan,
        || {
            let p = if transpose_lhs {
                a.transpose().expect("transpose").matmul(&b)
            } else {
                a.matmul(&b)
            };
            std::hint::black_box(p.expect("matmul"));
        },
        || {},
    ));
    let gflops = 2.0 * (m * n * k) as f64 / t / 1e9;
    println!(
        "{label:<28} {m:>5}x{k:<5}·{k:>5}x{n:<5} {:>9.3} ms {gflops:>7.2} GFLOP/s",
        t * 1e3
    );
}

fn main() {
    let n = env("N", 1024);
    let reps = env("R", 15);
    let threads = env("T", 0);
    let cpu = if threads == 0 {
        CpuBackend::new()
    } else {
        CpuBackend::with_threads(threads).expect("pool")
    };
    let f = |i: usize| ((i * 7919) % 1000) as f64 / 500.0 - 1.0;
    row(&cpu, "f32 matmul", (n, n, n), |i| f(i) as f32, false, reps);
    row(&cpu, "f64 matmul", (n, n, n), f, false, reps);
    row(
        &cpu,
        "f32 matmul, lhs transposed",
        (n, n, n),
        |i| f(i) as f32,
        true,
        reps,
    );
    row(
        &cpu,
        "f32 matvec",
        (n, n, 1),
        |i| f(i) as f32,
        false,
        reps * 4,
    );
    row(&cpu, "f64 matvec", (n, n, 1), f, false, reps * 4);
    row(
        &cpu,
        "f32 vecmat",
        (1, n, n),
        |i| f(i) as f32,
        false,
        reps * 4,
    );
    row(
        &cpu,
        "i64 matmul",
        (n / 2, n / 2, n / 2),
        |i| (i % 97) as i64 - 48,
        false,
        reps,
    );
    let c = |i: usize| Complex64::new(f(i), f(i + 3));
    row(&cpu, "c64 matmul", (n / 2, n / 2, n / 2), c, false, reps);
}
