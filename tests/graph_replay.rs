//! Graph capture on the backends that record no graphs of their own — the CPU reference
//! (directly and through `AnyBackend`) and wgpu (lavapipe in CI; required with
//! `GPUARRAYS_REQUIRE_WGPU=1`) — through core's graphs: every operation family gives, when
//! the graph is launched, exactly what it gives eagerly, also after new values were written
//! into the inputs; work that needs the host is refused with a typed error and leaves no
//! capture behind; the memory a graph uses outlives the arrays that held it and is freed
//! with the graph. (HIP's own graphs: `gpuarrays-hip/tests/graph_replay.rs`.)

use gpuarrays::kernel::IndexMode;
use gpuarrays::prelude::*;
use gpuarrays::{BackendKind, DType, ErrorKind, Pad, Side, SortOrder, capture};
use std::fmt::Debug;

/// The backends to test, by name.
fn backends() -> Vec<(&'static str, AnyBackend)> {
    let cpu = CpuBackend::new();
    let mut v = vec![("cpu", AnyBackend::from(cpu))];
    match AnyBackend::open(BackendKind::Wgpu, 0) {
        Ok(w) => v.push(("wgpu", w)),
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter: {e}")
        }
        Err(e) => eprintln!("wgpu skipped: {e}"),
    }
    v
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
/// for bit (the same calls on the same data).
fn check_replay<B: Backend, T: Element + PartialEq + Debug>(
    b: &B,
    name: &str,
    f: impl Fn(&Array<f32, B>, &Array<f32, B>) -> Result<Array<T, B>>,
) {
    let dims = [8, 40];
    let mut x = Array::<f32, B>::from_slice(b, &dims, &values(320, 1)).expect("x");
    let mut y = Array::<f32, B>::from_slice(b, &dims, &values(320, 2)).expect("y");
    let eager = f(&x, &y).expect("eager").to_vec().expect("read");
    let (graph, out) = capture(b, || f(&x, &y)).unwrap_or_else(|e| panic!("[{name}] {e:?}"));
    assert!(
        graph.node_count().is_some_and(|n| n > 0),
        "[{name}] {graph:?}"
    );
    graph.launch().expect("launch");
    assert_eq!(out.to_vec().expect("read"), eager, "[{name}] first launch");
    x.assign(&Array::from_slice(b, &dims, &values(320, 3)).expect("x2"))
        .expect("assign x");
    y.assign(&Array::from_slice(b, &dims, &values(320, 4)).expect("y2"))
        .expect("assign y");
    let eager = f(&x, &y).expect("eager 2").to_vec().expect("read");
    assert_ne!(
        out.to_vec().expect("read"),
        eager,
        "[{name}] not yet launched"
    );
    graph.launch().expect("launch 2");
    let replayed = out.to_vec().expect("read");
    assert_eq!(replayed, eager, "[{name}] after new inputs");
}

