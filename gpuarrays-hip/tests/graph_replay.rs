//! User graph capture (`gpuarrays_core::capture` on HIP), run on the CPU through the emulated
//! platform of `emulator/` (whose graphs record each kernel with its parameters' bytes and
//! replay them) and on the GPU where there is one: every operation family gives, when the
//! graph is launched, exactly what it gives eagerly — also after the inputs were overwritten
//! between launches (the graph reads them at each launch). Work that needs the host is
//! refused with a typed error and leaves no capture behind; the memory a graph uses outlives
//! the arrays that held it and is freed with the graph.
//!
//! The emulator is skipped (with a printed reason) when `g++` is missing, the GPU when there
//! is none, unless `GPUARRAYS_REQUIRE_GPU=1` makes that a failure.

mod emulator;

use gpuarrays_core::kernel::IndexMode;
use gpuarrays_core::{
    Array, Backend, Complex32, DType, Element, ErrorKind, FftNorm, Pad, Result, Side, SortOrder,
    capture,
};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::stream::active_captures;
use std::fmt::Debug;
use std::sync::Mutex;

type F = Array<f32, HipBackend>;

/// The backends to test: the emulated device, and the GPU if there is one.
fn backends() -> Vec<(&'static str, HipBackend)> {
    let mut v = Vec::new();
    if let Some(emu) = emulator::backend() {
        v.push(("emulated", emu));
    }
    match HipBackend::new(0) {
        Ok(gpu) => v.push(("gpu", gpu)),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "GPUARRAYS_REQUIRE_GPU=1 but no HIP device: {e}");
            eprintln!("skipped on the GPU: no HIP device ({e})");
        }
    }
    v
}

/// The capture count is process-wide: the tests of this binary run one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

/// `f` eagerly, then captured and launched, on inputs `x` and `y` (8 × 40), twice: the
/// second time after new values were written into `x` and `y`. Results must be equal bit
/// for bit (the same kernels on the same data).
fn check_replay<T: Element + PartialEq + Debug>(
    hip: &HipBackend,
    name: &str,
    f: impl Fn(&F, &F) -> Result<Array<T, HipBackend>>,
) {
    let dims = [8, 40];
    let mut x = F::from_slice(hip, &dims, &values(320, 1)).expect("x");
    let mut y = F::from_slice(hip, &dims, &values(320, 2)).expect("y");
    let eager = f(&x, &y).expect("eager").to_vec().expect("read");
    let (graph, out) = capture(hip, || f(&x, &y)).unwrap_or_else(|e| panic!("[{name}] {e:?}"));
    assert_eq!(active_captures(), 0, "[{name}] the capture ended");
    graph.launch().expect("launch");
    assert_eq!(out.to_vec().expect("read"), eager, "[{name}] first launch");
    x.assign(&F::from_slice(hip, &dims, &values(320, 3)).expect("x2"))
        .expect("assign x");
    y.assign(&F::from_slice(hip, &dims, &values(320, 4)).expect("y2"))
        .expect("assign y");
    let eager = f(&x, &y).expect("eager 2").to_vec().expect("read");
    graph.launch().expect("launch 2");
    assert_eq!(
        out.to_vec().expect("read"),
        eager,
        "[{name}] after new inputs"
    );
}

