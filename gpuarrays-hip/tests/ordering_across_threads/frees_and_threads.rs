//! Frees after every reader, records whose stream changed hands, many threads sharing arrays.

use super::*;

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
