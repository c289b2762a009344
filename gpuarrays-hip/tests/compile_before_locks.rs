//! Every kernel path compiles before the ordering protocol locks its operands: the tiled
//! transpose copy, the register sort of short rows, the radix sorts (one block per row,
//! onesweep) and the single-pass scan.
//! An operation is held in its compilation (the test double's compile gate) while another
//! thread writes the same buffer; that writer must finish meanwhile. A path that compiled
//! inside `enqueue` would hold the buffer's lock across the compilation and the writer would
//! wait for it.

mod common;

use common::*;
use gpuarrays_core::kernel::{
    ElementwiseArgs, Instr, Node, Operand, Program, ScanArgs, ScanOp, SortArgs,
};
use gpuarrays_core::{Backend, DType, Scalar};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakePlatform};
use gpuarrays_hip::{HipBackend, HipBuffer, RuntimeConfig};
use std::sync::{Arc, mpsc};
use std::time::Duration;

fn fake() -> (Harness, Arc<FakePlatform>, HipBackend) {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let b = HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).expect("backend");
    (h, f, b)
}

fn f32_op<'a>(buffer: &'a HipBuffer, strides: &'a [isize]) -> Operand<'a, HipBuffer> {
    Operand {
        buffer,
        dtype: DType::F32,
        offset: 0,
        strides,
    }
}

/// `out[..n] = k` (a write of `out`).
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
            output: f32_op(out, &[1]),
        },
    )
    .expect("fill");
}

/// Runs `op` on `x` (of `n` f32) on one thread with its compilation held, and a write of `x`
/// on another meanwhile; the write must not wait for the compilation.
fn the_writer_does_not_wait_for(
    n: usize,
    op: impl FnOnce(&HipBackend, &HipBuffer) + Send + 'static,
) {
    let (_h, f, b) = fake();
    let x = Arc::new(b.alloc(n * 4).unwrap());
    fill(&b, &x, n, 1.0); // the writer's kernel is compiled before the gate closes
    f.hold_compiles();
    let held = {
        let (b, x) = (b.clone(), x.clone());
        std::thread::spawn(move || op(&b, &x))
    };
    while f.compiles_in_progress() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (done_tx, done_rx) = mpsc::channel();
    let writer = {
        let (b, x) = (b.clone(), x.clone());
        std::thread::spawn(move || {
            fill(&b, &x, n, 5.0);
            done_tx.send(()).unwrap();
        })
    };
    let finished = done_rx.recv_timeout(Duration::from_secs(5));
    assert_eq!(
        f.compiles_in_progress(),
        1,
        "the operation is still compiling"
    );
    f.open_compiles();
    held.join().unwrap();
    writer.join().unwrap();
    assert!(
        finished.is_ok(),
        "the writer waited for the other operation's compilation (a lock held across it)"
    );
    let races = f.races();
    assert!(races.is_empty(), "races:\n{}", races.join("\n"));
}

fn sort(b: &HipBackend, x: &HipBuffer, len: usize) {
    b.sort(&SortArgs {
        dtype: DType::F32,
        buffer: x,
        offset: 0,
        rows: 1,
        len,
        ordered_low_bits: 0,
    })
    .expect("sort");
}

#[test]
fn the_tiled_transpose_copy_compiles_before_locking() {
    const SIDE: usize = 64;
    the_writer_does_not_wait_for(SIDE * SIDE, |b, x| {
        let out = b.alloc(SIDE * SIDE * 4).unwrap();
        // A copy of the transposed view: the input is contiguous along the output's first
        // axis, the case of the tiled kernel.
        let copy = Program {
            inputs: vec![DType::F32],
            scalars: vec![],
            instrs: vec![Instr {
                node: Node::Input(0),
                dtype: DType::F32,
            }],
        };
        b.elementwise(
            &copy,
            &ElementwiseArgs {
                shape: &[SIDE, SIDE],
                inputs: &[f32_op(x, &[1, SIDE as isize])],
                scalars: &[],
                output: f32_op(&out, &[SIDE as isize, 1]),
            },
        )
        .expect("transposed copy");
    });
}

#[test]
fn the_row_radix_sort_compiles_before_locking() {
    // Beyond the bitonic tile (2048), within one block per row (8192 for f32).
    the_writer_does_not_wait_for(4096, |b, x| sort(b, x, 4096));
}

#[test]
fn the_register_sort_compiles_before_locking() {
    // Short rows (padded to at most 2048): the register sort's one launch.
    the_writer_does_not_wait_for(1000, |b, x| sort(b, x, 1000));
}

#[test]
fn the_onesweep_radix_sort_compiles_before_locking() {
    the_writer_does_not_wait_for(1 << 16, |b, x| sort(b, x, 1 << 16));
}

#[test]
fn the_single_pass_scan_compiles_before_locking() {
    const LEN: usize = 1 << 16;
    the_writer_does_not_wait_for(LEN, |b, x| {
        let out = b.alloc(LEN * 4).unwrap();
        b.scan(&ScanArgs {
            op: ScanOp::Sum,
            dtype: DType::F32,
            input: x,
            input_offset: 0,
            outer: 1,
            len: LEN,
            inner: 1,
            output: &out,
            output_offset: 0,
        })
        .expect("scan");
    });
}
