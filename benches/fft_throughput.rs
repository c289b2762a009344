//! FFT throughput on a HIP device, side by side with raw cuFFT on the same transform (this
//! program calls cuFFT itself through cudarc: one plan, auto-allocated work area, one stream),
//! plus the host cost of a plan-cache hit and of a whole cached FFT call. PyTorch and CuPy run
//! the same cases in `benches/fft_torch_cupy.py`; `benches/fft_plot.py` joins the outputs.
//!
//! ```text
//! .gpu/bin/bench-fft_throughput | tee $OUT/fft_throughput.csv
//! python3 benches/fft_torch_cupy.py | tee $OUT/fft_torch_cupy.csv
//! ```
//!
//! Cases: c2c c32 2^24 (1-D), c2c c32 4096² (2-D), c2c c32 1024 × 4096 (batched rows), r2c
//! f32 2^24, c2c c32 of the prime length 999983, c2c c64 2^24 (double). Each figure is the
//! median over 15 repetitions of (wall time of 20 back-to-back transforms, between stream
//! synchronisations) / 20. Ours is the public API (`x.fft(...)`, a new output array per call
//! from the stream-ordered pool); raw cuFFT writes into one preallocated output. `GB/s` counts
//! input + output bytes once; `copy GB/s` is a device copy of the input's bytes.
//!
//! Output: CSV lines `fft,<impl>,<case>,<ms>,<GB/s>` and `host,<what>,<µs>`, plus a check that
//! ours and raw cuFFT agree on every case.

use gpuarrays_core::bench_stats::{Plan, Wait, median, sample};
use std::sync::Arc;

use cudarc::cufft::sys::cufftType;
use cudarc::cufft::{CudaFft, FftDirection as CuDir};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind, FftLayout};
use gpuarrays_core::{Array, Backend, Complex32, Complex64, DType, FftNorm, RawArray};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::platform::FftPlanDesc;

const REPS: usize = 15;
const K: usize = 20;

/// Median seconds per call of `f`, `K` calls between synchronisations by `sync`.
fn time(f: impl FnMut(), sync: &dyn Fn()) -> f64 {
    let plan = Plan {
        warmup: 3,
        samples: REPS,
        calls: K,
        wait: Wait::Inside,
    };
    median(sample(plan, f, sync))
}

/// One benchmark case.
struct Case {
    name: &'static str,
    dims: Vec<usize>,
    /// c2c on c32, c2c on c64, or r2c from f32.
    kind: &'static str,
}

fn cases() -> Vec<Case> {
    let c = |name, dims: &[usize], kind| Case {
        name,
        dims: dims.to_vec(),
        kind,
    };
    vec![
        c("c2c_c32_2^24", &[1 << 24], "c32"),
        c("c2c_c32_4096x4096", &[4096, 4096], "c32"),
        c("c2c_c32_batch1024x4096", &[1024, 4096], "c32"),
        c("r2c_f32_2^24", &[1 << 24], "r2c"),
        c("c2c_c32_prime999983", &[999_983], "c32"),
        c("c2c_c64_2^24", &[1 << 24], "c64"),
    ]
}

fn signal(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i % 1013) as f32 * 0.01).sin()).collect()
}

/// Ours: the transform of the case through the public API.
fn ours(case: &Case, x: &RawArray<HipBackend>) -> RawArray<HipBackend> {
    let norm = FftNorm::Backward;
    let r = match (case.kind, case.dims.len(), case.name.contains("batch")) {
        ("r2c", _, _) => x.rfft(None, 0, norm),
        (_, 2, false) => x.fft2(None, None, norm),
        (_, 2, true) => x.fft(None, 1, norm),
        _ => x.fft(None, 0, norm),
    };
    r.unwrap_or_else(|e| panic!("{}: {e}", case.name))
}

/// Raw cuFFT: one plan for the case on `stream`, input and output buffers.
enum Raw {
    C32(
        CudaFft,
        CudaSlice<cudarc::cufft::sys::float2>,
        CudaSlice<cudarc::cufft::sys::float2>,
    ),
    C64(
        CudaFft,
        CudaSlice<cudarc::cufft::sys::double2>,
        CudaSlice<cudarc::cufft::sys::double2>,
    ),
    R2C(
        CudaFft,
        CudaSlice<f32>,
        CudaSlice<cudarc::cufft::sys::float2>,
    ),
}

