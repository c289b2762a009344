//! Launches of a captured graph from any thread, ordered like one operation over every
//! buffer the graph uses.

use super::*;
use gpuarrays_core::capture;

/// A graph reading `x` and writing `out` is captured on this thread. Another thread then
/// writes `x` (a slow kernel on its own stream) and a third launches the graph: the launch
/// must wait for that write, and this thread's later write of `out` for the launch (the race
/// detector checks the launch's declared accesses).
#[test]
fn graph_launches_are_ordered_with_other_threads_work() {
    let (_h, f, b) = fake_with(FakeConfig {
        kernel_time: Duration::from_millis(20),
        ..FakeConfig::default()
    });
    let (x, out) = (b.alloc(N * 4).unwrap(), b.alloc(N * 4).unwrap());
    write_f32(&b, &x, 1.0);
    scale(&b, 0, &x, &out, 2.0); // compiled outside the capture
    let (graph, ()) = capture(&b, || {
        scale(&b, 0, &x, &out, 2.0);
        Ok(())
    })
    .expect("capture");
    // Threads stay alive until the end: a thread that ends returns its stream to the pool
    // after its work completed, which would order everything by itself.
    let (x, graph) = (Arc::new(x), Arc::new(graph));
    let done = Arc::new(Barrier::new(3));
    let (wrote_tx, wrote_rx) = mpsc::channel();
    let (launched_tx, launched_rx) = mpsc::channel();
    let writer = {
        let (b, x, done) = (b.clone(), x.clone(), done.clone());
        std::thread::spawn(move || {
            fill(&b, &x, 5.0);
            wrote_tx.send(()).unwrap();
            done.wait();
            b.synchronize().expect("the write completes");
        })
    };
    wrote_rx.recv().unwrap();
    let launcher = {
        let (graph, done, b2) = (graph.clone(), done.clone(), b.clone());
        std::thread::spawn(move || {
            graph.launch().expect("launch");
            launched_tx.send(()).unwrap();
            done.wait();
            b2.synchronize().expect("the launch completes");
        })
    };
    launched_rx.recv().unwrap();
    fill(&b, &out, 1.0);
    assert_no_races(&f);
    b.synchronize().expect("this thread's write completes");
    done.wait();
    writer.join().unwrap();
    launcher.join().unwrap();
}

/// The seed's reproducer, through the user API: another thread frees buffers whose last use
/// is on the capturing thread's stream while it captures — one the captured work uses, one
/// it does not. Neither free enters the graph (a launch that frees memory allocated outside
/// it fails on the double and crashes on a device): the first buffer's memory is kept for
/// the graph and freed with it, the second is freed when the capture ends.
#[test]
fn a_free_by_another_thread_during_a_capture_never_enters_the_graph() {
    let (_h, f, b) = fake_with(FakeConfig::default());
    let in_use = || b.memory_stats().in_use_bytes;
    let out = b.alloc(N * 4).unwrap();
    let before = in_use();
    let (used, unused) = (b.alloc(N * 4).unwrap(), b.alloc(N * 4).unwrap());
    write_f32(&b, &used, 1.0);
    write_f32(&b, &unused, 2.0);
    scale(&b, 0, &used, &out, 2.0);
    scale(&b, 0, &unused, &out, 2.0); // `unused`'s last use: this thread's stream
    let (used, unused) = (Arc::new(used), Arc::new(unused));
    let (capturing_tx, capturing_rx) = mpsc::channel();
    let (freed_tx, freed_rx) = mpsc::channel();
    let freer = {
        let (used, unused) = (used.clone(), unused.clone());
        std::thread::spawn(move || {
            capturing_rx.recv().unwrap();
            drop((used, unused)); // the last references: both are freed now
            freed_tx.send(()).unwrap();
        })
    };
    let mut mine = Some((used, unused));
    let (graph, ()) = capture(&b, || {
        let (used, unused) = mine.take().expect("runs once");
        scale(&b, 0, &used, &out, 3.0);
        drop((used, unused));
        capturing_tx.send(()).unwrap();
        freed_rx.recv().unwrap();
        Ok(())
    })
    .expect("capture");
    freer.join().unwrap();
    let st = b.device_state().memory().stats();
    assert_eq!(
        st.deferred_frees, 0,
        "the unused buffer was freed at the capture's end"
    );
    assert_eq!(
        in_use(),
        before + N * 4,
        "the used buffer's memory is kept for the graph"
    );
    graph
        .launch()
        .expect("the graph frees nothing it did not allocate");
    graph.launch().expect("and can be launched again");
    drop(graph);
    b.synchronize().unwrap();
    assert_eq!(in_use(), before, "the graph's memory is freed with it");
    assert_no_races(&f);
}