#[test]
fn every_operation_family_replays_what_it_computes_eagerly() {
    let _serial = serial();
    for (name, hip) in backends() {
        eprintln!("{name}");
        check_replay(&hip, "elementwise", |x, y| {
            (x.ex() * 2.0f32 + y.ex()).exp().eval::<f32>()
        });
        check_replay(&hip, "chain of 20 small ops", |x, y| {
            let mut z = (x.ex() + y.ex()).eval::<f32>()?;
            for i in 0..20 {
                z = (z.ex() * 0.5f32 + i as f32).eval::<f32>()?;
            }
            Ok(z)
        });
        check_replay(&hip, "sum along an axis", |x, _| x.sum_axis(1));
        check_replay(&hip, "cumsum", |x, _| x.cumsum(0));
        check_replay(&hip, "sort", |x, _| x.sort());
        check_replay(&hip, "argsort", |x, _| x.argsort(1, SortOrder::Ascending));
        // The emulator has no BLAS: integer products run the backend's own kernel.
        check_replay(&hip, "matmul", |x, y| {
            let a = (x.ex() * 100.0f32).cast(DType::I32).eval::<i32>()?;
            let b = (y.ex() * 100.0f32)
                .cast(DType::I32)
                .eval::<i32>()?
                .transpose()?
                .contiguous()?;
            a.matmul(&b)
        });
        check_replay(&hip, "transpose copy", |x, _| x.transpose()?.contiguous());
        check_replay(&hip, "concatenate", |x, y| F::concatenate(&[x, y], 1));
        check_replay(&hip, "pad", |x, _| x.pad(&[(1, 2), (3, 0)], Pad::Edge));
        check_replay(&hip, "take (wrap)", |x, y| {
            let i = (y.ex() * 100.0f32).cast(DType::I64).eval::<i64>()?;
            x.take(&i, Some(1), IndexMode::Wrap)
        });
        // Distinct positions (a permutation): with repeated ones the winner is unspecified.
        check_replay(&hip, "put (wrap)", |x, y| {
            let mut acc = F::zeros(x.backend(), &[8, 40])?;
            let i = y.reshape(&[-1])?.argsort(0, SortOrder::Ascending)?;
            acc.put(&i, &x.reshape(&[-1])?, IndexMode::Wrap)?;
            Ok(acc)
        });
        check_replay(&hip, "searchsorted", |x, y| {
            let table = x.reshape(&[-1])?.sort()?;
            table.searchsorted(&y.reshape(&[-1])?, Side::Left)
        });
    }
}

/// On the GPU: the vendor libraries inside a graph (cuBLAS/rocBLAS products, cuFFT/rocFFT
/// transforms with their work areas) and kernels large enough to take their multi-pass
/// paths (a onesweep sort, a two-pass reduction), each launched twice around new inputs.
#[test]
fn library_calls_and_large_kernels_replay_on_the_gpu() {
    let _serial = serial();
    for (name, hip) in backends().into_iter().filter(|b| b.0 == "gpu") {
        eprintln!("{name}");
        check_replay(&hip, "f32 product (BLAS)", |x, y| {
            x.matmul(&y.transpose()?.contiguous()?)
        });
        check_replay(&hip, "rfft", |x, _| {
            x.raw()
                .rfft(None, 1, FftNorm::Backward)?
                .into_typed::<Complex32>()
        });
        check_replay(&hip, "large argsort", |x, y| {
            let big = (x.reshape(&[-1])?.ex() * 3.0f32).eval::<f32>()?;
            let tiled = big.tile(&[4096])?;
            (tiled.ex() + y.reshape(&[-1])?.tile(&[4096])?.ex())
                .eval::<f32>()?
                .argsort(0, SortOrder::Ascending)
        });
        check_replay(&hip, "large sum", |x, _| {
            x.reshape(&[-1])?.tile(&[8192])?.sum_axis(0)
        });
    }
}

/// Reads, synchronisation and data-dependent sizes need the host: each is refused with
/// `NotCapturable`, the capture ends with no graph, and eager work goes on.
#[test]
fn work_that_needs_the_host_is_refused_and_leaves_no_capture() {
    let _serial = serial();
    for (name, hip) in backends() {
        eprintln!("{name}");
        let x = F::from_slice(&hip, &[4, 8], &values(32, 5)).expect("x");
        let i = Array::<i64, _>::from_slice(&hip, &[3], &[0, 2, 9]).expect("i");
        type Case<'a> = (&'a str, Box<dyn Fn() -> Result<()> + 'a>);
        let cases: Vec<Case<'_>> = vec![
            (
                "a read",
                Box::new(|| (x.ex() * 2.0f32).eval::<f32>()?.to_vec().map(drop)),
            ),
            ("synchronize", Box::new(|| hip.synchronize())),
            (
                "nonzero",
                Box::new(|| x.ex().gt(0.0f32).eval::<bool>()?.nonzero().map(drop)),
            ),
            (
                "scatter_add (its range check)",
                Box::new(|| {
                    let mut acc = F::zeros(&hip, &[4, 8])?;
                    let j = Array::<i64, _>::from_slice(&hip, &[4, 8], &[1; 32])?;
                    acc.scatter_add(&j, &x, 1)
                }),
            ),
            (
                "take (raise)",
                Box::new(|| x.take(&i, Some(1), IndexMode::Raise).map(drop)),
            ),
        ];
        for (name, case) in cases {
            let r = capture(&hip, &*case);
            let e = r.expect_err(name);
            assert_eq!(e.kind(), ErrorKind::NotCapturable, "[{name}] {e:?}");
            assert_eq!(active_captures(), 0, "[{name}] a capture was left running");
            let eager = (x.ex() + 1.0f32).eval::<f32>().expect("eager");
            let eager = eager.to_vec().expect("read");
            assert_eq!(eager.len(), 32, "[{name}]");
        }
    }
}