fn raw(case: &Case, stream: &Arc<CudaStream>, host: &[f32]) -> Raw {
    let n: usize = case.dims.iter().product();
    let batched = case.name.contains("batch");
    let (lens, batch): (Vec<i32>, i32) = if batched {
        (vec![case.dims[1] as i32], case.dims[0] as i32)
    } else {
        (case.dims.iter().map(|&d| d as i32).collect(), 1)
    };
    let per: i32 = lens.iter().product();
    let plan = |t: cufftType, odist: i32| {
        CudaFft::plan_many(
            &lens,
            None,
            1,
            per,
            None,
            1,
            odist,
            t,
            batch,
            stream.clone(),
        )
        .unwrap_or_else(|e| panic!("cuFFT plan {}: {e:?}", case.name))
    };
    let f2 = |re: f32| cudarc::cufft::sys::float2 { x: re, y: 0.5 * re };
    let d2 = |re: f32| cudarc::cufft::sys::double2 {
        x: re as f64,
        y: 0.5 * re as f64,
    };
    match case.kind {
        "c32" => {
            let input: Vec<_> = host.iter().map(|&v| f2(v)).collect();
            Raw::C32(
                plan(cufftType::CUFFT_C2C, per),
                stream.clone_htod(&input).expect("upload"),
                stream.alloc_zeros(n).expect("alloc"),
            )
        }
        "c64" => {
            let input: Vec<_> = host.iter().map(|&v| d2(v)).collect();
            Raw::C64(
                plan(cufftType::CUFFT_Z2Z, per),
                stream.clone_htod(&input).expect("upload"),
                stream.alloc_zeros(n).expect("alloc"),
            )
        }
        _ => Raw::R2C(
            plan(cufftType::CUFFT_R2C, per / 2 + 1),
            stream.clone_htod(host).expect("upload"),
            stream.alloc_zeros(n / 2 + 1).expect("alloc"),
        ),
    }
}

impl Raw {
    fn exec(&mut self) {
        let r = match self {
            Raw::C32(p, i, o) => p.exec_c2c(i, o, CuDir::Forward),
            Raw::C64(p, i, o) => p.exec_z2z(i, o, CuDir::Forward),
            Raw::R2C(p, i, o) => p.exec_r2c(i, o),
        };
        r.expect("cuFFT exec");
    }

    /// The output as (re, im) pairs in f64.
    fn output(&self, stream: &Arc<CudaStream>) -> Vec<(f64, f64)> {
        match self {
            Raw::C32(_, _, o) | Raw::R2C(_, _, o) => stream
                .clone_dtoh(o)
                .expect("download")
                .iter()
                .map(|c| (c.x as f64, c.y as f64))
                .collect(),
            Raw::C64(_, _, o) => stream
                .clone_dtoh(o)
                .expect("download")
                .iter()
                .map(|c| (c.x, c.y))
                .collect(),
        }
    }
}

fn input(hip: &HipBackend, case: &Case, host: &[f32]) -> RawArray<HipBackend> {
    match case.kind {
        "c32" => {
            let v: Vec<Complex32> = host.iter().map(|&r| Complex32::new(r, 0.5 * r)).collect();
            Array::from_slice(hip, &case.dims, &v).map(Array::into_raw)
        }
        "c64" => {
            let v: Vec<Complex64> = host
                .iter()
                .map(|&r| Complex64::new(r as f64, 0.5 * r as f64))
                .collect();
            Array::from_slice(hip, &case.dims, &v).map(Array::into_raw)
        }
        _ => Array::from_slice(hip, &case.dims, host).map(Array::into_raw),
    }
    .expect("upload")
}

fn as_pairs(a: &RawArray<HipBackend>) -> Vec<(f64, f64)> {
    let bytes = a.to_bytes().expect("download");
    match a.dtype() {
        DType::C32 => bytemuck_pairs::<f32>(&bytes)
            .map(|(r, i)| (r as f64, i as f64))
            .collect(),
        _ => bytemuck_pairs::<f64>(&bytes).collect(),
    }
}

fn bytemuck_pairs<T: Copy + Into<f64>>(bytes: &[u8]) -> impl Iterator<Item = (T, T)> + '_ {
    let size = std::mem::size_of::<T>();
    bytes.chunks_exact(2 * size).map(move |c| {
        let read = |b: &[u8]| -> T {
            // SAFETY: `b` holds exactly size_of::<T>() bytes of a plain float; read unaligned.
            unsafe { std::ptr::read_unaligned(b.as_ptr().cast::<T>()) }
        };
        (read(&c[..size]), read(&c[size..]))
    })
}

/// Largest |ours − raw| relative to the largest |raw|.
fn agreement(ours: &[(f64, f64)], raw: &[(f64, f64)]) -> f64 {
    let scale = raw.iter().map(|c| c.0.hypot(c.1)).fold(1e-300, f64::max);
    ours.iter()
        .zip(raw)
        .map(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1))
        .fold(0.0, f64::max)
        / scale
}