/// `Graph::update` with work of the same shape (another scalar) updates the executable graph
/// in place; work of another shape is instantiated anew; a failing update changes nothing.
/// The old recording's memory (a temporary only it used) is freed after its launches, and
/// launches stay ordered (the race detector checks every launch's declared accesses).
#[test]
fn updates_are_made_in_place_when_the_shape_is_kept_and_free_what_only_the_old_graph_used() {
    let (_h, f, b) = fake_with(FakeConfig {
        kernel_time: Duration::from_millis(5),
        ..FakeConfig::default()
    });
    let in_use = || b.memory_stats().in_use_bytes;
    let (x, out) = (b.alloc(N * 4).unwrap(), b.alloc(N * 4).unwrap());
    write_f32(&b, &x, 1.0);
    scale(&b, 0, &x, &out, 2.0); // compiled outside the capture
    let before = in_use();
    let mut tmp = Some(b.alloc(N * 4).unwrap());
    let (graph, ()) = capture(&b, || {
        let t = tmp.take().expect("runs once");
        scale(&b, 0, &x, &t, 2.0);
        scale(&b, 0, &t, &out, 2.0);
        drop(t); // its memory is kept for the graph
        Ok(())
    })
    .expect("capture");
    graph.launch().expect("launch");
    let stats = f.stats();
    assert_eq!((stats.graph_instantiations, stats.graph_updates), (1, 0));
    assert_eq!(
        in_use(),
        before + N * 4,
        "the temporary is kept for the graph"
    );

    // The same two kernels with other scalars, reading `x` twice: updated in place.
    graph
        .update(|| {
            scale(&b, 0, &x, &out, 3.0);
            scale(&b, 0, &x, &out, 4.0);
            Ok(())
        })
        .expect("update");
    let stats = f.stats();
    assert_eq!((stats.graph_instantiations, stats.graph_updates), (1, 1));
    graph.launch().expect("launch after the update");
    b.synchronize().unwrap();
    assert_eq!(
        in_use(),
        before,
        "the temporary only the old recording used is freed after its launches"
    );

    // One kernel: another topology, instantiated anew.
    graph
        .update(|| {
            scale(&b, 0, &x, &out, 5.0);
            Ok(())
        })
        .expect("update to another shape");
    let stats = f.stats();
    assert_eq!((stats.graph_instantiations, stats.graph_updates), (2, 1));
    graph.launch().expect("launch of the new executable graph");

    // A failing update leaves the graph as it was.
    let failed: gpuarrays_core::Result<()> = graph.update(|| {
        scale(&b, 0, &x, &out, 6.0);
        Err(gpuarrays_core::Error::InvalidArgument {
            op: "test".into(),
            reason: "give up".into(),
        })
    });
    assert!(failed.is_err());
    assert_eq!(f.stats().graph_instantiations, 2);
    assert_eq!(f.stats().graph_updates, 1);
    graph.launch().expect("the graph still launches");
    fill(&b, &out, 1.0);
    b.synchronize().unwrap();
    assert_no_races(&f);
    drop(graph);
    b.synchronize().unwrap();
    assert_eq!(in_use(), before);
}
