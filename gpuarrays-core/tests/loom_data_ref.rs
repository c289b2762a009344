//! loom models of `DataRef` release: every interleaving of drop, clone, read and
//! `free_all_shared` on up to three threads.
//!
//! Run (see docs/safety.md):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test --release -p gpuarrays-core --target-dir target/loom \
//!     --test loom_data_ref --test loom_handle_cache
//! ```
//!
//! Properties checked in every interleaving:
//! - the destructor runs exactly once, whoever releases and in whatever order (two
//!   `free_all_shared` calls, `free_all_shared` against the last drop, many drops);
//! - it receives the buffer the `DataRef` was created with;
//! - it never runs while a holder still borrows the buffer (each borrower counts itself in
//!   the buffer while it reads; the destructor asserts the count is zero);
//! - a borrow either sees the whole live buffer or gets `Error::Freed`, and after
//!   `free_all_shared` returns, every holder gets `Error::Freed`;
//! - nothing leaks (loom fails a model whose `Arc`s outlive it) and nothing deadlocks.
#![cfg(loom)]

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;

use gpuarrays_core::{DataRef, Error};

/// The model's buffer: a value to check, and the number of holders borrowing it now.
struct Buf {
    value: u32,
    readers: Arc<AtomicUsize>,
}

const VALUE: u32 = 0x5eed;

/// A `DataRef` whose destructor checks its buffer and that nobody reads it, and counts runs.
fn probe() -> (DataRef<Buf>, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let buffer = Buf {
        value: VALUE,
        readers: Arc::new(AtomicUsize::new(0)),
    };
    let data = DataRef::new(buffer, move |b: Buf| {
        assert_eq!(b.value, VALUE, "the destructor got another buffer");
        assert_eq!(
            b.readers.load(Ordering::SeqCst),
            0,
            "the destructor ran while a holder was reading the buffer"
        );
        counter.fetch_add(1, Ordering::SeqCst);
    });
    (data, runs)
}

/// Borrows the buffer as a backend call would: `Ok(true)` if it was live (and whole),
/// `Ok(false)` if it was freed.
fn borrow(data: &DataRef<Buf>) -> bool {
    match data.read() {
        Ok(guard) => {
            guard.readers.fetch_add(1, Ordering::SeqCst);
            assert_eq!(guard.value, VALUE, "a borrow saw another buffer");
            // Another step inside the borrow, so that a release can try to slip in.
            thread::yield_now();
            guard.readers.fetch_sub(1, Ordering::SeqCst);
            true
        }
        Err(Error::Freed) => false,
        Err(other) => panic!("a borrow failed with {other:?}, expected the buffer or Freed"),
    }
}

#[test]
fn two_free_all_shared_run_the_destructor_exactly_once() {
    loom::model(|| {
        let (a, runs) = probe();
        let b = a.clone();
        let c = a.clone();
        let t1 = thread::spawn(move || a.free_all_shared().unwrap());
        let t2 = thread::spawn(move || b.free_all_shared().unwrap());
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1, "after both releases");
        assert!(matches!(c.read(), Err(Error::Freed)));
        drop(c);
        assert_eq!(runs.load(Ordering::SeqCst), 1, "after the last drop");
    });
}

#[test]
fn free_all_shared_racing_the_last_drop_runs_it_exactly_once() {
    loom::model(|| {
        let (a, runs) = probe();
        let b = a.clone();
        let t1 = thread::spawn(move || {
            a.free_all_shared().unwrap();
            drop(a);
        });
        let t2 = thread::spawn(move || drop(b));
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn a_borrow_racing_free_all_shared_never_sees_a_released_buffer() {
    loom::model(|| {
        let (a, runs) = probe();
        let b = a.clone();
        let reader = thread::spawn(move || {
            let live = borrow(&b);
            // Once freed, always freed.
            if !live {
                assert!(!borrow(&b));
            }
            drop(b);
        });
        let releaser = thread::spawn(move || {
            a.free_all_shared().unwrap();
            assert!(!borrow(&a), "a borrow after free_all_shared returned");
            drop(a);
        });
        reader.join().unwrap();
        releaser.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn clones_borrows_and_drops_on_three_threads_release_once_after_the_last() {
    loom::model(|| {
        let (a, runs) = probe();
        let b = a.clone();
        let t1 = thread::spawn(move || {
            let derived = a.clone();
            drop(a);
            assert!(borrow(&derived), "nobody freed it for every holder");
            drop(derived);
        });
        let t2 = thread::spawn(move || {
            assert!(borrow(&b));
            drop(b);
        });
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn free_all_shared_against_a_borrow_and_a_drop_on_three_threads() {
    loom::model(|| {
        let (a, runs) = probe();
        let b = a.clone();
        let c = a.clone();
        let t1 = thread::spawn(move || {
            borrow(&b);
            drop(b);
        });
        let t2 = thread::spawn(move || {
            c.free_all_shared().unwrap();
        });
        drop(a);
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}
