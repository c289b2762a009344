//! The CPU reference backend side by side with ndarray (+ rayon) on the same f32 inputs:
//! a fused elementwise expression, a full sum, and sums along each axis of a 2-D array,
//! at 1 M and 64 M elements.
//!
//! ```text
//! cargo bench --bench cpu_vs_ndarray                 # both sizes
//! GPUARRAYS_BENCH_SIZES=1M cargo bench --bench cpu_vs_ndarray
//! cargo bench --bench cpu_vs_ndarray -- 'sum/'       # criterion's name filter
//! ```
//!
//! Both sides use rayon's global pool (one thread per core). Before timing, each pair of
//! results is compared once, so the two sides are known to compute the same thing.
//! Results and their discussion, latest first, with the runs before the CPU backend's
//! performance work: docs/results/cpu-reference.md.
//! `python3 benches/criterion_table.py <stdout>` makes the tables of one run,
//! `python3 benches/criterion_runs.py DIR` those of several: each gpuarrays row's ratio is
//! to its group's parallel ndarray row.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use gpuarrays_core::Array;
use gpuarrays_cpu_ref::CpuBackend;
use ndarray::parallel::prelude::*;
use ndarray::{Array1, Array2, Axis, Zip};

const A: f32 = 0.5;
const B: f32 = 0.25;

/// Deterministic inputs in [-1, 1).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn sizes() -> Vec<(&'static str, usize, usize)> {
    let wanted = std::env::var("GPUARRAYS_BENCH_SIZES").unwrap_or_else(|_| "1M,64M".into());
    let mut out = Vec::new();
    for w in wanted.split(',') {
        match w.trim() {
            // (label, rows, cols): square-ish 2-D shapes of the same element count.
            "1M" => out.push(("1M", 1024, 1024)),
            "64M" => out.push(("64M", 8192, 8192)),
            "" => {}
            other => panic!("GPUARRAYS_BENCH_SIZES: unknown size {other} (use 1M, 64M)"),
        }
    }
    out
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    if n >= 1 << 24 {
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(4));
    } else {
        group.sample_size(20);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(2));
    }
}

fn close(a: &[f32], b: &[f32], rel: f32) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let tol = rel * x.abs().max(y.abs()).max(1.0);
        assert!((x - y).abs() <= tol, "element {i}: {x} vs {y}");
    }
}

fn bench_fused(c: &mut Criterion, cpu: &CpuBackend) {
    for (label, rows, cols) in sizes() {
        let n = rows * cols;
        let (xs, ys) = (data(n, 1), data(n, 2));
        let x = Array::<f32, _>::from_slice(cpu, &[n], &xs).unwrap();
        let y = Array::<f32, _>::from_slice(cpu, &[n], &ys).unwrap();
        let mut out = Array::<f32, _>::zeros(cpu, &[n]).unwrap();
        let nx = Array1::from_vec(xs);
        let ny = Array1::from_vec(ys);
        let mut nout = Array1::<f32>::zeros(n);

        // Same results before timing.
        (x.ex() * A + y.ex()).max(0.0).eval_into(&mut out).unwrap();
        Zip::from(&mut nout)
            .and(&nx)
            .and(&ny)
            .par_for_each(|o, &x, &y| *o = (A * x + y).max(0.0));
        close(&out.to_vec().unwrap(), nout.as_slice().unwrap(), 0.0);

        let mut g = c.benchmark_group(format!("fused_axpy_relu/{label}"));
        configure(&mut g, n);
        // Two reads and one write of 4 bytes per element.
        g.throughput(Throughput::Bytes(12 * n as u64));
        g.bench_function("gpuarrays eval_into", |b| {
            b.iter(|| {
                (x.ex() * A + y.ex()).max(0.0).eval_into(&mut out).unwrap();
            })
        });
        g.bench_function("ndarray Zip::par_for_each", |b| {
            b.iter(|| {
                Zip::from(&mut nout)
                    .and(&nx)
                    .and(&ny)
                    .par_for_each(|o, &x, &y| *o = (A * x + y).max(0.0))
            })
        });
        g.bench_function("ndarray Zip::for_each (1 thread)", |b| {
            b.iter(|| {
                Zip::from(&mut nout)
                    .and(&nx)
                    .and(&ny)
                    .for_each(|o, &x, &y| *o = (A * x + y).max(0.0))
            })
        });
        g.finish();

        // The same expression into a new array each time: both sides allocate the output
        // and fault its pages in.
        let mut g = c.benchmark_group(format!("fused_axpy_relu_alloc/{label}"));
        configure(&mut g, n);
        g.throughput(Throughput::Bytes(12 * n as u64));
        g.bench_function("gpuarrays eval (allocates)", |b| {
            b.iter(|| black_box((x.ex() * A + y.ex()).max(0.0).eval::<f32>().unwrap()))
        });
        g.bench_function("ndarray Zip::par_map_collect (allocates)", |b| {
            b.iter(|| {
                black_box(
                    Zip::from(&nx)
                        .and(&ny)
                        .par_map_collect(|&x, &y| (A * x + y).max(0.0)),
                )
            })
        });
        g.finish();

        // A copy (one read, one write per element): what the memory system allows.
        let mut g = c.benchmark_group(format!("copy/{label}"));
        configure(&mut g, n);
        g.throughput(Throughput::Bytes(8 * n as u64));
        g.bench_function("ndarray Zip::par_for_each (o = x)", |b| {
            b.iter(|| Zip::from(&mut nout).and(&nx).par_for_each(|o, &x| *o = x))
        });
        g.bench_function("gpuarrays copy into", |b| {
            b.iter(|| out.assign(&x).unwrap())
        });
        g.finish();

        // In place on one array: y = max(a·y + b, 0). The values converge, so repeated runs
        // stay finite.
        let mut g = c.benchmark_group(format!("fused_inplace/{label}"));
        configure(&mut g, n);
        g.throughput(Throughput::Bytes(8 * n as u64));
        let mut yi = y.copy().unwrap();
        let mut nyi = ny.clone();
        g.bench_function("gpuarrays eval_into (in place)", |b| {
            b.iter(|| {
                let e = (yi.ex() * A + B).max(0.0);
                e.eval_into(&mut yi).unwrap();
            })
        });
        g.bench_function("ndarray par_map_inplace", |b| {
            b.iter(|| nyi.par_map_inplace(|v| *v = (A * *v + B).max(0.0)))
        });
        g.finish();
    }
}

