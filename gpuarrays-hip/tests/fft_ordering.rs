//! FFTs under the ordering protocol, on the test double's race detector: a transform still in
//! flight on one thread's stream orders a later write of its input, the free and reuse of its
//! output, and the free and reuse of its work area by other threads; and the detector does see
//! the transform's accesses (a transform enqueued on another stream with no ordering is
//! flagged), so the first test can fail.

mod common;

use common::*;
use gpuarrays_core::kernel::{ElementwiseArgs, Instr, Node, Operand, Program};
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind, FftLayout};
use gpuarrays_core::{Backend, DType, Scalar};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{Completion, FakeConfig, FakePlatform};
use gpuarrays_hip::platform::{FftLibrary, FftPlanDesc, Platform};
use gpuarrays_hip::{HipBackend, HipBuffer, RuntimeConfig};
use std::sync::{Arc, mpsc};

/// Points of the transform (complex f64: 16 bytes each).
const N: usize = 1024;

fn fake() -> (Harness, Arc<FakePlatform>, HipBackend) {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let b = HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).expect("backend");
    (h, f, b)
}

fn c2c<'a>(input: &'a HipBuffer, output: &'a HipBuffer) -> FftArgs<'a, HipBuffer> {
    FftArgs {
        kind: FftKind::C2C,
        direction: FftDirection::Forward,
        real: DType::F64,
        lengths: vec![N],
        batch: 1,
        input,
        input_layout: FftLayout::contiguous(0, N),
        output,
        output_layout: FftLayout::contiguous(0, N),
    }
}

/// `out[..n] = k` as f32 (a write of `out`).
fn fill(b: &HipBackend, out: &HipBuffer, n: usize, k: f32) {
    let program = Program {
        inputs: vec![],
        scalars: vec![DType::F32],
        instrs: vec![Instr {
            node: Node::Scalar(0),
            dtype: DType::F32,
        }],
    };
    b.elementwise(
        &program,
        &ElementwiseArgs {
            shape: &[n],
            inputs: &[],
            scalars: &[Scalar::F32(k)],
            output: Operand {
                buffer: out,
                dtype: DType::F32,
                offset: 0,
                strides: &[1],
            },
        },
    )
    .expect("fill");
}

fn assert_no_races(f: &FakePlatform) {
    let races = f.races();
    assert!(
        races.is_empty(),
        "{} race(s):\n{}",
        races.len(),
        races.join("\n")
    );
}

/// A transform held in flight on one thread's stream; meanwhile other threads write its
/// input, free its output and the work area, and reuse both blocks at once. Every one of
/// those must be ordered after the transform.
#[test]
fn a_transform_in_flight_orders_later_writes_and_frees_of_its_operands() {
    let (h, f, b) = fake();
    let x = Arc::new(b.alloc(N * 16).unwrap());
    let y = b.alloc(N * 16).unwrap();
    fill(&b, &x, N * 4, 1.0);
    b.synchronize().unwrap();
    let y = Arc::new(y);
    let (held_tx, held_rx) = mpsc::channel();
    let (end_tx, end_rx) = mpsc::channel::<()>();
    let fft_thread = {
        let (b, x, y, rt, f) = (b.clone(), x.clone(), y.clone(), h.rt.clone(), f.clone());
        std::thread::spawn(move || {
            let s = rt.stream(D0).unwrap();
            let hold = f.hold(s.handle(), Completion::Manual);
            b.fft(&c2c(&x, &y)).expect("fft");
            drop((x, y));
            held_tx.send(hold).unwrap();
            end_rx.recv().unwrap();
        })
    };
    let hold = held_rx.recv().unwrap();
    let areas = b.fft_state().work_areas().bytes();
    assert!(areas > 0, "the transform took a work area");
    // Another thread writes the input while the transform may still read it.
    {
        let (b, x) = (b.clone(), x.clone());
        std::thread::spawn(move || fill(&b, &x, N * 4, 2.0))
            .join()
            .unwrap();
    }
    // The output and the work area are freed here, and their sizes allocated and written by
    // another thread at once.
    let y = Arc::try_unwrap(y).expect("last holder of the output");
    b.release(y);
    assert_eq!(b.fft_state().work_areas().release(), areas);
    {
        let b = b.clone();
        std::thread::spawn(move || {
            for bytes in [N * 16, areas] {
                let z = b.alloc(bytes).unwrap();
                fill(&b, &z, bytes / 4, 3.0);
            }
        })
        .join()
        .unwrap();
    }
    assert_no_races(&f);
    f.complete(hold);
    end_tx.send(()).unwrap();
    fft_thread.join().unwrap();
    b.synchronize().unwrap();
    assert_no_races(&f);
}

/// The control: a transform enqueued straight on the platform, on a second stream with no
/// wait for the write of its input in flight on the first, is reported as a race.
#[test]
fn the_double_reports_a_transform_unordered_against_another_streams_write() {
    let (h, f, b) = fake();
    let x = b.alloc(N * 16).unwrap();
    let y = b.alloc(N * 16).unwrap();
    b.synchronize().unwrap();
    let s = h.rt.stream(D0).unwrap();
    let hold = f.hold(s.handle(), Completion::Manual);
    fill(&b, &x, N * 4, 1.0);
    let other = f.create_stream(D0, 0).unwrap();
    let desc = FftPlanDesc::from_args(&c2c(&x, &y));
    let plan = f.fft_plan_create(D0, &desc).unwrap();
    let work = f.alloc_async(plan.work_bytes, other).unwrap();
    // SAFETY: x and y hold N complex f64 each as `desc` says, `work` the plan's work bytes;
    // all live until the end of the test, after the stream's work completed.
    unsafe {
        f.fft_execute(
            plan.handle,
            &desc,
            x.ptr(),
            y.ptr(),
            work,
            plan.work_bytes,
            other,
        )
    }
    .unwrap();
    let races = f.races();
    assert!(
        races.iter().any(|r| r.contains("fft (read)")),
        "the unordered read of the input is not reported: {races:?}"
    );
    f.complete(hold);
    f.complete_all();
    f.synchronize_stream(other).unwrap();
    b.synchronize().unwrap();
}
