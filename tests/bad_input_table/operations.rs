//! Rows of `docs/bad-inputs.md`: Reductions, axes and operation shapes.

use gpuarrays::{Expr, Scalar};

use super::*;

// ---------------------------------------------------------------------------------
// Reductions, axes and operation shapes
// ---------------------------------------------------------------------------------

#[test]
fn min_of_an_empty_array() {
    expect("min_of_an_empty_array", iota(&cpu(), &[0]).min());
}

#[test]
fn argmax_of_an_empty_array() {
    expect("argmax_of_an_empty_array", iota(&cpu(), &[0]).argmax());
}

#[test]
fn mean_over_an_empty_axis() {
    expect(
        "mean_over_an_empty_axis",
        iota(&cpu(), &[0, 3]).mean_axis(0),
    );
}

#[test]
fn reduction_axis_out_of_range() {
    expect(
        "reduction_axis_out_of_range",
        iota(&cpu(), &[2, 3, 4]).sum_axis(3),
    );
}

#[test]
fn scan_axis_out_of_range() {
    expect("scan_axis_out_of_range", iota(&cpu(), &[2, 3, 4]).cumsum(5));
}

#[test]
fn permute_with_a_repeated_axis() {
    expect(
        "permute_with_a_repeated_axis",
        iota(&cpu(), &[2, 3, 4]).permute(&[0, 1, 1]),
    );
}

#[test]
fn shapes_that_do_not_broadcast() {
    let b = cpu();
    expect(
        "shapes_that_do_not_broadcast",
        (iota(&b, &[3]).ex() + iota(&b, &[4]).ex()).eval::<f32>(),
    );
}

#[test]
fn broadcast_to_fewer_dimensions() {
    expect(
        "broadcast_to_fewer_dimensions",
        iota(&cpu(), &[2, 3]).broadcast_to(&[3]),
    );
}

#[test]
fn matmul_inner_dimensions_differ() {
    let b = cpu();
    expect(
        "matmul_inner_dimensions_differ",
        iota(&b, &[2, 3]).matmul(&iota(&b, &[4, 2])),
    );
}

#[test]
fn assign_of_another_shape() {
    let b = cpu();
    let mut d = iota(&b, &[3, 5]);
    expect("assign_of_another_shape", d.assign(&iota(&b, &[5, 3])));
}

#[test]
fn transpose_of_three_dimensions() {
    expect(
        "transpose_of_three_dimensions",
        iota(&cpu(), &[2, 3, 4]).transpose(),
    );
}

#[test]
fn sort_of_a_zero_d_array() {
    let s = Array::<f32, _>::from_slice(&cpu(), &[], &[1.0]).unwrap();
    expect("sort_of_a_zero_d_array", s.sort());
}

#[test]
fn expression_that_reads_no_array() {
    expect(
        "expression_that_reads_no_array",
        Expr::<CpuBackend>::scalar(Scalar::F32(1.0)).eval_raw(),
    );
}

#[test]
fn matmul_of_an_empty_batch_with_a_batch_of_one() {
    expect_handled("matmul_of_an_empty_batch_with_a_batch_of_one");
    let b = cpu();
    let empty = Array::<f32, _>::zeros(&b, &[0, 3, 4]).unwrap();
    let one = iota(&b, &[1, 4, 5]);
    // NumPy: (0,3,4) @ (1,4,5) has shape (0,3,5); it used to be [1, 3, 5], read from
    // the empty operand's (on wgpu: another array's) memory.
    assert_eq!(empty.matmul(&one).unwrap().dims(), &[0, 3, 5]);
    assert_eq!(
        one.matmul(&iota(&b, &[0, 5, 2])).unwrap().dims(),
        &[0, 4, 2]
    );
    assert_eq!(empty.matmul(&iota(&b, &[4, 5])).unwrap().dims(), &[0, 3, 5]);
    assert!(empty.matmul(&iota(&b, &[2, 4, 5])).is_err());
}