#[test]
fn every_operation_family_replays_what_it_computes_eagerly() {
    for (name, b) in backends() {
        eprintln!("{name}");
        let b = &b;
        check_replay(b, "elementwise", |x, y| {
            (x.ex() * 2.0f32 + y.ex()).exp().eval::<f32>()
        });
        check_replay(b, "chain of 20 small ops", |x, y| {
            let mut z = (x.ex() + y.ex()).eval::<f32>()?;
            for i in 0..20 {
                z = (z.ex() * 0.5f32 + i as f32).eval::<f32>()?;
            }
            Ok(z)
        });
        check_replay(b, "sum along an axis", |x, _| x.sum_axis(1));
        check_replay(b, "cumsum", |x, _| x.cumsum(0));
        check_replay(b, "sort", |x, _| x.sort());
        check_replay(b, "argsort", |x, _| x.argsort(1, SortOrder::Ascending));
        check_replay(b, "matmul", |x, y| x.matmul(&y.transpose()?.contiguous()?));
        check_replay(b, "transpose copy", |x, _| x.transpose()?.contiguous());
        check_replay(b, "concatenate", |x, y| Array::concatenate(&[x, y], 1));
        check_replay(b, "pad", |x, _| x.pad(&[(1, 2), (3, 0)], Pad::Edge));
        check_replay(b, "take (wrap)", |x, y| {
            let i = (y.ex() * 100.0f32).cast(DType::I64).eval::<i64>()?;
            x.take(&i, Some(1), IndexMode::Wrap)
        });
        // Distinct positions (a permutation): with repeated ones the winner is unspecified.
        check_replay(b, "put (wrap)", |x, y| {
            let mut acc = Array::<f32, AnyBackend>::zeros(x.backend(), &[8, 40])?;
            let i = y.reshape(&[-1])?.argsort(0, SortOrder::Ascending)?;
            acc.put(&i, &x.reshape(&[-1])?, IndexMode::Wrap)?;
            Ok(acc)
        });
        check_replay(b, "searchsorted", |x, y| {
            let table = x.reshape(&[-1])?.sort()?;
            table.searchsorted(&y.reshape(&[-1])?, Side::Left)
        });
        if b.supports(DType::C32, gpuarrays::OpKind::Fft) == gpuarrays::Support::Yes {
            check_replay(b, "rfft", |x, _| {
                x.raw()
                    .rfft(Some(64), 1, gpuarrays::FftNorm::Backward)?
                    .into_typed::<gpuarrays::Complex32>()
            });
        }
    }
}

/// Reads, synchronisation, host writes and data-dependent sizes need the host: each is
/// refused with `NotCapturable`, the capture ends with no graph, and eager work goes on.
#[test]
fn work_that_needs_the_host_is_refused_and_leaves_no_capture() {
    for (name, b) in backends() {
        eprintln!("{name}");
        let x = Array::<f32, _>::from_slice(&b, &[4, 8], &values(32, 5)).expect("x");
        let i = Array::<i64, _>::from_slice(&b, &[3], &[0, 2, 9]).expect("i");
        type Case<'a> = (&'a str, Box<dyn Fn() -> Result<()> + 'a>);
        let cases: Vec<Case<'_>> = vec![
            (
                "a read",
                Box::new(|| (x.ex() * 2.0f32).eval::<f32>()?.to_vec().map(drop)),
            ),
            ("synchronize", Box::new(|| b.synchronize())),
            (
                "host data",
                Box::new(|| Array::<f32, _>::from_slice(&b, &[2], &[1.0, 2.0]).map(drop)),
            ),
            (
                "nonzero",
                Box::new(|| x.ex().gt(0.0f32).eval::<bool>()?.nonzero().map(drop)),
            ),
            (
                "scatter_add (its range check)",
                Box::new(|| {
                    let mut acc = Array::<f32, _>::zeros(&b, &[4, 8])?;
                    let j = (x.ex() * 0.0f32 + 1.0f32).cast(DType::I64).eval::<i64>()?;
                    acc.scatter_add(&j, &x, 1)
                }),
            ),
            (
                "take (raise)",
                Box::new(|| x.take(&i, Some(1), IndexMode::Raise).map(drop)),
            ),
            (
                "a capture inside a capture",
                Box::new(|| capture(&b, || Ok(())).map(drop)),
            ),
        ];
        for (case_name, case) in cases {
            let e = capture(&b, &*case).expect_err(case_name);
            assert_eq!(
                e.kind(),
                ErrorKind::NotCapturable,
                "[{name}] [{case_name}] {e:?}"
            );
            // No capture is left: eager work runs and reads back.
            let eager = (x.ex() + 1.0f32).eval::<f32>().expect("eager");
            assert_eq!(eager.to_vec().expect("read").len(), 32, "[{case_name}]");
            b.synchronize().expect("sync after the refusal");
        }
    }
}

