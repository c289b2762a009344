//! One test per row of `docs/bad-inputs.md`, named after the row.
//!
//! The expected error variant and message words come from the table itself (parsed at
//! compile time with `include_str!`), so the documentation cannot drift from what is
//! tested: editing a row changes its test, and `every_row_has_a_test_and_every_test_a_row`
//! fails when a row lacks a test or a test lacks a row. Each test provides only the bad
//! input. Many more cases of the same kinds are in `tests/bad_input.rs`.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays::conformance::Restricted;
use gpuarrays::conformance::errors::error_kind;
use gpuarrays::handle_cache::{HandleCache, Limits};
use gpuarrays::prelude::*;
use gpuarrays::{DataRef, Expr, Scalar};

const TABLE: &str = include_str!("../docs/bad-inputs.md");
const SOURCE: &str = include_str!("bad_input_table.rs");

/// One row of the table.
#[derive(Debug)]
struct Row {
    test: String,
    error: String,
    needles: Vec<String>,
}

/// The backticked fragments of a cell.
fn fragments(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(k, _)| k % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Every row of every table in the document: lines that start with "| `".
fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 4, "a row needs 4 cells: {line}");
            let test = fragments(cells[0]).remove(0);
            let error = match fragments(cells[2]).first() {
                Some(variant) if cells[2].trim().starts_with('`') => variant.clone(),
                _ => cells[2].trim().to_string(),
            };
            Row {
                test,
                error,
                needles: fragments(cells[3]),
            }
        })
        .collect()
}

fn row(test: &str) -> Row {
    rows()
        .into_iter()
        .find(|r| r.test == test)
        .unwrap_or_else(|| panic!("docs/bad-inputs.md has no row `{test}`"))
}

/// Checks an error's variant name and message against row `test`.
#[track_caller]
fn check_error(test: &str, variant: String, message: String) {
    let row = row(test);
    assert_eq!(variant, row.error, "{test}: wrong error ({message})");
    for needle in &row.needles {
        assert!(
            message.contains(needle.as_str()),
            "{test}: message {message:?} lacks {needle:?}"
        );
    }
}

/// Row `test` must be a core error: `r` fails with its variant and message words.
#[track_caller]
fn expect<T: Debug>(test: &str, r: Result<T>) {
    match r {
        Ok(v) => panic!("{test}: expected an error, got Ok({v:?})"),
        Err(e) => check_error(test, format!("Error::{}", error_kind(&e)), e.to_string()),
    }
}

/// Row `test` describes accepted input ("none: ..."); its test checks the behaviour.
#[track_caller]
fn expect_handled(test: &str) {
    let row = row(test);
    assert!(
        row.error.starts_with("none:"),
        "{test}: the table gives an error ({}), the test expects none",
        row.error
    );
}

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

fn iota(b: &CpuBackend, dims: &[usize]) -> Array<f32, CpuBackend> {
    let n: usize = dims.iter().product();
    Array::from_slice(b, dims, &(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap()
}

#[test]
fn every_row_has_a_test_and_every_test_a_row() {
    let documented: BTreeSet<String> = rows().into_iter().map(|r| r.test).collect();
    assert!(documented.len() >= 40, "only {} rows", documented.len());
    let lines: Vec<&str> = SOURCE.lines().collect();
    let tested: BTreeSet<String> = lines
        .windows(3)
        .filter(|w| w[0] == "#[test]" || w[1] == "#[test]")
        .filter_map(|w| {
            let line = if w[1].starts_with("fn ") { w[1] } else { w[2] };
            line.strip_prefix("fn ")?
                .split('(')
                .next()
                .map(str::to_string)
        })
        .filter(|name| name != "every_row_has_a_test_and_every_test_a_row")
        .collect();
    let missing: Vec<_> = documented.difference(&tested).collect();
    let undocumented: Vec<_> = tested.difference(&documented).collect();
    assert!(missing.is_empty(), "rows without a test: {missing:?}");
    assert!(
        undocumented.is_empty(),
        "tests without a row: {undocumented:?}"
    );
    let all_rows = rows().len();
    assert_eq!(all_rows, documented.len(), "two rows share a test name");
}

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
fn view_of_a_column() {
    let a = iota(&cpu(), &[4, 5]);
    expect("view_of_a_column", a.view(&[0..4, 1..2]));
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
    let bytes = Array::<u8, _>::from_vec(&cpu(), vec![0, 1, 2]).unwrap();
    expect("reinterpret_bytes_as_bool", bytes.reinterpret::<bool>());
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

// ---------------------------------------------------------------------------------
// Freed buffers
// ---------------------------------------------------------------------------------

#[test]
fn read_after_free_all_shared() {
    let a = iota(&cpu(), &[4]);
    a.free_all_shared();
    expect("read_after_free_all_shared", a.to_vec());
}

#[test]
fn derived_array_after_its_base_was_freed() {
    let a = iota(&cpu(), &[4, 6]);
    let view = a.view(&[1..3, 0..6]).unwrap();
    a.free_all_shared();
    expect("derived_array_after_its_base_was_freed", view.to_vec());
}

#[test]
fn freed_on_another_thread() {
    let a = iota(&cpu(), &[4]);
    let other = a.share();
    std::thread::spawn(move || other.free_all_shared())
        .join()
        .unwrap();
    expect("freed_on_another_thread", a.to_vec());
}

#[test]
fn expression_with_a_freed_operand() {
    let b = cpu();
    let (x, y) = (iota(&b, &[3]), iota(&b, &[3]));
    y.free_all_shared();
    expect(
        "expression_with_a_freed_operand",
        (x.ex() + y.ex()).eval::<f32>(),
    );
}

#[test]
fn assign_into_a_freed_destination() {
    let b = cpu();
    let (mut dst, src) = (iota(&b, &[3]), iota(&b, &[3]));
    dst.free_all_shared();
    expect("assign_into_a_freed_destination", dst.assign(&src));
}

#[test]
fn reduction_of_a_freed_array() {
    let a = iota(&cpu(), &[5]);
    a.free_all_shared();
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
    a.free_all_shared();
    view.free_all_shared();
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
    a.free_all_shared();
    assert!(matches!(b.read(), Err(Error::Freed)));
    drop((a, b));
    let c = DataRef::new(vec![0u8; 16], |_| {
        panic!("destructor failure (expected by the test)")
    });
    drop(c); // the last drop runs it: no unwinding out of `drop`
}

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

// ---------------------------------------------------------------------------------
// Environment variables and budgets
// ---------------------------------------------------------------------------------

/// Row `test` must be a HIP runtime error: `r` fails with its variant and message words.
#[track_caller]
fn expect_hip<T>(test: &str, r: std::result::Result<T, gpuarrays::hip::HipError>) {
    match r {
        Ok(_) => panic!("{test}: expected an error, got Ok"),
        Err(e) => {
            let debug = format!("{e:?}");
            let variant: String = debug.chars().take_while(|c| c.is_alphanumeric()).collect();
            check_error(test, format!("HipError::{variant}"), e.to_string());
        }
    }
}

#[test]
fn stream_pool_variable_not_on_or_off() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(Some("sometimes"), None);
    expect_hip("stream_pool_variable_not_on_or_off", r);
}

#[test]
fn max_idle_streams_not_a_number() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("many"));
    expect_hip("max_idle_streams_not_a_number", r);
}

