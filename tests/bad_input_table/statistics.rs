//! Rows of `docs/bad-inputs.md`: Statistics and vector operations.

use gpuarrays::{Complex64, NormOrd};

use super::*;

#[test]
fn cummax_of_complex_numbers() {
    let z = Array::<Complex64, _>::zeros(&cpu(), &[3]).unwrap();
    expect("cummax_of_complex_numbers", z.cummax(0));
}

#[test]
fn variance_of_bools() {
    let t = Array::<bool, _>::from_slice(&cpu(), &[2], &[true, false]).unwrap();
    expect("variance_of_bools", t.var(0));
}

#[test]
fn logsumexp_of_integers() {
    let i = Array::<i32, _>::from_slice(&cpu(), &[2], &[1, 2]).unwrap();
    expect("logsumexp_of_integers", i.logsumexp());
}

#[test]
fn variance_with_ddof_past_the_length() {
    expect_handled("variance_with_ddof_past_the_length");
    let b = cpu();
    assert_eq!(iota(&b, &[3]).var(3).unwrap(), f64::INFINITY);
    assert_eq!(iota(&b, &[3]).var(7).unwrap(), f64::INFINITY);
    let same = Array::<f32, _>::from_slice(&b, &[3], &[2.0; 3]).unwrap();
    assert!(same.var(3).unwrap().is_nan());
    assert!(iota(&b, &[1]).var(1).unwrap().is_nan());
}

#[test]
fn norm_1_of_a_matrix() {
    expect(
        "norm_1_of_a_matrix",
        iota(&cpu(), &[3, 5]).norm_ord(NormOrd::One),
    );
}

#[test]
fn dot_of_three_dimensions() {
    let b = cpu();
    expect(
        "dot_of_three_dimensions",
        iota(&b, &[2, 3, 4]).dot(&iota(&b, &[4])),
    );
}

#[test]
fn vdot_lengths_differ() {
    let b = cpu();
    expect("vdot_lengths_differ", iota(&b, &[3]).vdot(&iota(&b, &[4])));
}