/// The memory of an input dropped after the capture is kept for the graph (a launch still
/// reads the same values), the output's memory too; dropping the graph frees both.
#[test]
fn a_graph_keeps_the_memory_it_uses_until_it_drops() {
    for (name, b) in backends() {
        eprintln!("{name}");
        let in_use = || b.memory_stats().in_use_bytes;
        let before = in_use();
        let x = Array::<f32, _>::from_slice(&b, &[1000], &values(1000, 6)).expect("x");
        let expected = (x.ex() * 3.0f32 - 1.0f32)
            .eval::<f32>()
            .expect("eager")
            .to_vec()
            .expect("read");
        let (graph, y) = capture(&b, || (x.ex() * 3.0f32 - 1.0f32).eval::<f32>()).expect("capture");
        drop(x);
        let other = Array::<f32, _>::from_slice(&b, &[1000], &values(1000, 7)).expect("other");
        graph.launch().expect("launch");
        assert_eq!(y.to_vec().expect("read"), expected, "[{name}]");
        drop(other);
        let held = in_use();
        assert!(
            held >= before + 8000,
            "[{name}] x and y are held: {held} vs {before}"
        );
        drop(y);
        assert_eq!(
            in_use(),
            held,
            "[{name}] y's memory is the graph's while it lives"
        );
        drop(graph);
        assert_eq!(
            in_use(),
            before,
            "[{name}] the graph's memory is freed with it"
        );
    }
}

/// A graph launched from another thread computes the same, ordered after this thread's
/// writes of its input; a graph launched inside another capture becomes part of it.
#[test]
fn graphs_launch_from_other_threads_and_inside_other_captures() {
    for (name, b) in backends() {
        eprintln!("{name}");
        let mut x = Array::<f32, _>::from_slice(&b, &[256], &values(256, 8)).expect("x");
        let (graph, y) = capture(&b, || x.sum_axis(0)).expect("capture");
        x.fill(0.5).expect("fill");
        std::thread::scope(|s| {
            s.spawn(|| graph.launch().expect("launch on another thread"));
        });
        assert_eq!(y.to_vec().expect("read"), vec![128.0], "[{name}]");

        let (outer, z) = capture(&b, || {
            graph.launch()?;
            (y.ex() * 2.0f32).eval::<f32>()
        })
        .expect("outer capture");
        assert_eq!(
            outer.node_count(),
            graph.node_count().map(|n| n + 1),
            "[{name}] the inner graph's calls, then the product"
        );
        x.fill(0.25).expect("fill");
        outer.launch().expect("launch the outer graph");
        assert_eq!(z.to_vec().expect("read"), vec![128.0], "[{name}]");
        assert_eq!(y.to_vec().expect("read"), vec![64.0], "[{name}]");
    }
}

/// A panic inside the recorded closure ends the capture on the way out: eager work runs
/// and reads back afterwards.
#[test]
fn a_panic_while_recording_ends_the_capture() {
    for (name, b) in backends() {
        let x = Array::<f32, _>::from_slice(&b, &[64], &values(64, 9)).expect("x");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = capture(&b, || -> Result<()> {
                (x.ex() * 2.0f32).eval::<f32>()?;
                panic!("inside the recording")
            });
        }));
        assert!(caught.is_err(), "[{name}]");
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

/// The CPU reference directly (not through `AnyBackend`): core's graphs need nothing of a
/// backend.
#[test]
fn the_cpu_backend_replays_directly() {
    let cpu = CpuBackend::new();
    check_replay(&cpu, "elementwise on CpuBackend", |x, y| {
        (x.ex() * y.ex() - 1.0f32).eval::<f32>()
    });
    check_replay(&cpu, "reduction on CpuBackend", |x, _| x.sum_axis(0));
}