#[test]
fn max_idle_streams_negative() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("-1"));
    expect_hip("max_idle_streams_negative", r);
}

#[test]
fn max_idle_streams_too_large() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("99999999999999999999999"));
    expect_hip("max_idle_streams_too_large", r);
}

#[test]
fn hip_platform_variable_unknown() {
    let r = gpuarrays::hip::platform::select_platform_named(Some("metal"));
    expect_hip("hip_platform_variable_unknown", r);
}

/// A cache of `u32` handles that counts destroyed handles.
fn counting_cache(limits: Limits) -> (HandleCache<u8, u32>, Arc<AtomicUsize>) {
    let destroyed = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&destroyed);
    let cache = HandleCache::new(limits, move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    (cache, destroyed)
}

#[test]
fn handle_cache_with_zero_budget() {
    expect_handled("handle_cache_with_zero_budget");
    let (cache, destroyed) = counting_cache(Limits::new(0, 64));
    drop(cache.get_or_create(1, || Ok::<_, ()>((7, 0))).unwrap());
    let s = cache.stats();
    assert_eq!((s.idle, s.evictions, s.live), (0, 1, 0), "{s:?}");
    assert_eq!(destroyed.load(Ordering::SeqCst), 1);
}

#[test]
fn handle_larger_than_the_byte_budget() {
    expect_handled("handle_larger_than_the_byte_budget");
    let (cache, destroyed) = counting_cache(Limits::new(4, 64).with_max_idle_bytes(1 << 20));
    cache.insert(1, 10, 1 << 10);
    drop(
        cache
            .get_or_create(2, || Ok::<_, ()>((20, 2 << 20)))
            .unwrap(),
    );
    assert_eq!(destroyed.load(Ordering::SeqCst), 1);
    assert_eq!(cache.idle_len(&1), 1, "the small handle stays");
    assert_eq!(cache.stats().idle_bytes, 1 << 10);
}

#[test]
fn handle_cache_budget_lowered_below_its_contents() {
    expect_handled("handle_cache_budget_lowered_below_its_contents");
    let (cache, destroyed) = counting_cache(Limits::new(4, 64));
    for key in 0..3u8 {
        cache.insert(key, u32::from(key), 0);
    }
    cache.set_max_idle(1);
    assert_eq!(destroyed.load(Ordering::SeqCst), 2);
    assert_eq!(cache.stats().idle, 1);
    assert_eq!(cache.idle_len(&2), 1, "the most recently cached one stays");
}

#[test]
fn handle_creation_fails() {
    expect_handled("handle_creation_fails");
    let (cache, _) = counting_cache(Limits::default());
    let r = cache.get_or_create(1, || Err::<(u32, usize), _>("driver said no"));
    assert_eq!(r.err(), Some("driver said no"));
    let s = cache.stats();
    assert_eq!((s.misses, s.created, s.live), (1, 0, 0), "{s:?}");
}

#[test]
fn handle_destructor_that_panics() {
    expect_handled("handle_destructor_that_panics");
    let cache: HandleCache<u8, u32> = HandleCache::new(Limits::default(), |_| {
        panic!("handle destructor failure (expected by the test)")
    });
    cache.insert(1, 10, 0);
    assert_eq!(cache.clear(), 1);
    assert_eq!(cache.stats().destroy_panics, 1);
    cache.insert(2, 20, 0);
    assert_eq!(cache.pop(&2), Some((20, 0)), "the cache is still usable");
}
