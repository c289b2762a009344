//! Arrays of two devices, and the other argument errors.

use super::*;

#[test]
fn arrays_of_two_devices_do_not_mix() {
    let (b1, b2) = (cpu(), cpu());
    let (x, y) = (iota(&b1, &[3]), iota(&b2, &[3]));
    let hint = ["different devices", "move data explicitly"];
    fails(
        (x.ex() + y.ex()).eval::<f32>(),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    fails(
        iota(&b1, &[2, 2]).matmul(&iota(&b2, &[2, 2])),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    let mut d = iota(&b1, &[3]);
    fails(d.assign(&y), ErrorKind::DeviceMismatch, &hint);
    fails(
        (y.ex() * 2.0).eval_into(&mut d),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    let c = Array::<bool, _>::from_vec(&b2, vec![true, false, true]).unwrap();
    fails(
        c.ex().select(&x, 0.0).eval::<f32>(),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    // Moving explicitly works.
    let moved = y.to_backend(&b1).unwrap();
    assert_eq!(
        (x.ex() + moved.ex())
            .eval::<f32>()
            .unwrap()
            .to_vec()
            .unwrap(),
        [0.0, 2.0, 4.0]
    );
}

#[test]
fn other_argument_errors() {
    let b = cpu();
    fails(
        Array::<f32, _>::from_slice(&b, &[2, 2], &[1.0, 2.0, 3.0]),
        ErrorKind::LengthMismatch,
        &["expected 4 elements, got 3"],
    );
    fails(iota(&b, &[2]).item(), ErrorKind::LengthMismatch, &["item"]);
    fails(
        Array::<f32, _>::zeros(&b, &[1; 9]),
        ErrorKind::RankTooLarge,
        &["at most 8"],
    );
    let mut d = iota(&b, &[3, 5]);
    fails(
        d.assign(&iota(&b, &[5, 3])),
        ErrorKind::WrongShape,
        &["assign"],
    );
    fails(
        (iota(&b, &[3]).ex() + 1.0).eval_into(&mut d),
        ErrorKind::WrongShape,
        &["eval_into"],
    );
    fails(
        Expr::<CpuBackend>::scalar(Scalar::F32(1.0)).eval_raw(),
        ErrorKind::InvalidArgument,
        &["no device", "Array::full"],
    );
    let idx = Expr::index(&b, &[3]).cast(DType::F32);
    fails(
        (idx + iota(&b, &[2, 3]).ex()).eval::<f32>(),
        ErrorKind::InvalidArgument,
        &["evaluate the leaf to an array first"],
    );
}
