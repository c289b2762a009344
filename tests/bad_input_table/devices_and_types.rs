//! Rows of `docs/bad-inputs.md`: Devices and backends, element types and scalars.

use gpuarrays::Scalar;
use gpuarrays::conformance::Restricted;

use super::*;

// ---------------------------------------------------------------------------------
// Devices and backends
// ---------------------------------------------------------------------------------

#[test]
fn two_cpu_devices_in_one_expression() {
    let (b1, b2) = (cpu(), cpu());
    assert_ne!(b1.device().id, b2.device().id);
    let (x, y) = (iota(&b1, &[3]), iota(&b2, &[3]));
    expect(
        "two_cpu_devices_in_one_expression",
        (x.ex() + y.ex()).eval::<f32>(),
    );
}

#[test]
fn two_cpu_devices_in_matmul() {
    let (b1, b2) = (cpu(), cpu());
    expect(
        "two_cpu_devices_in_matmul",
        iota(&b1, &[2, 2]).matmul(&iota(&b2, &[2, 2])),
    );
}

#[test]
fn assign_across_devices() {
    let (b1, b2) = (cpu(), cpu());
    let mut dst = iota(&b1, &[3]);
    expect("assign_across_devices", dst.assign(&iota(&b2, &[3])));
}

#[test]
fn select_across_devices() {
    let (b1, b2) = (cpu(), cpu());
    let x = iota(&b1, &[3]);
    let mask = Array::<bool, _>::from_vec(&b2, vec![true, false, true]).unwrap();
    expect(
        "select_across_devices",
        mask.ex().select(&x, 0.0).eval::<f32>(),
    );
}

#[test]
fn meshgrid_across_devices() {
    let (b1, b2) = (cpu(), cpu());
    let (x, y) = (iota(&b1, &[3]), iota(&b2, &[2]));
    expect(
        "meshgrid_across_devices",
        Array::meshgrid(&[&x, &y], gpuarrays::Indexing::Xy),
    );
}

#[test]
fn linspace_of_an_integer_type() {
    expect(
        "linspace_of_an_integer_type",
        Array::<i32, _>::linspace(&cpu(), 0, 10, 5, true),
    );
}

#[test]
fn two_backend_types_in_one_operation() {
    expect_handled("two_backend_types_in_one_operation");
    // Mixing them does not type-check, so the only way across is the explicit move.
    let plain = cpu();
    let restricted = Restricted::new(cpu());
    let x = iota(&plain, &[3]);
    let moved = x.to_backend(&restricted).unwrap();
    assert_ne!(plain.device().id, restricted.device().id);
    assert_eq!(moved.to_vec().unwrap(), x.to_vec().unwrap());
    let back = moved.to_backend(&plain).unwrap();
    assert_eq!(
        (x.ex() + back.ex())
            .eval::<f32>()
            .unwrap()
            .to_vec()
            .unwrap(),
        [0.0, 2.0, 4.0]
    );
}

// ---------------------------------------------------------------------------------
// Element types and scalars
// ---------------------------------------------------------------------------------

#[test]
fn operands_of_two_element_types() {
    let b = cpu();
    let y = Array::<f64, _>::from_vec(&b, vec![1.0, 2.0, 3.0]).unwrap();
    expect(
        "operands_of_two_element_types",
        (iota(&b, &[3]).ex() + y.ex()).eval::<f32>(),
    );
}

#[test]
fn literal_out_of_range() {
    let u = Array::<u8, _>::from_vec(&cpu(), vec![1, 2]).unwrap();
    expect("literal_out_of_range", (u.ex() + 300).eval::<u8>());
}

#[test]
fn fractional_literal_for_integers() {
    let i = Array::<i32, _>::from_vec(&cpu(), vec![1, 2]).unwrap();
    expect(
        "fractional_literal_for_integers",
        (i.ex() * 2.5).eval::<i32>(),
    );
}

#[test]
fn operation_undefined_for_the_type() {
    let i = Array::<i32, _>::from_vec(&cpu(), vec![1, 4, 9]).unwrap();
    expect(
        "operation_undefined_for_the_type",
        i.ex().sqrt().eval::<i32>(),
    );
}

#[test]
fn complex_numbers_have_no_order() {
    let z = Array::<Complex32, _>::from_vec(&cpu(), vec![Complex32::new(1.0, 2.0)]).unwrap();
    expect("complex_numbers_have_no_order", z.min());
}

#[test]
fn type_the_device_cannot_run() {
    let r = Restricted::new(cpu());
    expect(
        "type_the_device_cannot_run",
        Array::<u64, _>::zeros(&r, &[2]),
    );
}

#[test]
fn literal_just_past_the_largest_u64() {
    let u = Array::<u64, _>::from_vec(&cpu(), vec![1, 2]).unwrap();
    // 2^64 as an f64 literal used to saturate to u64::MAX silently.
    expect(
        "literal_just_past_the_largest_u64",
        (u.ex() + 18_446_744_073_709_551_616.0).eval::<u64>(),
    );
}

#[test]
fn literal_just_past_the_largest_i64() {
    let i = Array::<i64, _>::from_vec(&cpu(), vec![1, 2]).unwrap();
    expect(
        "literal_just_past_the_largest_i64",
        (i.ex() + 9_223_372_036_854_775_808.0).eval::<i64>(),
    );
}

#[test]
fn literal_beyond_the_range_of_f32() {
    let x = Array::<f32, _>::from_vec(&cpu(), vec![1.0, 2.0]).unwrap();
    expect(
        "literal_beyond_the_range_of_f32",
        (x.ex() + 1e300).eval::<f32>(),
    );
}

#[test]
fn large_integer_literal_that_f64_holds_exactly() {
    expect_handled("large_integer_literal_that_f64_holds_exactly");
    let x = Array::<f64, _>::from_vec(&cpu(), vec![0.0, 1.0]).unwrap();
    let big = (1i64 << 53) + 2;
    let y: Array<f64, _> = (x.ex() + big).eval().unwrap();
    assert_eq!(y.to_vec().unwrap(), [big as f64, big as f64 + 1.0]);
    // One more is not an f64: refused, not rounded.
    assert!((x.ex() + (big - 1)).eval::<f64>().is_err());
}

#[test]
fn f32_literal_for_an_integer_array() {
    let i = Array::<i32, _>::from_vec(&cpu(), vec![1, 2]).unwrap();
    // Reported as the f32 the program wrote (0.1), not its f64 expansion.
    expect(
        "f32_literal_for_an_integer_array",
        (i.ex() + 0.1f32).eval::<i32>(),
    );
}

#[test]
fn fill_with_a_value_of_another_type() {
    let a = iota(&cpu(), &[3]).into_raw();
    expect(
        "fill_with_a_value_of_another_type",
        a.fill(Scalar::F64(1.0)),
    );
}
