//! Shapes, views, reshapes and reinterprets that do not fit, and unsupported element types.

use super::*;

#[test]
fn shapes_that_do_not_broadcast() {
    let b = cpu();
    let (x, y) = (iota(&b, &[3]), iota(&b, &[4]));
    let e = fails(
        (x.ex() + y.ex()).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["[3]", "[4]", "trailing dimensions must be equal or 1"],
    );
    assert!(matches!(e, Error::ShapeMismatch { ref op, .. } if op == "add"));
    let m = iota(&b, &[2, 3]);
    fails(
        (m.ex() * iota(&b, &[2]).ex()).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["broadcast"],
    );
    fails(
        x.broadcast_to(&[4]),
        ErrorKind::ShapeMismatch,
        &["broadcast"],
    );
    fails(m.broadcast_to(&[3]), ErrorKind::ShapeMismatch, &["[2, 3]"]);
    let c = Array::<bool, _>::from_vec(&b, vec![true, false]).unwrap();
    fails(
        c.ex().select(&x, &y).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["select"],
    );
}

#[test]
fn views_out_of_range_and_not_contiguous() {
    let b = cpu();
    let a = iota(&b, &[4, 5]);
    fails(
        a.view(&[0..5, 0..5]),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds", "[4, 5]"],
    );
    // A reversed range (start past end), built at run time.
    let (start, end) = (3, 2);
    fails(
        a.view(&[start..end, 0..5]),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds"],
    );
    fails(
        a.slice(10..21),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds"],
    );
    fails(
        a.view(std::slice::from_ref(&(0..2))),
        ErrorKind::RankMismatch,
        &["one range per dimension"],
    );
    // A column and rows with a partial second axis are strided views; flattening the
    // transpose (which no one stride steps through) is refused with the way out.
    for ranges in [[0..4, 1..2], [1..3, 0..4]] {
        assert!(!a.view(&ranges).unwrap().is_contiguous());
    }
    fails(
        a.transpose().unwrap().reshape(&[-1]),
        ErrorKind::NonContiguousView,
        &["cannot share its buffer", "contiguous()", "copy"],
    );
    // What is contiguous works: a row part, whole rows.
    assert_eq!(
        a.view(&[2..3, 1..4]).unwrap().to_vec().unwrap(),
        [11.0, 12.0, 13.0]
    );
    assert_eq!(a.view(&[1..3, 0..5]).unwrap().dims(), &[2, 5]);
}

#[test]
fn reshapes_that_do_not_fit() {
    let b = cpu();
    let a = iota(&b, &[2, 6]);
    fails(
        a.reshape(&[5, 2]),
        ErrorKind::Reshape,
        &["12 elements", "differs"],
    );
    fails(
        a.reshape(&[-1, -1]),
        ErrorKind::Reshape,
        &["at most one dimension may be -1"],
    );
    fails(a.reshape(&[5, -1]), ErrorKind::Reshape, &["not divisible"]);
    fails(a.reshape(&[-2, 6]), ErrorKind::Reshape, &["non-negative"]);
    let empty = iota(&b, &[0, 3]);
    fails(
        empty.reshape(&[0, -1]),
        ErrorKind::Reshape,
        &["cannot infer -1"],
    );
    fails(
        a.reshape(&[1; 9]),
        ErrorKind::RankTooLarge,
        &["at most 8 dimensions"],
    );
    assert_eq!(a.reshape(&[3, -1]).unwrap().dims(), &[3, 4]);
}

#[test]
fn reinterprets_that_do_not_fit() {
    let b = cpu();
    let a = iota(&b, &[3]);
    fails(
        a.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["12 bytes", "multiple of 8"],
    );
    let shifted = iota(&b, &[4]).slice(1..3).unwrap();
    fails(
        shifted.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["starts at byte 4"],
    );
    let zero_d = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(
        zero_d.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["0-d"],
    );
    // Fitting reinterprets work.
    assert_eq!(iota(&b, &[4]).reinterpret::<f64>().unwrap().dims(), &[2]);
}

#[test]
fn unsupported_types_are_reported_with_what_to_use() {
    let r = Restricted::new(cpu());
    let e = fails(
        Array::<u64, _>::zeros(&r, &[2]),
        ErrorKind::Unsupported,
        &["u64", "restricted", "use f32, i32 or u32"],
    );
    assert!(matches!(
        e,
        Error::Unsupported {
            op: OpKind::Storage,
            ..
        }
    ));
    let x = Array::<i32, _>::from_vec(&r, vec![1, 2, 3]).unwrap();
    fails(x.argmax_axis(0), ErrorKind::Unsupported, &["i64"]);
    fails(x.cast::<Complex64>(), ErrorKind::Unsupported, &["c64"]);
    fails(
        Array::<f64, _>::random_uniform(&r, &[4], 1),
        ErrorKind::Unsupported,
        &["f64"],
    );
    assert_eq!(r.violations(), 0);
}
