//! Graph capture and the runtime's own memory: what is allocated while a stream captures
//! belongs to that capture (freed inside the graph, never kept for work outside it), the
//! process-wide count of running captures follows each capture's real life, and frees that
//! waited for a capture are done when it ends. Double and, where present, GPU.
//!
//! The tests take one lock: the capture count is process-wide, and the tests of this binary
//! begin and end captures.

mod common;

use common::*;
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind, FftLayout};
use gpuarrays_core::{Backend, Complex32, Complex64, DType};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::CaptureMode;
use gpuarrays_hip::platform::test_double::FakeOp;
use gpuarrays_hip::stream::active_captures;
use gpuarrays_hip::{HipBackend, HipBuffer, StreamPriority};
use std::sync::{Arc, Mutex, MutexGuard};

fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The direct DFT of `x` (forward).
fn dft(x: &[Complex64]) -> Vec<Complex64> {
    let n = x.len();
    (0..n)
        .map(|k| {
            (0..n)
                .map(|j| {
                    let a = -std::f64::consts::TAU * ((j * k) % n) as f64 / n as f64;
                    x[j] * Complex64::from_polar(1.0, a)
                })
                .sum()
        })
        .collect()
}

fn signal(n: usize) -> Vec<Complex64> {
    (0..n)
        .map(|i| Complex64::new((i as f64 * 0.37).sin(), (i as f64 * 0.11).cos()))
        .collect()
}

fn bytes_of<T: Copy>(v: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(v);
    // SAFETY: `v` is `n` initialised bytes of plain numbers (Complex64, f32, Complex32).
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), n) }.to_vec()
}

fn read_c64(hip: &HipBackend, b: &HipBuffer, n: usize) -> Vec<Complex64> {
    let mut raw = vec![0u8; n * 16];
    hip.read(b, 0, &mut raw).unwrap();
    raw.chunks_exact(16)
        .map(|c| {
            let f = |i: usize| f64::from_le_bytes(c[i..i + 8].try_into().unwrap());
            Complex64::new(f(0), f(8))
        })
        .collect()
}

fn read_c32(hip: &HipBackend, b: &HipBuffer, n: usize) -> Vec<Complex32> {
    let mut raw = vec![0u8; n * 8];
    hip.read(b, 0, &mut raw).unwrap();
    raw.chunks_exact(8)
        .map(|c| {
            let f = |i: usize| f32::from_le_bytes(c[i..i + 4].try_into().unwrap());
            Complex32::new(f(0), f(4))
        })
        .collect()
}

/// Points per transform.
const N: usize = 64;

/// The transforms of one test: a C2C in f64 (work area), and an R2C in f32 whose input
/// starts one element into its buffer (misaligned for cuFFT: the runtime gives it an
/// aligned copy, a temporary buffer).
struct Transforms {
    x: HipBuffer,
    real: HipBuffer,
    x_host: Vec<Complex64>,
    real_host: Vec<f32>,
}

impl Transforms {
    fn new(hip: &HipBackend) -> Transforms {
        let x_host = signal(N);
        let real_host: Vec<f32> = (0..=N).map(|i| (i as f32 * 0.29).cos()).collect();
        let x = hip.alloc(N * 16).unwrap();
        hip.write(&x, 0, &bytes_of(&x_host)).unwrap();
        let real = hip.alloc((N + 1) * 4).unwrap();
        hip.write(&real, 0, &bytes_of(&real_host)).unwrap();
        Transforms {
            x,
            real,
            x_host,
            real_host,
        }
    }

    fn c2c<'a>(&'a self, out: &'a HipBuffer) -> FftArgs<'a, HipBuffer> {
        FftArgs {
            kind: FftKind::C2C,
            direction: FftDirection::Forward,
            real: DType::F64,
            lengths: vec![N],
            batch: 1,
            input: &self.x,
            input_layout: FftLayout::contiguous(0, N),
            output: out,
            output_layout: FftLayout::contiguous(0, N),
        }
    }

    fn r2c<'a>(&'a self, out: &'a HipBuffer) -> FftArgs<'a, HipBuffer> {
        FftArgs {
            kind: FftKind::R2C,
            direction: FftDirection::Forward,
            real: DType::F32,
            lengths: vec![N],
            batch: 1,
            input: &self.real,
            input_layout: FftLayout::contiguous(1, N),
            output: out,
            output_layout: FftLayout::contiguous(0, N / 2 + 1),
        }
    }

    fn check_c2c(&self, name: &str, got: &[Complex64]) {
        for (k, (g, w)) in got.iter().zip(dft(&self.x_host)).enumerate() {
            assert!((g - w).norm() < 1e-9, "[{name}] c2c bin {k}: {g} vs {w}");
        }
    }

    fn check_r2c(&self, name: &str, got: &[Complex32]) {
        let x: Vec<Complex64> = self.real_host[1..]
            .iter()
            .map(|&r| Complex64::new(r as f64, 0.0))
            .collect();
        for (k, (g, w)) in got.iter().zip(dft(&x)).take(N / 2 + 1).enumerate() {
            let g = Complex64::new(g.re as f64, g.im as f64);
            assert!((g - w).norm() < 1e-3, "[{name}] r2c bin {k}: {g} vs {w}");
        }
    }
}

