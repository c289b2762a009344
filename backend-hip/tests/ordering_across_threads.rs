//! Ordering of work on buffers that several threads use at once (the promise "any thread may
//! use any array; the runtime orders the work"): an operation held between ordering its
//! operands and enqueueing its kernel (a slow compile), reads from many streams, writes and
//! frees after them, records whose stream went to another thread, and many threads using,
//! deriving and freeing shared arrays.
//!
//! On the test double the race detector checks every device access: a write or free not
//! ordered after another stream's use that may still run, or a read not ordered after another
//! stream's write, is a failure. On a GPU the same scenarios check values.

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

const N: usize = 1024;

fn backend(h: &Harness) -> HipBackend {
    HipBackend::with_runtime(h.rt.clone(), 0, DiskCache::off()).expect("backend")
}

fn f32_op(buf: &HipBuffer) -> Operand<'_, HipBuffer> {
    Operand {
        buffer: buf,
        dtype: DType::F32,
        offset: 0,
        strides: vec![1],
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
            shape: vec![N],
            inputs: vec![f32_op(input)],
            scalars: vec![Scalar::F32(k)],
            output: f32_op(out),
        },
    )
    .expect("scale");
}

fn fill(b: &HipBackend, out: &HipBuffer, k: f32) {
    b.elementwise(
        &fill_program(),
        &ElementwiseArgs {
            shape: vec![N],
            inputs: vec![],
            scalars: vec![Scalar::F32(k)],
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

/// A reader held between ordering its operand and enqueueing its kernel (here a
/// compilation held at the double's gate) must still be ordered before a write another
/// thread makes meanwhile; and that writer is not blocked by the reader's compilation.
#[test]
fn a_read_held_before_its_launch_stays_ordered_with_a_later_write() {
    let (_h, f, b) = fake_with(FakeConfig::default());
    let (x, out) = (b.alloc(N * 4).unwrap(), b.alloc(N * 4).unwrap());
    write_f32(&b, &x, 1.0);
    fill(&b, &out, 0.0); // the writer's kernel is compiled before the gate closes
    let (x, out) = (Arc::new(x), Arc::new(out));
    f.hold_compiles();
    let reader = {
        let (b, x, out) = (b.clone(), x.clone(), out.clone());
        std::thread::spawn(move || scale(&b, 7, &x, &out, 2.0))
    };
    while f.compiles_in_progress() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (done_tx, done_rx) = mpsc::channel();
    let writer = {
        let (b, x) = (b.clone(), x.clone());
        std::thread::spawn(move || {
            fill(&b, &x, 5.0);
            done_tx.send(()).unwrap();
        })
    };
    let finished = done_rx.recv_timeout(Duration::from_secs(5));
    assert_eq!(f.compiles_in_progress(), 1, "the reader is still compiling");
    f.open_compiles();
    reader.join().unwrap();
    writer.join().unwrap();
    assert!(
        finished.is_ok(),
        "the writer waited for the reader's compilation (a lock held across it)"
    );
    assert_no_races(&f);
}

/// The other way round: a writer held before its launch, a reader meanwhile.
#[test]
fn a_write_held_before_its_launch_stays_ordered_with_an_earlier_read() {
    let (_h, f, b) = fake_with(FakeConfig::default());
    let (x, out) = (b.alloc(N * 4).unwrap(), b.alloc(N * 4).unwrap());
    write_f32(&b, &x, 1.0);
    scale(&b, 0, &x, &out, 1.0); // the reader's kernel is compiled before the gate closes
    let (x, out, src) = (
        Arc::new(x),
        Arc::new(out),
        Arc::new(b.alloc(N * 4).unwrap()),
    );
    write_f32(&b, &src, 3.0);
    f.hold_compiles();
    let writer = {
        let (b, x, src) = (b.clone(), x.clone(), src.clone());
        std::thread::spawn(move || scale(&b, 9, &src, &x, 1.0))
    };
    while f.compiles_in_progress() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let reader = {
        let (b, x, out) = (b.clone(), x.clone(), out.clone());
        std::thread::spawn(move || scale(&b, 0, &x, &out, 2.0))
    };
    reader.join().unwrap();
    f.open_compiles();
    writer.join().unwrap();
    assert_no_races(&f);
}

/// Reads from many streams do not wait for one another; a write waits for all of them.
#[test]
fn reads_do_not_serialise_and_a_write_waits_for_every_read() {
    let (h, f, b) = fake_with(FakeConfig::default());
    let x = Arc::new(b.alloc(N * 4).unwrap());
    write_f32(&b, &x, 1.0);
    let warm = b.alloc(N * 4).unwrap();
    scale(&b, 0, &x, &warm, 1.0);
    // Reader 1: its stream is busy (held work), so its read is still in flight.
    let (r1_tx, r1_rx) = mpsc::channel();
    let (end_tx, end_rx) = mpsc::channel::<()>();
    let r1 = {
        let (b, x, rt, f) = (b.clone(), x.clone(), h.rt.clone(), f.clone());
        std::thread::spawn(move || {
            let s = rt.stream(D0).unwrap();
            let hold = f.hold(s.handle(), Completion::Manual);
            let out = b.alloc(N * 4).unwrap();
            scale(&b, 0, &x, &out, 2.0);
            r1_tx.send((s.handle(), hold)).unwrap();
            end_rx.recv().unwrap();
            drop(out);
        })
    };
    let (s1, hold) = r1_rx.recv().unwrap();
    let from = f.log().len();
    let s2 = {
        let (b, x, rt) = (b.clone(), x.clone(), h.rt.clone());
        std::thread::spawn(move || {
            let out = b.alloc(N * 4).unwrap();
            scale(&b, 0, &x, &out, 3.0);
            rt.stream(D0).unwrap().handle()
        })
        .join()
        .unwrap()
    };
    let log = f.log();
    assert!(
        !streams_waited_for(&log, from, s2).contains(&s1),
        "the second reader waited for the first: reads serialised"
    );
    // The writer (this thread) must wait for both readers.
    let from = f.log().len();
    fill(&b, &x, 9.0);
    let me = h.rt.stream(D0).unwrap().handle();
    let waited = streams_waited_for(&f.log(), from, me);
    assert!(
        waited.contains(&s1),
        "the write is not ordered after reader 1 (in flight): waited for {waited:?}"
    );
    assert_no_races(&f);
    f.complete(hold);
    end_tx.send(()).unwrap();
    r1.join().unwrap();
    assert_no_races(&f);
}

/// A free waits for every read since the last write: the block is not reused by another
/// stream (and written) while a reader may still run.
#[test]
fn a_free_waits_for_every_reader() {
    let (h, f, b) = fake_with(FakeConfig::default());
    let x = b.alloc(N * 4).unwrap();
    write_f32(&b, &x, 1.0);
    let warm = b.alloc(N * 4).unwrap();
    scale(&b, 0, &x, &warm, 1.0);
    let x = Arc::new(x);
    let (r1_tx, r1_rx) = mpsc::channel();
    let (end_tx, end_rx) = mpsc::channel::<()>();
    let r1 = {
        let (b, x, rt, f) = (b.clone(), x.clone(), h.rt.clone(), f.clone());
        std::thread::spawn(move || {
            let s = rt.stream(D0).unwrap();
            let hold = f.hold(s.handle(), Completion::Manual);
            let out = b.alloc(N * 4).unwrap();
            scale(&b, 0, &x, &out, 2.0);
            drop(x);
            r1_tx.send(hold).unwrap();
            end_rx.recv().unwrap();
            drop(out);
        })
    };
    let hold = r1_rx.recv().unwrap();
    {
        let (b, x) = (b.clone(), x.clone());
        std::thread::spawn(move || {
            let out = b.alloc(N * 4).unwrap();
            scale(&b, 0, &x, &out, 3.0);
        })
        .join()
        .unwrap();
    }
    let x = Arc::try_unwrap(x).expect("last holder");
    let ptr = x.ptr();
    b.release(x);
    // Another thread allocates the same size and writes it at once.
    let reused = {
        let b = b.clone();
        std::thread::spawn(move || {
            let y = b.alloc(N * 4).unwrap();
            fill(&b, &y, 4.0);
            y.ptr()
        })
        .join()
        .unwrap()
    };
    eprintln!("freed {ptr}, the next allocation got {reused}");
    assert_no_races(&f);
    f.complete(hold);
    end_tx.send(()).unwrap();
    r1.join().unwrap();
    assert_no_races(&f);
}

/// The stream of a buffer's last use went to another thread, whose work then
/// failed. The old record's work had completed (the pool hands out only streams whose work
/// is done): the buffer stays usable.
#[test]
fn an_error_of_a_recycled_streams_new_owner_does_not_poison_old_records() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let rt = h.rt.clone();
    let (buf, old) = on_thread(move || {
        let d = rt.device(D0).unwrap();
        let b = d.alloc(4096).unwrap();
        let s = d.thread_stream().unwrap();
        b.copy_from_host(&s, &[7u8; 4096]).unwrap();
        (b, s)
    });
    let (taken_tx, taken_rx) = mpsc::channel();
    let (end_tx, end_rx) = mpsc::channel::<()>();
    let rt = h.rt.clone();
    let owner = std::thread::spawn(move || {
        let s = rt.stream(D0).unwrap();
        taken_tx.send(s).unwrap();
        end_rx.recv().unwrap();
    });
    let new_owner = taken_rx.recv().unwrap();
    assert!(
        new_owner.same_as(&old),
        "the finished thread's stream was reused"
    );
    h.fake().set_stream_error(new_owner.handle(), 719);
    let d = h.rt.device(D0).unwrap();
    let caller = d.thread_stream().unwrap();
    let mut back = vec![0u8; 4096];
    buf.copy_to_host(&caller, &mut back)
        .expect("the previous owner's record is complete; the new owner's error is not ours");
    assert!(back.iter().all(|&v| v == 7));
    drop(buf);
    end_tx.send(()).unwrap();
    owner.join().unwrap();
}

/// Many threads use shared arrays at once: readers, writers (each writer owns one array and
/// writes a round number), derived views read and dropped on other threads. On the GPU every
/// read is checked against the value its round implies; on the double the race detector
/// checks every access.
#[test]
fn many_threads_share_arrays_with_writers_and_derived_views() {
    for h in default_harnesses() {
        let b = backend(&h);
        let arrays: Vec<Array<f32, HipBackend>> = (0..4)
            .map(|i| Array::from_vec(&b, vec![i as f32; N]).unwrap())
            .collect();
        let threads = 6;
        let rounds = 40;
        let barrier = Arc::new(Barrier::new(threads));
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let shared: Vec<Array<f32, HipBackend>> =
                    arrays.iter().map(|a| a.share()).collect();
                let (b, barrier, real) = (b.clone(), barrier.clone(), h.is_real());
                std::thread::spawn(move || {
                    barrier.wait();
                    let mut shared = shared;
                    for r in 0..rounds {
                        let i = (t + r) % shared.len();
                        if t < 2 && i == t {
                            // Writer of array t: a new value, then read back on this thread.
                            let v = (1000 * (t + 1) + r) as f32;
                            shared[i].fill(v).unwrap();
                            if real {
                                assert!(shared[i].to_vec().unwrap().iter().all(|&x| x == v));
                            }
                        } else {
                            // Reader: a view of the middle, summed, and a derived copy
                            // dropped on another thread.
                            let view = shared[i].slice(N / 4..3 * N / 4).unwrap();
                            let doubled: Array<f32, HipBackend> = (view.ex() * 2.0).eval().unwrap();
                            let got = doubled.to_vec().unwrap();
                            if real {
                                let first = got[0];
                                assert!(
                                    got.iter().all(|&x| x == first),
                                    "a read saw a torn array (thread {t}, round {r})"
                                );
                            }
                            std::thread::spawn(move || drop((view, doubled)))
                                .join()
                                .unwrap();
                        }
                        let _ = &b;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        if let Some(f) = &h.fake {
            assert_no_races(f);
        }
    }
}

/// Derived arrays (views, reshapes) freed on other threads while the base is used, then the
/// buffer released for every holder from a third thread: no access after the free, and the
/// holders left see `Freed`.
#[test]
fn derived_arrays_freed_across_threads() {
    for h in default_harnesses() {
        let b = backend(&h);
        let base = Array::from_vec(&b, (0..N).map(|i| i as f32).collect()).unwrap();
        let views: Vec<Array<f32, HipBackend>> = (0..4)
            .map(|k| base.slice(k * N / 4..(k + 1) * N / 4).unwrap())
            .collect();
        let reshaped = base.reshape(&[32, -1]).unwrap();
        let handles: Vec<_> = views
            .into_iter()
            .enumerate()
            .map(|(k, v)| {
                let real = h.is_real();
                std::thread::spawn(move || {
                    let s: Array<f32, HipBackend> = (v.ex() + 1.0).eval().unwrap();
                    if real {
                        let got = s.to_vec().unwrap();
                        assert_eq!(got[0], (k * N / 4) as f32 + 1.0);
                    }
                    drop(v);
                    s
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|t| t.join().unwrap()).collect();
        let sum_before: Array<f32, HipBackend> = (reshaped.ex() * 1.0).eval().unwrap();
        let freer = std::thread::spawn(move || reshaped.free_all_shared().unwrap());
        freer.join().unwrap();
        assert!(base.to_vec().is_err(), "the base sees the release");
        drop(base);
        if h.is_real() {
            let v = sum_before.to_vec().unwrap();
            assert_eq!(v[N - 1], (N - 1) as f32);
        }
        drop((results, sum_before));
        if let Some(f) = &h.fake {
            assert_no_races(f);
        }
    }
}
