//! `HipBackend` over the platform test double: storage, the stream rules of each operation,
//! the kernel caches (a new scalar value reuses the compiled kernel; a second process-like
//! backend loads from the disk cache) and error mapping. The double runs no kernels, so these
//! tests check plumbing, not results (the GPU conformance test checks results).

use std::sync::Arc;

// The benches' tiny-op arguments (x, y, z contiguous f32 and one scalar); this file's
// program puts the scalar first (`a * x + y`), which takes the same arguments.
#[allow(dead_code)]
#[path = "../../benches/common/axpy_program.rs"]
mod axpy_program;

use gpuarrays_core::kernel::{
    BinaryOp, ElementwiseArgs, Instr, Node, Operand, Program, ReduceArgs, ReduceOp,
};
use gpuarrays_core::{Array, Backend, Complex32, DType, Error, OpKind, Scalar};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::{HipBackend, HipBuffer, HipRuntime, RuntimeConfig};

fn fake() -> (Arc<FakePlatform>, Arc<HipRuntime>) {
    let platform = Arc::new(FakePlatform::new(FakeConfig {
        memory_per_device: 64 << 20,
        ..FakeConfig::default()
    }));
    let rt = HipRuntime::new(platform.clone(), RuntimeConfig::default()).expect("fake runtime");
    (platform, rt)
}