/// FFTs inside a capture: their work area and the input's aligned copy are allocated inside
/// the graph and freed inside it (so the graph can be launched again and again), and an FFT
/// outside the graph after the capture — before the graph ever ran — uses memory of its own,
/// not the capture's.
#[test]
fn memory_allocated_in_a_capture_is_freed_in_it_and_never_used_outside() {
    let _serial = serial();
    for h in default_harnesses() {
        let hip = HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).unwrap();
        let t = Arc::new(Transforms::new(&hip));
        let (y, z, y_after) = (
            hip.alloc(N * 16).unwrap(),
            hip.alloc((N / 2 + 1) * 8).unwrap(),
            hip.alloc(N * 16).unwrap(),
        );
        // The plans are made first, on another thread (creating a plan allocates, which a
        // capture does not allow): this thread's stream has no work area yet.
        {
            let (hip, t) = (hip.clone(), t.clone());
            on_thread(move || {
                let (a, b) = (
                    hip.alloc(N * 16).unwrap(),
                    hip.alloc((N / 2 + 1) * 8).unwrap(),
                );
                hip.fft(&t.c2c(&a)).unwrap();
                hip.fft(&t.r2c(&b)).unwrap();
                hip.synchronize().unwrap();
            });
        }
        let s = hip.device_state().thread_stream().unwrap();
        s.synchronize().unwrap();
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        hip.fft(&t.c2c(&y)).expect("c2c captured");
        hip.fft(&t.r2c(&z)).expect("r2c captured");
        let g = s.end_capture().expect("the capture is valid");
        if let Some(f) = &h.fake {
            let ops = f.graph_ops(g);
            let count = |alloc: bool| {
                ops.iter()
                    .filter(|op| match op {
                        FakeOp::Alloc { .. } => alloc,
                        FakeOp::Free { .. } => !alloc,
                        _ => false,
                    })
                    .count()
            };
            assert!(count(true) >= 2, "work area and input copy: {ops:?}");
            assert_eq!(
                count(true),
                count(false),
                "the graph frees what it allocates: {ops:?}"
            );
        }
        // Outside the graph, before it ran: memory of its own.
        hip.fft(&t.c2c(&y_after))
            .expect("an FFT after the capture uses no memory of the graph");
        t.check_c2c(h.name, &read_c64(&hip, &y_after, N));
        let p = h.rt.platform();
        p.bind_device(D0).unwrap();
        let exec = p.instantiate_graph(g).unwrap();
        for launch in 0..2 {
            p.launch_graph(exec, s.handle())
                .unwrap_or_else(|e| panic!("[{}] launch {launch}: {e}", h.name));
        }
        s.synchronize().unwrap();
        t.check_c2c(h.name, &read_c64(&hip, &y, N));
        t.check_r2c(h.name, &read_c32(&hip, &z, N / 2 + 1));
        p.destroy_graph_exec(exec).unwrap();
        p.destroy_graph(g).unwrap();
        assert_eq!(
            hip.device_state().memory().stats().deferred_frees,
            0,
            "[{}]",
            h.name
        );
    }
}

/// A stream dropped while it captures ends its capture: the count of running captures goes
/// back (else nothing would synchronise a device again for the rest of the process).
#[test]
fn dropping_a_capturing_stream_ends_the_capture_and_its_count() {
    let _serial = serial();
    for h in default_harnesses() {
        let before = active_captures();
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        assert_eq!(active_captures(), before + 1, "[{}]", h.name);
        drop(s);
        assert_eq!(active_captures(), before, "[{}] the count leaked", h.name);
    }
}

/// A capture ended through the platform directly (behind the stream's back) stops counting
/// as soon as the stream is asked whether it captures.
#[test]
fn a_capture_ended_behind_the_streams_back_stops_counting() {
    let _serial = serial();
    for h in default_harnesses() {
        let before = active_captures();
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        let g = h.rt.platform().end_capture(s.handle()).unwrap();
        assert!(!s.is_capturing().unwrap(), "[{}]", h.name);
        assert_eq!(active_captures(), before, "[{}] the count leaked", h.name);
        h.rt.platform().destroy_graph(g).unwrap();
    }
}

/// `end_capture` on a thread other than the capturing one fails (global and thread-local
/// captures end on their own thread), and the driver ends the capture all the same (CUDA
/// driver 580 on the H200 reports no capture afterwards; the test double does the same):
/// the capture stops counting at once, and a second `end_capture` finds nothing to end.
#[test]
fn a_capture_ended_on_the_wrong_thread_fails_and_stops_counting() {
    let _serial = serial();
    for h in default_harnesses() {
        let before = active_captures();
        let s = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        assert_eq!(active_captures(), before + 1, "[{}]", h.name);
        let other = s.clone();
        let r = on_thread(move || other.end_capture().map(|_| ()));
        assert!(r.is_err(), "[{}] ended on another thread: {r:?}", h.name);
        assert_eq!(active_captures(), before, "[{}] the count leaked", h.name);
        assert!(!s.is_capturing().unwrap(), "[{}]", h.name);
        assert!(s.end_capture().is_err(), "[{}]", h.name);
        assert_eq!(active_captures(), before, "[{}]", h.name);
    }
}

/// A free that had to wait for a capture (the buffer's last use is on the capturing stream)
/// is done when the capture ends, not at some later allocation or free.
#[test]
fn frees_deferred_by_a_capture_are_done_when_it_ends() {
    let _serial = serial();
    for h in default_harnesses() {
        let d = h.rt.device(D0).unwrap().clone();
        let owner = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let buf = d.alloc_on(4096, &owner).unwrap();
        assert!(d.memory().stats().in_use_bytes > 0);
        owner.begin_capture(CaptureMode::ThreadLocal).unwrap();
        let rt = h.rt.clone();
        on_thread(move || {
            let caller = rt.stream(D0).unwrap();
            buf.free_on(&caller).unwrap();
        });
        assert_eq!(d.memory().stats().deferred_frees, 1, "[{}]", h.name);
        let g = owner.end_capture().unwrap();
        let st = d.memory().stats();
        assert_eq!(
            (st.deferred_frees, st.in_use_bytes),
            (0, 0),
            "[{}] {st:?}",
            h.name
        );
        h.rt.platform().destroy_graph(g).unwrap();
    }
}