/// The memory of an input dropped after the capture is kept for the graph (a launch still
/// reads the same values), the output's memory too; dropping the graph frees both.
#[test]
fn a_graph_keeps_the_memory_it_uses_until_it_drops() {
    let _serial = serial();
    for (name, hip) in backends() {
        eprintln!("{name}");
        let in_use = || hip.memory_stats().in_use_bytes;
        let before = in_use();
        let x = F::from_slice(&hip, &[1000], &values(1000, 6)).expect("x");
        let expected = (x.ex() * 3.0f32 - 1.0f32)
            .eval::<f32>()
            .expect("eager")
            .to_vec()
            .expect("read");
        let (graph, y) =
            capture(&hip, || (x.ex() * 3.0f32 - 1.0f32).eval::<f32>()).expect("capture");
        drop(x);
        // Overwrite whatever the pool could hand out next: it must not be x's memory.
        let other = F::from_slice(&hip, &[1000], &values(1000, 7)).expect("other");
        graph.launch().expect("launch");
        assert_eq!(y.to_vec().expect("read"), expected);
        drop(other);
        let held = in_use();
        assert!(
            held >= before + 8000,
            "x and y are held: {held} vs {before}"
        );
        drop(y);
        assert_eq!(in_use(), held, "y's memory is the graph's while it lives");
        drop(graph);
        assert_eq!(in_use(), before, "the graph's memory is freed with it");
    }
}

/// A graph launched from another thread computes the same, ordered after this thread's
/// writes of its input.
#[test]
fn a_graph_launched_from_another_thread_reads_the_latest_input() {
    let _serial = serial();
    for (name, hip) in backends() {
        eprintln!("{name}");
        let mut x = F::from_slice(&hip, &[256], &values(256, 8)).expect("x");
        let (graph, y) = capture(&hip, || x.sum_axis(0)).expect("capture");
        x.fill(0.5).expect("fill");
        std::thread::scope(|s| {
            s.spawn(|| graph.launch().expect("launch on another thread"));
        });
        assert_eq!(y.to_vec().expect("read"), vec![128.0]);
    }
}

/// A panic inside the recorded closure ends the capture on the way out: the thread's stream
/// captures nothing afterwards and eager work runs.
#[test]
fn a_panic_while_recording_ends_the_capture() {
    let _serial = serial();
    for (name, hip) in backends() {
        let x = F::from_slice(&hip, &[64], &values(64, 9)).expect("x");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = capture(&hip, || -> Result<()> {
                (x.ex() * 2.0f32).eval::<f32>()?;
                panic!("inside the recording")
            });
        }));
        assert!(caught.is_err(), "[{name}]");
        assert_eq!(
            active_captures(),
            0,
            "[{name}] the capture was left running"
        );
        let y = (x.ex() + 1.0f32)
            .eval::<f32>()
            .expect("eager after the panic");
        assert_eq!(
            y.to_vec().expect("read")[0],
            values(64, 9)[0] + 1.0,
            "[{name}]"
        );
    }
}

