//! Axes that do not exist, reductions without identity over nothing, wrong ranks and matrix shapes.

use super::*;

#[test]
fn axes_that_do_not_exist() {
    let b = cpu();
    let a = iota(&b, &[2, 3, 4]);
    fails(
        a.sum_axis(3),
        ErrorKind::AxisOutOfRange,
        &["axis 3", "3 dimensions"],
    );
    fails(a.min_axis(7), ErrorKind::AxisOutOfRange, &["axis 7"]);
    fails(a.argmax_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.any_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.mean_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.cumsum(3), ErrorKind::AxisOutOfRange, &["cumsum"]);
    fails(a.cumprod(5), ErrorKind::AxisOutOfRange, &["cumprod"]);
    fails(a.reverse(3), ErrorKind::AxisOutOfRange, &["reverse"]);
    let s = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(s.sum_axis(0), ErrorKind::AxisOutOfRange, &["0 dimensions"]);
    fails(
        a.permute(&[0, 1]),
        ErrorKind::InvalidArgument,
        &["not a permutation"],
    );
    fails(
        a.permute(&[0, 1, 1]),
        ErrorKind::InvalidArgument,
        &["not a permutation"],
    );
}

#[test]
fn reductions_without_identity_over_nothing() {
    let b = cpu();
    let e = iota(&b, &[0]);
    for r in [e.min(), e.max()] {
        fails(
            r,
            ErrorKind::EmptyReduction,
            &["empty", "check the length first"],
        );
    }
    fails(e.argmin(), ErrorKind::EmptyReduction, &["argmin"]);
    fails(e.argmax(), ErrorKind::EmptyReduction, &["argmax"]);
    fails(e.mean(), ErrorKind::EmptyReduction, &["mean"]);
    let rows = iota(&b, &[0, 3]);
    fails(rows.min_axis(0), ErrorKind::EmptyReduction, &["min"]);
    fails(rows.mean_axis(0), ErrorKind::EmptyReduction, &["mean"]);
    // Reductions with an identity give it.
    assert_eq!(e.sum().unwrap(), 0.0);
    assert_eq!(e.prod().unwrap(), 1.0);
    assert!(e.all().unwrap() && !e.any().unwrap());
    assert_eq!(rows.sum_axis(0).unwrap().to_vec().unwrap(), [0.0; 3]);
}

#[test]
fn operations_on_the_wrong_number_of_dimensions() {
    let b = cpu();
    let s = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(
        s.sort(),
        ErrorKind::RankMismatch,
        &["sort", "at least 1 dimension"],
    );
    fails(s.find(), ErrorKind::RankMismatch, &["find"]);
    fails(s.find_first(), ErrorKind::RankMismatch, &["find_first"]);
    fails(
        iota(&b, &[2, 3, 4]).transpose(),
        ErrorKind::RankMismatch,
        &["2 dimensions"],
    );
    fails(
        iota(&b, &[3]).matmul(&iota(&b, &[3, 2])),
        ErrorKind::RankMismatch,
        &["2 or 3 dimensions"],
    );
    fails(
        iota(&b, &[1, 2, 2, 2]).matmul(&iota(&b, &[2, 2])),
        ErrorKind::RankMismatch,
        &["matmul"],
    );
}

#[test]
fn matmul_shapes_that_do_not_fit() {
    let b = cpu();
    fails(
        iota(&b, &[2, 3]).matmul(&iota(&b, &[4, 2])),
        ErrorKind::ShapeMismatch,
        &["[2, 3]", "[4, 2]"],
    );
    fails(
        iota(&b, &[2, 3, 4]).matmul(&iota(&b, &[3, 4, 5])),
        ErrorKind::ShapeMismatch,
        &["matmul"],
    );
}
