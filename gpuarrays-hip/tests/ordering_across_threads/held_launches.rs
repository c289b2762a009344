//! An operation held between ordering its operands and launching, and reads that do not serialise.

use super::*;

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
