//! Printing arrays: NumPy's layout (nested brackets, one width, a common float precision),
//! summaries of large arrays that read only what they show, and the element type, shape
//! and device in every form.

use gpuarrays_core::{Array, Backend, Complex32, Result};
use gpuarrays_cpu_ref::CpuBackend;

fn cpu() -> CpuBackend {
    CpuBackend::with_threads(2).expect("a CPU backend")
}

#[test]
fn a_matrix_prints_as_numpy_repr_and_str() -> Result<()> {
    let be = cpu();
    let dev = be.device().to_string();
    let a = Array::<f32, _>::from_slice(&be, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.5, -6.0])?;
    assert_eq!(
        format!("{a:?}"),
        format!(
            "array([[ 1.0,  2.0,  3.0],\n       [ 4.0,  5.5, -6.0]], dtype=f32, shape=[2, 3], device={dev})"
        )
    );
    let b = Array::<i32, _>::from_slice(&be, &[2, 2], &[1, -20, 3, 4])?;
    assert_eq!(
        format!("{b}"),
        format!("[[  1 -20]\n [  3   4]] (i32, [2, 2], {dev})")
    );
    Ok(())
}

#[test]
fn zero_dimensional_and_empty_arrays() -> Result<()> {
    let be = cpu();
    let dev = be.device().to_string();
    let s = Array::<i64, _>::from_slice(&be, &[], &[5])?;
    assert_eq!(
        format!("{s:?}"),
        format!("array(5, dtype=i64, shape=[], device={dev})")
    );
    let e = Array::<f64, _>::from_slice(&be, &[2, 0], &[])?;
    assert_eq!(
        format!("{e:?}"),
        format!("array([[]], dtype=f64, shape=[2, 0], device={dev})")
    );
    Ok(())
}

#[test]
fn large_arrays_are_summarised_on_every_long_axis() -> Result<()> {
    let be = cpu();
    let dev = be.device().to_string();
    let a = Array::<i32, _>::arange(&be, 0, 1, 2000)?;
    assert_eq!(
        format!("{a}"),
        format!("[   0    1    2 ... 1997 1998 1999] (i32, [2000], {dev})")
    );
    let m = a.reshape(&[10, 200])?;
    let text = format!("{m:?}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "array([[   0,    1,    2, ...,  197,  198,  199],"
    );
    assert_eq!(
        lines[1],
        "       [ 200,  201,  202, ...,  397,  398,  399],"
    );
    assert_eq!(lines[3], "       ...,");
    assert_eq!(
        lines[4],
        "       [1400, 1401, 1402, ..., 1597, 1598, 1599],"
    );
    assert_eq!(lines.len(), 7, "{text}");
    // A view past the buffer's start reads its own elements.
    #[allow(clippy::single_range_in_vec_init)] // one range: a 1-D view
    let tail = a.view(&[999..2000])?;
    let text = format!("{tail}");
    assert!(
        text.starts_with("[ 999 1000 1001 ... 1997 1998 1999]"),
        "{text}"
    );
    Ok(())
}

/// Every printed number parses back to the element it shows, and no line is longer than
/// NumPy's 75 characters (the innermost axis wraps).
#[test]
fn printed_values_parse_back_and_lines_wrap() -> Result<()> {
    let be = cpu();
    let values: Vec<f64> = (0..40).map(|i| (i as f64 - 17.0) * 0.375).collect();
    let a = Array::<f64, _>::from_slice(&be, &[2, 20], &values)?;
    let text = format!("{a}");
    let numbers = text.split(" (f64").next().unwrap_or_default();
    for line in numbers.lines() {
        assert!(line.len() <= 75, "{line:?} is {} long", line.len());
    }
    let parsed: Vec<f64> = numbers
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f64>().expect("a number"))
        .collect();
    assert_eq!(parsed, values);
    Ok(())
}

#[test]
fn complex_and_bool_elements() -> Result<()> {
    let be = cpu();
    let c = Array::<Complex32, _>::from_slice(
        &be,
        &[2],
        &[Complex32::new(1.0, -0.5), Complex32::new(2.5, 2.0)],
    )?;
    assert!(format!("{c:?}").starts_with("array([1.0-0.5j, 2.5+2.0j], dtype=c32"));
    let b = Array::<bool, _>::from_slice(&be, &[3], &[true, false, true])?;
    assert!(format!("{b}").starts_with("[ true false  true] (bool"));
    Ok(())
}

#[test]
fn a_freed_array_prints_the_reason_instead_of_values() -> Result<()> {
    let be = cpu();
    let a = Array::<f32, _>::zeros(&be, &[3])?;
    a.free_all_shared()?;
    let text = format!("{a:?}");
    assert!(text.starts_with("array(<unreadable: "), "{text}");
    assert!(text.contains("dtype=f32, shape=[3]"), "{text}");
    // The alternate form shows the internals, and reads nothing.
    assert!(format!("{a:#?}").contains("offset"));
    Ok(())
}
