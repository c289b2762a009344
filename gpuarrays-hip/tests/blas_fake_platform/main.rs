//! Matrix products through the vendor BLAS path, on the platform test double, which computes
//! strided-batched column-major products on the host exactly as cuBLAS/rocBLAS define them:
//! the row-major mapping (operands swapped, leading dimensions, batch strides, broadcasting,
//! offsets) checked against the CPU reference; the handle rules (one per thread, cached
//! after the thread exits, ordered across streams, destroyed under their own device, evicted
//! on memory pressure); the routes (auto falls back to the kernel without a library, blas
//! refuses, kernel never asks the library); and the timer.

use std::sync::Arc;

use gpuarrays_core::{Array, Backend, Complex32, Complex64, Element, bf16, f16};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::blas::MatmulRoute;
use gpuarrays_hip::blas::thread_leases::leased_blas_handles;
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{BlasMath, BlasType, DeviceId};
use gpuarrays_hip::{HipBackend, HipRuntime, RuntimeConfig, with_stream};

mod handles_and_routes;
mod products;

fn fake_with(config: FakeConfig) -> (Arc<FakePlatform>, HipBackend) {
    let platform = Arc::new(FakePlatform::new(config));
    let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("fake runtime");
    let dir = std::env::temp_dir().join(format!("ga-blas-fake-{}", std::process::id()));
    let hip = HipBackend::with_runtime(rt, 0, DiskCache::at(dir)).expect("backend");
    (platform, hip)
}

fn fake() -> (Arc<FakePlatform>, HipBackend) {
    fake_with(FakeConfig {
        memory_per_device: 64 << 20,
        ..FakeConfig::default()
    })
}

/// Runs `f` on a new thread and waits until the thread has exited (its thread-locals, and so
/// its BLAS lease, are gone: `std::thread::scope` returns before that).
fn on_thread(f: impl FnOnce() + Send + 'static) {
    std::thread::spawn(f).join().expect("thread");
}

fn gemms(p: &FakePlatform) -> Vec<FakeOp> {
    p.log()
        .into_iter()
        .filter(|o| matches!(o, FakeOp::Gemm { .. }))
        .collect()
}

fn launches(p: &FakePlatform) -> usize {
    p.log()
        .iter()
        .filter(|o| matches!(o, FakeOp::Launch { .. }))
        .count()
}

/// Deterministic values in [-2, 2) with a fractional part, distinct per position and seed.
fn values(n: usize, seed: u32) -> Vec<f64> {
    (0..n)
        .map(|i| {
            ((i as u32)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(seed * 97)
                % 4096) as f64
                / 1024.0
                - 2.0
        })
        .collect()
}

trait Sample: Element {
    fn sample(n: usize, seed: u32) -> Vec<Self>;
    fn close(a: Self, b: Self, k: usize) -> bool;
}

/// Within (k + 2) rounding errors of the largest possible sum of k products of values
/// below 2 in magnitude (4k): the bound of any summation order.
fn near(a: f64, b: f64, k: usize, eps: f64) -> bool {
    (a - b).abs() <= near_bound(k, eps)
}

impl Sample for f32 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed).into_iter().map(|v| v as f32).collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near(a as f64, b as f64, k, f32::EPSILON as f64)
    }
}
impl Sample for f64 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed)
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near(a, b, k, f64::EPSILON)
    }
}
impl Sample for Complex32 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        let (re, im) = (values(n, seed), values(n, seed + 1));
        re.iter()
            .zip(&im)
            .map(|(&r, &i)| Complex32::new(r as f32, i as f32))
            .collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        f32::close(a.re, b.re, 2 * k) && f32::close(a.im, b.im, 2 * k)
    }
}
impl Sample for Complex64 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        let (re, im) = (values(n, seed), values(n, seed + 1));
        re.iter()
            .zip(&im)
            .map(|(&r, &i)| Complex64::new(r, i))
            .collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        f64::close(a.re, b.re, 2 * k) && f64::close(a.im, b.im, 2 * k)
    }
}

/// The half types: both sides sum in f32 (in any order) and round once, so the results may
/// differ by the f32 sums' difference plus one rounding of the half type.
fn near_half(a: f32, b: f32, k: usize, half_eps: f32) -> bool {
    let one_rounding = half_eps * a.abs().max(b.abs());
    (a - b).abs() <= near_bound(k, f32::EPSILON as f64) as f32 + one_rounding
}

fn near_bound(k: usize, eps: f64) -> f64 {
    let k = k as f64;
    (k + 2.0) * eps * 4.0 * k.max(1.0)
}

impl Sample for f16 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed).into_iter().map(f16::from_f64).collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near_half(a.to_f32(), b.to_f32(), k, f16::EPSILON.to_f32())
    }
}
impl Sample for bf16 {
    fn sample(n: usize, seed: u32) -> Vec<Self> {
        values(n, seed).into_iter().map(bf16::from_f64).collect()
    }
    fn close(a: Self, b: Self, k: usize) -> bool {
        near_half(a.to_f32(), b.to_f32(), k, bf16::EPSILON.to_f32())
    }
}

/// `a · b` on the double's BLAS and on the CPU reference, for the shapes given.
fn check_product<T: Sample + std::fmt::Debug>(hip: &HipBackend, da: &[usize], db: &[usize]) {
    let cpu = CpuBackend::new();
    let (na, nb) = (da.iter().product(), db.iter().product());
    let (va, vb) = (T::sample(na, 1), T::sample(nb, 7));
    let got = Array::<T, _>::from_slice(hip, da, &va)
        .and_then(|a| a.matmul(&Array::from_slice(hip, db, &vb)?))
        .and_then(|c| Ok((c.dims().to_vec(), c.to_vec()?)))
        .expect("hip matmul");
    let want = Array::<T, _>::from_slice(&cpu, da, &va)
        .and_then(|a| a.matmul(&Array::from_slice(&cpu, db, &vb)?))
        .and_then(|c| Ok((c.dims().to_vec(), c.to_vec()?)))
        .expect("cpu matmul");
    assert_eq!(got.0, want.0, "{da:?}·{db:?} dims");
    let k = da[da.len() - 1];
    for (i, (g, w)) in got.1.iter().zip(&want.1).enumerate() {
        assert!(T::close(*g, *w, k), "{da:?}·{db:?} [{i}]: {g:?} vs {w:?}");
    }
}

const SHAPES: &[(&[usize], &[usize])] = &[
    (&[3, 4], &[4, 5]),
    (&[1, 1], &[1, 1]),
    (&[7, 13], &[13, 5]),
    (&[33, 65], &[65, 17]),
    (&[2, 3, 4], &[2, 4, 5]),
    (&[1, 3, 4], &[3, 4, 2]),
    (&[3, 3, 4], &[1, 4, 2]),
    (&[3, 4], &[2, 4, 5]),
    (&[2, 3, 4], &[4, 5]),
    (&[5, 1], &[1, 6]),
    (&[1, 9], &[9, 1]),
];