fn temp_cache(tag: &str) -> (std::path::PathBuf, DiskCache) {
    let dir = std::env::temp_dir().join(format!("ga-fake-cache-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    (dir.clone(), DiskCache::at(dir))
}

fn axpy() -> Program {
    Program {
        inputs: vec![DType::F32, DType::F32],
        scalars: vec![DType::F32],
        instrs: vec![
            Instr {
                node: Node::Scalar(0),
                dtype: DType::F32,
            },
            Instr {
                node: Node::Input(0),
                dtype: DType::F32,
            },
            Instr {
                node: Node::Binary(BinaryOp::Mul, 0, 1),
                dtype: DType::F32,
            },
            Instr {
                node: Node::Input(1),
                dtype: DType::F32,
            },
            Instr {
                node: Node::Binary(BinaryOp::Add, 2, 3),
                dtype: DType::F32,
            },
        ],
    }
}

fn run_axpy(b: &HipBackend, x: &HipBuffer, y: &HipBuffer, z: &HipBuffer, n: usize, a: f32) {
    let operands = axpy_program::axpy_args(n, [x, y, z], a);
    b.elementwise(&axpy(), &operands.args())
        .expect("elementwise on the double");
}

#[test]
fn storage_round_trips_with_offsets() {
    let (_p, rt) = fake();
    let b = HipBackend::with_runtime(rt, 0, DiskCache::off()).expect("backend");
    let buf = b.alloc(64).expect("alloc");
    b.write(&buf, 8, &[1, 2, 3, 4]).expect("write");
    let mut out = [0u8; 4];
    b.read(&buf, 8, &mut out).expect("read");
    assert_eq!(out, [1, 2, 3, 4]);
    let other = b.alloc(16).expect("alloc");
    b.copy(&buf, 8, &other, 2, 4).expect("copy");
    let mut out = [0u8; 6];
    b.read(&other, 0, &mut out).expect("read");
    assert_eq!(&out[2..], &[1, 2, 3, 4]);
    // Out of range: an error, never a wild copy.
    assert!(b.write(&buf, 62, &[0; 4]).is_err());
    assert!(b.read(&buf, 61, &mut [0; 4]).is_err());
    b.release(other);
    b.release(buf);
}

#[test]
fn a_new_constant_reuses_the_compiled_kernel_and_disk_cache_serves_a_new_backend() {
    let (dir, disk) = temp_cache("axpy");
    let (platform, rt) = fake();
    let n = 1000;
    {
        let b = HipBackend::with_runtime(rt.clone(), 0, disk.clone()).expect("backend");
        let (x, y, z) = (
            b.alloc(n * 4).unwrap(),
            b.alloc(n * 4).unwrap(),
            b.alloc(n * 4).unwrap(),
        );
        run_axpy(&b, &x, &y, &z, n, 2.0);
        run_axpy(&b, &x, &y, &z, n, 3.5);
        let s = b.kernels().cache_stats();
        assert_eq!((s.compiled, s.loaded), (1, 1), "{s:?}");
        let launches = platform
            .log()
            .iter()
            .filter(|o| matches!(o, FakeOp::Launch { .. }))
            .count();
        assert_eq!(launches, 2);
    }
    let b2 = HipBackend::with_runtime(rt, 0, disk).expect("backend");
    let (x, y, z) = (
        b2.alloc(n * 4).unwrap(),
        b2.alloc(n * 4).unwrap(),
        b2.alloc(n * 4).unwrap(),
    );
    run_axpy(&b2, &x, &y, &z, n, 1.0);
    let s = b2.kernels().cache_stats();
    assert_eq!((s.compiled, s.disk_hits), (0, 1), "{s:?}");
    let files = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(files, 1, "one cache file, no temporary left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn operations_run_on_the_callers_stream_after_the_last_use() {
    let (platform, rt) = fake();
    let b = HipBackend::with_runtime(rt.clone(), 0, DiskCache::off()).expect("backend");
    let n = 4096;
    let x = b.alloc(n * 4).unwrap();
    let out = b.alloc(4).unwrap();
    // Use `x` on another thread's stream, then reduce it here: the reduction must wait for
    // that thread's work (an event record there, a wait here) before its launch.
    let b2 = b.clone();
    std::thread::scope(|s| {
        s.spawn(|| b2.write(&x, 0, &vec![0u8; n * 4]).expect("write on thread"));
    });
    let before = platform.log().len();
    b.reduce(&ReduceArgs {
        op: ReduceOp::Sum,
        dtype: DType::F32,
        input: &x,
        input_offset: 0,
        outer: 1,
        len: n,
        inner: 1,
        output: &out,
        output_offset: 0,
    })
    .expect("reduce on the double");
    let mine = rt.stream(gpuarrays_hip::DeviceId(0)).unwrap().handle();
    let ops = platform.log()[before..].to_vec();
    let first_launch = ops
        .iter()
        .position(|o| matches!(o, FakeOp::Launch { .. }))
        .expect("a launch");
    assert!(
        ops.iter()
            .all(|o| !matches!(o, FakeOp::Launch { .. }) || o.stream() == mine),
        "kernels go to the calling thread's stream: {ops:?}"
    );
    // The other thread ended and its stream went back to the pool after its work completed,
    // so either a wait precedes the launch or the recorded stream was recycled (no wait
    // needed); in both cases nothing is enqueued on the other stream after our launch.
    assert!(
        ops[first_launch..].iter().all(|o| o.stream() == mine),
        "{ops:?}"
    );
    let races = platform.races();
    assert!(races.is_empty(), "{races:#?}");
    assert_eq!(
        out.uses().last_write().map(|l| l.stream().handle()),
        Some(mine)
    );
}

#[test]
fn out_of_memory_is_reported_with_sizes() {
    let (_p, rt) = fake();
    let b = HipBackend::with_runtime(rt, 0, DiskCache::off()).expect("backend");
    match b.alloc(1 << 30) {
        Err(Error::OutOfMemory { requested, .. }) => assert!(requested >= Some(1 << 30)),
        other => panic!("expected out of memory, got {other:?}"),
    }
}

#[test]
fn bad_operands_are_errors() {
    let (_p, rt) = fake();
    let b = HipBackend::with_runtime(rt, 0, DiskCache::off()).expect("backend");
    let small = b.alloc(16).unwrap();
    let op = |buf, strides: &'static [isize]| Operand {
        buffer: buf,
        dtype: DType::F32,
        offset: 0,
        strides,
    };
    // 100 elements do not fit 16 bytes.
    let args = ElementwiseArgs {
        shape: &[100],
        inputs: &[op(&small, &[1]), op(&small, &[1])],
        scalars: &[Scalar::F32(1.0)],
        output: op(&small, &[1]),
    };
    assert!(b.elementwise(&axpy(), &args).is_err());
    // A reversed stride reaching below the buffer.
    let args = ElementwiseArgs {
        shape: &[4],
        inputs: &[op(&small, &[-1]), op(&small, &[1])],
        scalars: &[Scalar::F32(1.0)],
        output: op(&small, &[1]),
    };
    assert!(b.elementwise(&axpy(), &args).is_err());
    // Wrong scalar type for the program.
    let args = ElementwiseArgs {
        shape: &[4],
        inputs: &[op(&small, &[1]), op(&small, &[1])],
        scalars: &[Scalar::I32(1)],
        output: op(&small, &[1]),
    };
    assert!(b.elementwise(&axpy(), &args).is_err());
}

/// The type rules (complex numbers have no order, bool is not multiplied or accumulated) are
/// core's: HIP's capability table refuses none of them, core rejects them before dispatch
/// with the same error as on the CPU, and no kernel is compiled or launched for them.
#[test]
fn type_rules_are_cores_and_read_the_same_on_every_backend() {
    fn rejections<B: Backend>(b: &B) -> Vec<Error> {
        let c = Array::<Complex32, B>::from_slice(
            b,
            &[2],
            &[Complex32::new(1.0, 2.0), Complex32::new(0.0, -1.0)],
        )
        .expect("complex array");
        let m = Array::<bool, B>::from_slice(b, &[2, 2], &[true, false, false, true])
            .expect("bool array");
        vec![
            c.sort().expect_err("sorting complex numbers"),
            m.matmul(&m).expect_err("a bool matmul"),
            m.cumsum(0).expect_err("a bool cumsum"),
            m.cumprod(1).expect_err("a bool cumprod"),
        ]
    }
    let (platform, rt) = fake();
    let hip = HipBackend::with_runtime(rt, 0, DiskCache::off()).expect("backend");
    // Only its own limits: the narrow types it does not handle yet.
    let narrow = [DType::I8, DType::I16, DType::U16, DType::F16, DType::BF16];
    for d in DType::ALL.into_iter().filter(|d| !narrow.contains(d)) {
        for op in OpKind::ALL {
            assert!(hip.supports(d, op).is_yes(), "HIP refuses {d} {op} itself");
        }
    }
    let on_hip = rejections(&hip);
    let on_cpu = rejections(&CpuBackend::new());
    for (h, c) in on_hip.iter().zip(&on_cpu) {
        assert!(!matches!(h, Error::Unsupported { .. }), "{h}");
        assert_eq!(h.to_string(), c.to_string());
    }
    let kernels = platform
        .log()
        .iter()
        .filter(|o| matches!(o, FakeOp::Launch { .. }))
        .count();
    assert_eq!(kernels, 0, "a rejected operation reached the device");
    assert_eq!(hip.kernels().cache_stats().compiled, 0);
}

/// Gathers and scatters take the ordering protocol: one launch each on the calling thread's
/// stream, the written operand recorded as written, and one module per element type for
/// every indexing kernel. Operands outside their buffers and an add of bools are errors
/// before anything compiles or launches. (Ordering against other threads' work on each
/// operand: `ordering_across_threads/indexing.rs`.)
#[test]
fn gathers_and_scatters_launch_once_on_the_callers_stream() {
    use gpuarrays_core::kernel::{
        GatherArgs, IndexMode, IndexSpace, ScatterArgs, ScatterOp, Strided3,
    };
    let (platform, rt) = fake();
    let b = HipBackend::with_runtime(rt.clone(), 0, DiskCache::off()).expect("backend");
    // Allocated on another thread: their last writes are that thread's stream.
    let (index, table, rows) = std::thread::scope(|s| {
        s.spawn(|| {
            (
                b.alloc(8 * 10).unwrap(),
                b.alloc(4 * 20).unwrap(),
                b.alloc(4 * 10).unwrap(),
            )
        })
        .join()
        .expect("allocating thread")
    });
    let line = |buffer, strides| Strided3 {
        buffer,
        offset: 0,
        strides,
    };
    let space = |extent| IndexSpace {
        dims: [1, 10, 1],
        index: line(&index, [0, 1, 0]),
        extent,
        mode: IndexMode::Wrap,
    };
    let gather = |extent| GatherArgs {
        dtype: DType::F32,
        space: space(extent),
        source: line(&table, [0, 1, 0]),
        output: &rows,
        output_offset: 0,
        out_of_range: None,
    };
    let scatter = |op, dtype| ScatterArgs {
        op,
        dtype,
        space: space(20),
        target: line(&table, [0, 1, 0]),
        values: line(&rows, [0, 1, 0]),
    };
    let launches = || {
        platform
            .log()
            .iter()
            .filter(|o| matches!(o, FakeOp::Launch { .. }))
            .count()
    };
    // A table of 30 f32 does not fit 80 bytes; bools are not added.
    assert!(b.gather(&gather(30)).is_err());
    assert!(b.scatter(&scatter(ScatterOp::Add, DType::Bool)).is_err());
    assert_eq!((launches(), b.kernels().cache_stats().compiled), (0, 0));
    b.gather(&gather(20)).expect("gather on the double");
    b.scatter(&scatter(ScatterOp::Add, DType::F32))
        .expect("scatter_add on the double");
    b.scatter(&scatter(ScatterOp::Assign, DType::F32))
        .expect("scatter on the double");
    assert_eq!(launches(), 3);
    assert_eq!(b.kernels().cache_stats().compiled, 1, "one module for f32");
    let mine = rt.stream(gpuarrays_hip::DeviceId(0)).unwrap().handle();
    assert!(
        platform
            .log()
            .iter()
            .all(|o| !matches!(o, FakeOp::Launch { .. }) || o.stream() == mine)
    );
    // Written by this thread now, or last by the allocating thread (whose stream has since
    // changed hands).
    let here = rt.stream(gpuarrays_hip::DeviceId(0)).unwrap();
    let written_here = |buf: &HipBuffer| buf.uses().last_write().is_some_and(|u| u.is_by(&here));
    assert!(written_here(&table), "the scatter target is written");
    assert!(written_here(&rows), "the gather output is written");
    assert!(!written_here(&index), "the index is only read");
    assert!(platform.races().is_empty(), "{:#?}", platform.races());
}
