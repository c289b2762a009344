//! Rows of `docs/bad-inputs.md`: Freed buffers (`free_all_shared`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays::DataRef;

use super::*;

// ---------------------------------------------------------------------------------
// Freed buffers
// ---------------------------------------------------------------------------------

#[test]
fn read_after_free_all_shared() {
    let a = iota(&cpu(), &[4]);
    a.free_all_shared().unwrap();
    expect("read_after_free_all_shared", a.to_vec());
}

#[test]
fn derived_array_after_its_base_was_freed() {
    let a = iota(&cpu(), &[4, 6]);
    let view = a.view(&[1..3, 0..6]).unwrap();
    a.free_all_shared().unwrap();
    expect("derived_array_after_its_base_was_freed", view.to_vec());
}

#[test]
fn freed_on_another_thread() {
    let a = iota(&cpu(), &[4]);
    let other = a.share();
    std::thread::spawn(move || other.free_all_shared().unwrap())
        .join()
        .unwrap();
    expect("freed_on_another_thread", a.to_vec());
}

#[test]
fn expression_with_a_freed_operand() {
    let b = cpu();
    let (x, y) = (iota(&b, &[3]), iota(&b, &[3]));
    y.free_all_shared().unwrap();
    expect(
        "expression_with_a_freed_operand",
        (x.ex() + y.ex()).eval::<f32>(),
    );
}

#[test]
fn assign_into_a_freed_destination() {
    let b = cpu();
    let (mut dst, src) = (iota(&b, &[3]), iota(&b, &[3]));
    dst.free_all_shared().unwrap();
    expect("assign_into_a_freed_destination", dst.assign(&src));
}

#[test]
fn reduction_of_a_freed_array() {
    let a = iota(&cpu(), &[5]);
    a.free_all_shared().unwrap();
    expect("reduction_of_a_freed_array", a.sum());
}

#[test]
fn free_all_shared_twice_from_two_holders() {
    expect_handled("free_all_shared_twice_from_two_holders");
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let a = DataRef::new(vec![0u8; 16], move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let view = a.clone();
    a.free_all_shared().unwrap();
    view.free_all_shared().unwrap();
    drop((a, view));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn buffer_destructor_that_panics() {
    expect_handled("buffer_destructor_that_panics");
    let a = DataRef::new(vec![0u8; 16], |_| {
        panic!("destructor failure (expected by the test)")
    });
    let b = a.clone();
    a.free_all_shared().unwrap();
    assert!(matches!(b.read(), Err(Error::Freed)));
    drop((a, b));
    let c = DataRef::new(vec![0u8; 16], |_| {
        panic!("destructor failure (expected by the test)")
    });
    drop(c); // the last drop runs it: no unwinding out of `drop`
}

#[test]
fn free_all_shared_while_this_thread_borrows_the_buffer() {
    let a = iota(&cpu(), &[4]);
    let view = a.share();
    let borrow = a.raw().buffer().unwrap();
    // Waiting for this thread's own borrow would never end: refused, nothing released.
    expect(
        "free_all_shared_while_this_thread_borrows_the_buffer",
        view.free_all_shared(),
    );
    drop(borrow);
    assert_eq!(a.to_vec().unwrap(), [0.0, 1.0, 2.0, 3.0]);
    view.free_all_shared().unwrap();
    assert!(matches!(a.to_vec(), Err(Error::Freed)));
}

#[test]
fn empty_view_of_a_freed_array() {
    let a = iota(&cpu(), &[4, 3]);
    let empty = a.view(&[2..2, 0..3]).unwrap();
    a.free_all_shared().unwrap();
    // No element to read, but still a use of the freed buffer (it used to give 0).
    expect("empty_view_of_a_freed_array", empty.sum());
}