/// Temporaries of a capture reuse memory freed earlier in the same capture (stream order
/// inside the graph keeps that safe): a chain of 50 operations holds a few blocks, not 50,
/// and still computes what it computes eagerly.
#[test]
fn temporaries_of_a_capture_reuse_its_freed_blocks() {
    let _serial = serial();
    for (name, hip) in backends() {
        let x = F::from_slice(&hip, &[1000], &values(1000, 10)).expect("x");
        let chain = || -> Result<F> {
            let mut z = (x.ex() + 0.0f32).eval::<f32>()?;
            for i in 0..50 {
                z = (z.ex() * 0.75f32 + i as f32).eval::<f32>()?;
            }
            Ok(z)
        };
        let expected = chain().expect("eager").to_vec().expect("read");
        let before = hip.memory_stats().in_use_bytes;
        let (graph, z) = capture(&hip, chain).expect("capture");
        let grown = hip.memory_stats().in_use_bytes - before;
        assert!(
            grown <= 4 * 4096,
            "[{name}] {grown} bytes held for 51 arrays of 4000"
        );
        graph.launch().expect("launch");
        assert_eq!(z.to_vec().expect("read"), expected, "[{name}]");
    }
}

/// `Graph::update`: the same chain with other scalars (updated in place where the driver
/// allows) and work of another shape (instantiated anew) each compute, bit for bit, what
/// they compute eagerly, into the outputs the update returns; the old output keeps its last
/// values; inputs are still read at each launch; a refused update changes nothing; every
/// recording's memory is freed once its arrays and the graph are gone.
#[test]
fn an_update_launches_the_new_recording() {
    let _serial = serial();
    for (name, hip) in backends() {
        eprintln!("{name}");
        let dims = [8, 40];
        let mut x = F::from_slice(&hip, &dims, &values(320, 10)).expect("x");
        let before = hip.memory_stats().in_use_bytes;
        let chain = |x: &F, a: f32, b: f32| -> Result<F> {
            let mut z = (x.ex() * a).eval::<f32>()?;
            for i in 0..10 {
                z = (z.ex() * 0.5f32 + b * i as f32).eval::<f32>()?;
            }
            z.sum_axis(1)
        };
        let eager = |x: &F, a: f32, b: f32| chain(x, a, b).expect("eager").to_vec().expect("read");
        let read = |y: &F| y.to_vec().expect("read");

        let (graph, y1) = capture(&hip, || chain(&x, 2.0, 0.25)).expect("capture");
        graph.launch().expect("launch");
        let first = eager(&x, 2.0, 0.25);
        assert_eq!(read(&y1), first, "[{name}] before the update");

        let y2 = graph
            .update(|| chain(&x, -1.5, 3.0))
            .expect("update with other scalars");
        assert_eq!(active_captures(), 0, "[{name}] the update's capture ended");
        graph.launch().expect("launch after the update");
        assert_eq!(read(&y2), eager(&x, -1.5, 3.0), "[{name}] new scalars");
        assert_eq!(read(&y1), first, "[{name}] the old output keeps its values");
        x.assign(&F::from_slice(&hip, &dims, &values(320, 11)).expect("x2"))
            .expect("assign");
        graph.launch().expect("launch with new inputs");
        assert_eq!(read(&y2), eager(&x, -1.5, 3.0), "[{name}] new inputs");

        let y3 = graph
            .update(|| x.cumsum(1))
            .expect("update to another shape");
        graph.launch().expect("launch of another shape");
        let cumsum = |x: &F| read(&x.cumsum(1).expect("eager cumsum"));
        assert_eq!(read(&y3), cumsum(&x), "[{name}] another shape");

        let refused = graph.update(|| {
            let t = chain(&x, 1.0, 1.0)?;
            t.to_vec()?;
            Ok(t)
        });
        let e = refused.expect_err("a read-back cannot be recorded");
        assert_eq!(e.kind(), ErrorKind::NotCapturable, "[{name}] {e:?}");
        assert_eq!(active_captures(), 0, "[{name}] the refused capture ended");
        x.fill(0.25).expect("fill");
        graph.launch().expect("launch after a refused update");
        assert_eq!(read(&y3), cumsum(&x), "[{name}] unchanged by the refusal");

        drop((y1, y2, y3));
        drop(graph);
        hip.synchronize().expect("synchronize");
        assert_eq!(
            hip.memory_stats().in_use_bytes,
            before,
            "[{name}] every recording's memory is freed"
        );
    }
}