fn bench_sum(c: &mut Criterion, cpu: &CpuBackend) {
    for (label, rows, cols) in sizes() {
        let n = rows * cols;
        let xs = data(n, 3);
        let x = Array::<f32, _>::from_slice(cpu, &[n], &xs).unwrap();
        let nx = Array1::from_vec(xs);
        let chunk = 1 << 16;
        let par_sum = |a: &Array1<f32>| -> f32 {
            a.axis_chunks_iter(Axis(0), chunk)
                .into_par_iter()
                .map(|c| c.sum())
                .sum()
        };
        let reference: f64 = nx.iter().map(|&v| v as f64).sum();
        let scale: f64 = nx.iter().map(|&v| v.abs() as f64).sum();
        for (who, v) in [("gpuarrays", x.sum().unwrap()), ("ndarray", par_sum(&nx))] {
            let err = (v as f64 - reference).abs();
            assert!(err <= 1e-4 * scale, "{who} sum {v} vs {reference}");
        }

        let mut g = c.benchmark_group(format!("sum/{label}"));
        configure(&mut g, n);
        g.throughput(Throughput::Bytes(4 * n as u64));
        g.bench_function("gpuarrays sum", |b| b.iter(|| black_box(x.sum().unwrap())));
        g.bench_function("ndarray par chunks sum", |b| {
            b.iter(|| black_box(par_sum(&nx)))
        });
        g.bench_function("ndarray sum (1 thread)", |b| b.iter(|| black_box(nx.sum())));
        g.finish();
    }
}

fn bench_axis(c: &mut Criterion, cpu: &CpuBackend) {
    for (label, rows, cols) in sizes() {
        let n = rows * cols;
        let xs = data(n, 4);
        let x = Array::<f32, _>::from_slice(cpu, &[rows, cols], &xs).unwrap();
        let nx = Array2::from_shape_vec((rows, cols), xs).unwrap();
        let threads = rayon::current_num_threads().max(1);
        // Column sums in parallel: partial sums over row blocks, then added.
        let par_axis0 = |a: &Array2<f32>| -> Array1<f32> {
            let block = a.nrows().div_ceil(4 * threads).max(1);
            a.axis_chunks_iter(Axis(0), block)
                .into_par_iter()
                .map(|c| c.sum_axis(Axis(0)))
                .reduce_with(|p, q| p + q)
                .unwrap()
        };
        // Row sums in parallel: one row per task.
        let par_axis1 = |a: &Array2<f32>| -> Array1<f32> {
            let mut out = Array1::<f32>::zeros(a.nrows());
            Zip::from(&mut out)
                .and(a.rows())
                .par_for_each(|o, r| *o = r.sum());
            out
        };
        close(
            &x.sum_axis(0).unwrap().to_vec().unwrap(),
            par_axis0(&nx).as_slice().unwrap(),
            1e-3,
        );
        close(
            &x.sum_axis(1).unwrap().to_vec().unwrap(),
            par_axis1(&nx).as_slice().unwrap(),
            1e-3,
        );

        for axis in [0usize, 1] {
            let mut g = c.benchmark_group(format!("sum_axis{axis}/{label} ({rows}x{cols})"));
            configure(&mut g, n);
            g.throughput(Throughput::Bytes(4 * n as u64));
            g.bench_function("gpuarrays sum_axis", |b| {
                b.iter(|| black_box(x.sum_axis(axis).unwrap()))
            });
            g.bench_function("ndarray par", |b| {
                b.iter(|| {
                    black_box(if axis == 0 {
                        par_axis0(&nx)
                    } else {
                        par_axis1(&nx)
                    })
                })
            });
            g.bench_function("ndarray sum_axis (1 thread)", |b| {
                b.iter(|| black_box(nx.sum_axis(Axis(axis))))
            });
            g.finish();
        }
    }
}

fn benches(c: &mut Criterion) {
    let cpu = CpuBackend::new();
    bench_fused(c, &cpu);
    bench_sum(c, &cpu);
    bench_axis(c, &cpu);
}

criterion_group!(cpu_vs_ndarray, benches);
criterion_main!(cpu_vs_ndarray);