fn main() {
    let hip = match HipBackend::new(0) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("fft_throughput: no HIP device ({e}); nothing to measure");
            if std::env::var("GPUARRAYS_REQUIRE_GPU").as_deref() == Ok("1") {
                std::process::exit(1);
            }
            return;
        }
    };
    let ctx = CudaContext::new(0).expect("cudarc context (raw cuFFT needs the NVIDIA platform)");
    let stream = ctx.new_stream().expect("stream");
    let sync_ours = || hip.synchronize().expect("sync");
    let sync_raw = || stream.synchronize().expect("sync");
    println!("# device {hip:?}");
    println!("# fft,impl,case,ms,GB/s   (GB/s: input + output bytes once)");
    let mut ok = true;
    for case in cases() {
        let n: usize = case.dims.iter().product();
        let host = signal(n);
        let x = input(&hip, &case, &host);
        let in_bytes = n * x.dtype().size();
        let out = ours(&case, &x);
        let out_bytes = out.len() * out.dtype().size();
        let gbs = |t: f64| (in_bytes + out_bytes) as f64 / t / 1e9;
        let mut r = raw(&case, &stream, &host);
        r.exec();
        sync_raw();
        let err = agreement(&as_pairs(&out), &r.output(&stream));
        let tol = if case.kind == "c64" { 1e-12 } else { 1e-5 };
        println!(
            "# {}: ours vs raw cuFFT, largest difference {err:.2e} of max |X| (limit {tol:.0e})",
            case.name
        );
        ok &= err <= tol;
        drop(out);
        let t_ours = time(|| drop(ours(&case, &x)), &sync_ours);
        let t_raw = time(|| r.exec(), &sync_raw);
        let t_copy = time(|| drop(x.copy().expect("copy")), &sync_ours);
        println!(
            "fft,ours,{},{:.4},{:.0}",
            case.name,
            t_ours * 1e3,
            gbs(t_ours)
        );
        println!(
            "fft,cufft,{},{:.4},{:.0}",
            case.name,
            t_raw * 1e3,
            gbs(t_raw)
        );
        println!(
            "ratio,{},ours/cufft,{:.3},fft GB/s / copy GB/s,{:.2}",
            case.name,
            t_ours / t_raw,
            gbs(t_ours) / (2.0 * in_bytes as f64 / t_copy / 1e9)
        );
    }
    host_costs(&hip);
    if !ok {
        eprintln!("fft_throughput: ours and raw cuFFT disagree (see above)");
        std::process::exit(1);
    }
}

/// Host cost of a plan-cache hit (lease + return, no GPU work), and of a whole cached FFT
/// call on a tiny transform (enqueue only: 2000 calls, then one synchronisation).
fn host_costs(hip: &HipBackend) {
    let x = Array::<Complex32, _>::from_vec(hip, vec![Complex32::new(1.0, 0.0); 256]).expect("x");
    let y = Array::<Complex32, _>::zeros(hip, &[256]).expect("y");
    let (xb, yb) = (
        x.raw().buffer().expect("buffer"),
        y.raw().buffer().expect("buffer"),
    );
    let args = FftArgs {
        kind: FftKind::C2C,
        direction: FftDirection::Forward,
        real: DType::F32,
        lengths: vec![256],
        batch: 1,
        input: &*xb,
        input_layout: FftLayout::contiguous(0, 256),
        output: &*yb,
        output_layout: FftLayout::contiguous(0, 256),
    };
    hip.fft(&args).expect("warm");
    let desc = FftPlanDesc::from_args(&args);
    let cache = hip.fft_state().plan_cache();
    let n = 200_000;
    let hits = sample(
        Plan {
            warmup: 0,
            samples: 5,
            calls: n,
            wait: Wait::Inside,
        },
        || drop(cache.lease(&desc, || {}).expect("lease")),
        || {},
    );
    println!(
        "host,plan cache hit (lease + return),{:.3}",
        median(hits) * 1e6
    );
    let calls = 2000;
    let enqueue = |f: &dyn Fn()| {
        let plan = Plan {
            warmup: 0,
            samples: 7,
            calls,
            wait: Wait::Outside,
        };
        median(sample(plan, f, || hip.synchronize().expect("sync")))
    };
    let kernel = enqueue(&|| hip.fft(&args).expect("fft"));
    println!(
        "host,Backend::fft enqueue (256-point c2c),{:.3}",
        kernel * 1e6
    );
    let api = enqueue(&|| drop(x.fft(None, 0, FftNorm::Backward).expect("fft")));
    println!(
        "host,x.fft() enqueue incl. output allocation (256-point c2c),{:.3}",
        api * 1e6
    );
    println!("# plan cache {:?}", cache.stats());
}
