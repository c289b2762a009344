//! Rows of `docs/bad-inputs.md`: Shapes and sizes, views and slices, reshape, reinterpret.

use super::*;

// ---------------------------------------------------------------------------------
// Shapes and sizes
// ---------------------------------------------------------------------------------

#[test]
fn upload_length_differs_from_shape() {
    let r = Array::<f32, _>::from_slice(&cpu(), &[2, 2], &[1.0, 2.0, 3.0]);
    expect("upload_length_differs_from_shape", r);
}

#[test]
fn shape_element_count_overflows() {
    let r = Array::<f32, _>::zeros(&cpu(), &[usize::MAX, 2]);
    expect("shape_element_count_overflows", r);
}

#[test]
fn empty_shape_with_overflowing_other_dimensions() {
    for dims in [[0, 1 << 40, 1 << 40], [1 << 40, 1 << 40, 0]] {
        let r = Array::<f32, _>::zeros(&cpu(), &dims);
        expect("empty_shape_with_overflowing_other_dimensions", r);
    }
}

#[test]
fn byte_size_overflows() {
    let r = Array::<f64, _>::zeros(&cpu(), &[usize::MAX / 4]);
    expect("byte_size_overflows", r);
}

#[test]
fn allocation_of_half_the_address_space() {
    let r = Array::<u8, _>::zeros(&cpu(), &[usize::MAX / 2]);
    expect("allocation_of_half_the_address_space", r);
}

#[test]
fn more_than_eight_dimensions() {
    expect(
        "more_than_eight_dimensions",
        Array::<f32, _>::zeros(&cpu(), &[1; 9]),
    );
}

#[test]
fn item_of_an_array_of_several_elements() {
    let a = Array::from_vec(&cpu(), vec![1.0f32, 2.0]).unwrap();
    expect("item_of_an_array_of_several_elements", a.item());
}

#[test]
fn untyped_array_as_the_wrong_type() {
    let a = iota(&cpu(), &[3]);
    expect(
        "untyped_array_as_the_wrong_type",
        a.raw().clone().into_typed::<f64>(),
    );
}

// ---------------------------------------------------------------------------------
// Views and slices
// ---------------------------------------------------------------------------------

#[test]
fn view_range_past_the_end() {
    let a = iota(&cpu(), &[4, 5]);
    expect("view_range_past_the_end", a.view(&[0..5, 0..5]));
}

#[test]
fn view_range_reversed() {
    let a = iota(&cpu(), &[4, 5]);
    let (start, end) = (3, 2); // built at run time: a literal reversed range is a lint
    expect("view_range_reversed", a.view(&[start..end, 0..5]));
}

#[test]
fn view_with_too_few_ranges() {
    let a = iota(&cpu(), &[4, 5]);
    expect(
        "view_with_too_few_ranges",
        a.view(std::slice::from_ref(&(0..2))),
    );
}

#[test]
fn flattening_a_transposed_view() {
    let a = iota(&cpu(), &[4, 5]);
    expect(
        "flattening_a_transposed_view",
        a.transpose().and_then(|t| t.reshape(&[-1])),
    );
}

#[test]
fn slice_past_the_end() {
    let a = iota(&cpu(), &[4, 5]);
    expect("slice_past_the_end", a.slice(18..21));
}

// ---------------------------------------------------------------------------------
// Reshape
// ---------------------------------------------------------------------------------

#[test]
fn reshape_count_differs() {
    expect(
        "reshape_count_differs",
        iota(&cpu(), &[2, 6]).reshape(&[5, 2]),
    );
}

#[test]
fn reshape_two_inferred_dimensions() {
    expect(
        "reshape_two_inferred_dimensions",
        iota(&cpu(), &[2, 6]).reshape(&[-1, -1]),
    );
}

#[test]
fn reshape_negative_dimension() {
    expect(
        "reshape_negative_dimension",
        iota(&cpu(), &[2, 6]).reshape(&[-2, 6]),
    );
}

#[test]
fn reshape_infer_next_to_zero() {
    expect(
        "reshape_infer_next_to_zero",
        iota(&cpu(), &[0, 3]).reshape(&[0, -1]),
    );
}

#[test]
fn reshape_count_not_divisible() {
    expect(
        "reshape_count_not_divisible",
        iota(&cpu(), &[2, 6]).reshape(&[5, -1]),
    );
}

#[test]
fn reshape_product_overflows() {
    let empty = iota(&cpu(), &[1, 1, 0]);
    expect(
        "reshape_product_overflows",
        empty.reshape(&[1 << 40, 1 << 40]),
    );
}

#[test]
fn reshape_to_nine_dimensions() {
    expect(
        "reshape_to_nine_dimensions",
        iota(&cpu(), &[2, 6]).reshape(&[1; 9]),
    );
}

// ---------------------------------------------------------------------------------
// Reinterpret
// ---------------------------------------------------------------------------------

#[test]
fn reinterpret_last_dimension_does_not_divide() {
    expect(
        "reinterpret_last_dimension_does_not_divide",
        iota(&cpu(), &[3]).reinterpret::<f64>(),
    );
}

#[test]
fn reinterpret_misaligned_start() {
    let shifted = iota(&cpu(), &[4]).slice(1..3).unwrap();
    expect("reinterpret_misaligned_start", shifted.reinterpret::<f64>());
}

#[test]
fn reinterpret_bytes_as_bool() {
    expect_handled("reinterpret_bytes_as_bool");
    let bytes = Array::<u8, _>::from_vec(&cpu(), vec![0, 1, 2, 255, 0]).unwrap();
    let b = bytes.reinterpret::<bool>().unwrap();
    assert_eq!(b.to_vec().unwrap(), [false, true, true, true, false]);
    // Every operation reads a nonzero byte as true, and computed bools are 0 or 1.
    assert_eq!(b.find_first().unwrap(), Some(1));
    assert_eq!(b.argmax().unwrap(), 1);
    assert!(!b.all().unwrap());
    let not: Array<bool, _> = (!b.ex()).eval().unwrap();
    assert_eq!(
        not.reinterpret::<u8>().unwrap().to_vec().unwrap(),
        [1, 0, 0, 0, 1]
    );
    let same: Array<bool, _> = b.ex().eq(true).eval().unwrap();
    assert_eq!(
        same.reinterpret::<u8>().unwrap().to_vec().unwrap(),
        [0, 1, 1, 1, 0]
    );
}

#[test]
fn reinterpret_zero_d_to_another_size() {
    let zero_d = Array::<f32, _>::from_slice(&cpu(), &[], &[1.0]).unwrap();
    expect(
        "reinterpret_zero_d_to_another_size",
        zero_d.reinterpret::<f64>(),
    );
}

#[test]
fn reinterpret_result_too_large() {
    let empty = Array::<f64, _>::from_slice(&cpu(), &[0, 1 << 62], &[]).unwrap();
    expect("reinterpret_result_too_large", empty.reinterpret::<u8>());
}