/// Temporaries dropped during a capture lend their memory to later ones of the capture: a
/// chain of 50 operations on 1,000 f32 holds a few buffers, not 50, and still computes what
/// it computes eagerly.
#[test]
fn temporaries_of_a_capture_reuse_dropped_buffers() {
    for (name, b) in backends() {
        let x = Array::<f32, _>::from_slice(&b, &[1000], &values(1000, 10)).expect("x");
        let chain = |x: &Array<f32, AnyBackend>| -> Result<Array<f32, AnyBackend>> {
            let mut z = (x.ex() + 1.0f32).eval::<f32>()?;
            for i in 0..50 {
                z = (z.ex() * 0.5f32 + i as f32).eval::<f32>()?;
            }
            Ok(z)
        };
        let eager = chain(&x).expect("eager").to_vec().expect("read");
        b.synchronize().expect("sync");
        let before = b.memory_stats().in_use_bytes;
        let (graph, z) = capture(&b, || chain(&x)).expect("capture");
        let held = b.memory_stats().in_use_bytes - before;
        assert!(
            held <= 4 * 4000,
            "[{name}] {held} bytes held for a chain of 51 operations on 4000-byte arrays"
        );
        assert_eq!(graph.node_count(), Some(51), "[{name}]");
        graph.launch().expect("launch");
        assert_eq!(z.to_vec().expect("read"), eager, "[{name}]");
    }
}

/// `Graph::update`: the recording is replaced by one with other scalars, then by one of
/// another shape; each launch computes, bit for bit, what the new recording computes
/// eagerly into the outputs the update returned; the old output keeps its last values; a
/// refused update changes nothing; the old recordings' memory is freed with their arrays.
#[test]
fn an_update_launches_the_new_recording() {
    for (name, b) in backends() {
        eprintln!("{name}");
        let in_use = || b.memory_stats().in_use_bytes;
        let mut x = Array::<f32, _>::from_slice(&b, &[8, 40], &values(320, 10)).expect("x");
        let before = in_use();
        let chain = |x: &Array<f32, AnyBackend>, a: f32, c: f32| {
            let z = (x.ex() * a + c).eval::<f32>()?;
            (z.ex() * 0.5f32).exp().eval::<f32>()?.sum_axis(1)
        };
        let eager = |x: &Array<f32, AnyBackend>, a: f32, c: f32| {
            chain(x, a, c).expect("eager").to_vec().expect("read")
        };
        let (graph, y1) = capture(&b, || chain(&x, 2.0, 0.25)).expect("capture");
        graph.launch().expect("launch");
        let first = eager(&x, 2.0, 0.25);
        assert_eq!(y1.to_vec().expect("read"), first, "[{name}]");

        let y2 = graph.update(|| chain(&x, -1.5, 0.75)).expect("update");
        graph.launch().expect("launch after the update");
        assert_eq!(
            y2.to_vec().expect("read"),
            eager(&x, -1.5, 0.75),
            "[{name}]"
        );
        assert_eq!(y1.to_vec().expect("read"), first, "[{name}] the old output");

        let y3 = graph.update(|| x.cumsum(1)).expect("another shape");
        assert_eq!(graph.node_count(), Some(1), "[{name}] {graph:?}");
        x.fill(0.25).expect("fill");
        graph.launch().expect("launch of another shape");
        let cumsum = x.cumsum(1).expect("eager").to_vec().expect("read");
        assert_eq!(y3.to_vec().expect("read"), cumsum, "[{name}]");

        let refused = graph.update(|| {
            let t = x.cumsum(0)?;
            t.to_vec()?;
            Ok(t)
        });
        let e = refused.expect_err("a read-back cannot be recorded");
        assert_eq!(e.kind(), ErrorKind::NotCapturable, "[{name}] {e:?}");
        graph.launch().expect("launch after a refused update");
        assert_eq!(y3.to_vec().expect("read"), cumsum, "[{name}] unchanged");

        drop((y1, y2, y3));
        drop(graph);
        assert_eq!(
            in_use(),
            before,
            "[{name}] every recording's memory is freed"
        );
    }
}
