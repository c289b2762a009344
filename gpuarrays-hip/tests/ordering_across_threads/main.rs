//! Ordering of work on buffers that several threads use at once (the promise "any thread may
//! use any array; the runtime orders the work"): an operation held between ordering its
//! operands and enqueueing its kernel (a slow compile), reads from many streams, writes and
//! frees after them, records whose stream went to another thread, gathers and scatters (one
//! operand per other thread), and many threads using, deriving and freeing shared arrays.
//!
//! On the test double the race detector checks every device access: a write or free not
//! ordered after another stream's use that may still run, or a read not ordered after another
//! stream's write, is a failure. On a GPU the same scenarios check values.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use gpuarrays_core::kernel::{BinaryOp, ElementwiseArgs, Instr, Node, Operand, Program};
use gpuarrays_core::{Array, Backend, DType, Scalar};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{Completion, FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{EventHandle, StreamHandle};
use gpuarrays_hip::{HipBackend, HipBuffer, RuntimeConfig};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

mod frees_and_threads;
mod graphs;
mod held_launches;
mod indexing;

const N: usize = 1024;

fn backend(h: &Harness) -> HipBackend {
    HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).expect("backend")
}

fn f32_op(buf: &HipBuffer) -> Operand<'_, HipBuffer> {
    Operand {
        buffer: buf,
        dtype: DType::F32,
        offset: 0,
        strides: &[1],
    }
}

/// `out = in * k`: reads `input`, writes `out`. A distinct `tag` gives a distinct kernel
/// (the tag is added as `+ 0 * tag`), so a test can make one thread compile a new kernel.
fn scale_program(tag: u32) -> Program {
    let mut instrs = vec![
        Instr {
            node: Node::Input(0),
            dtype: DType::F32,
        },
        Instr {
            node: Node::Scalar(0),
            dtype: DType::F32,
        },
        Instr {
            node: Node::Binary(BinaryOp::Mul, 0, 1),
            dtype: DType::F32,
        },
    ];
    for _ in 0..tag {
        let last = instrs.len() as u32 - 1;
        instrs.push(Instr {
            node: Node::Binary(BinaryOp::Add, last, 1),
            dtype: DType::F32,
        });
        let last = instrs.len() as u32 - 1;
        instrs.push(Instr {
            node: Node::Binary(BinaryOp::Sub, last, 1),
            dtype: DType::F32,
        });
    }
    Program {
        inputs: vec![DType::F32],
        scalars: vec![DType::F32],
        instrs,
    }
}

/// `out = k` (writes `out` only).
fn fill_program() -> Program {
    Program {
        inputs: vec![],
        scalars: vec![DType::F32],
        instrs: vec![Instr {
            node: Node::Scalar(0),
            dtype: DType::F32,
        }],
    }
}

fn scale(b: &HipBackend, tag: u32, input: &HipBuffer, out: &HipBuffer, k: f32) {
    b.elementwise(
        &scale_program(tag),
        &ElementwiseArgs {
            shape: &[N],
            inputs: &[f32_op(input)],
            scalars: &[Scalar::F32(k)],
            output: f32_op(out),
        },
    )
    .expect("scale");
}

fn fill(b: &HipBackend, out: &HipBuffer, k: f32) {
    b.elementwise(
        &fill_program(),
        &ElementwiseArgs {
            shape: &[N],
            inputs: &[],
            scalars: &[Scalar::F32(k)],
            output: f32_op(out),
        },
    )
    .expect("fill");
}

fn write_f32(b: &HipBackend, buf: &HipBuffer, v: f32) {
    let bytes: Vec<u8> = std::iter::repeat_n(v.to_le_bytes(), N).flatten().collect();
    b.write(buf, 0, &bytes).expect("write");
}

fn fake_with(config: FakeConfig) -> (Harness, Arc<FakePlatform>, HipBackend) {
    let h = fake_harness(config, RuntimeConfig::default());
    let f = h.fake().clone();
    let b = backend(&h);
    (h, f, b)
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

/// The streams whose records the waits on `waiter` (from log position `from`) wait for.
fn streams_waited_for(log: &[FakeOp], from: usize, waiter: StreamHandle) -> Vec<StreamHandle> {
    let mut out = Vec::new();
    for (i, op) in log.iter().enumerate().skip(from) {
        if let FakeOp::Wait { stream, event } = op
            && *stream == waiter
            && let Some(recorded) = last_record_before(log, i, *event)
        {
            out.push(recorded);
        }
    }
    out
}

fn last_record_before(log: &[FakeOp], at: usize, event: EventHandle) -> Option<StreamHandle> {
    log[..at].iter().rev().find_map(|op| match op {
        FakeOp::Record { stream, event: e } if *e == event => Some(*stream),
        _ => None,
    })
}
