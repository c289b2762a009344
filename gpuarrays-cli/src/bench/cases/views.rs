//! `array/views/...`: copies and elementwise kernels over strided views, and joining — the
//! rows whose bandwidth the issue of strided arrays asks to be near the copy's: a stepped
//! block copied out, an elementwise kernel reading a transposed view (against the same
//! kernel on a contiguous array), a write into a column-interleaved destination,
//! `concatenate` and `pad`.

use gpuarrays::{AnyBackend, s};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Work};

fn bytes(n: usize, passes: usize) -> Work {
    Work::Bytes((n * 4 * passes) as f64)
}

/// The rows for an f32 matrix of `m` (rows, cols); `suffix` is "" or "L" (1 GiB).
pub fn cases(v: &mut Vec<Case>, suffix: String, m: [usize; 2]) {
    let [r, c] = m;
    let n = r * c;
    let name = |what: &str| format!("array/views/{what}{suffix}");
    v.push(Case::new(
        name("slice_copy"),
        json!({"op": "slice_copy", "dtype": "f32", "dims": m}),
        bytes(n / 4, 2),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &m, 21)?;
            Ok(Box::new(move || x.at(&s![..;2, 1..;2])?.contiguous().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("axpy_contiguous"),
        json!({"op": "axpy_view", "dtype": "f32", "dims": m, "transposed": false}),
        bytes(n, 2),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &m, 22)?;
            Ok(Box::new(move || (x.ex() * 2.0f32 + 1.0f32).eval::<f32>().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("axpy_transposed"),
        json!({"op": "axpy_view", "dtype": "f32", "dims": m, "transposed": true}),
        bytes(n, 2),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &m, 23)?;
            let t = x.transpose()?;
            Ok(Box::new(move || (t.ex() * 2.0f32 + 1.0f32).eval::<f32>().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("assign_columns"),
        json!({"op": "assign_columns", "dtype": "f32", "dims": m}),
        bytes(n / 2, 2),
        move |b: &AnyBackend| {
            let mut dst = data::<f32>(b, &m, 24)?.at(&s![.., ..;2])?;
            let src = data::<f32>(b, dst.dims(), 25)?;
            Ok(Box::new(move || dst.assign(&src)) as Runner)
        },
    ));
    v.push(Case::new(
        name("concatenate"),
        json!({"op": "concatenate", "dtype": "f32", "dims": [r, c / 2], "axis": 1}),
        bytes(n / 2 * 2, 2),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &[r, c / 2], 26)?;
            let y = data::<f32>(b, &[r, c / 2], 27)?;
            Ok(Box::new(move || gpuarrays::Array::concatenate(&[&x, &y], 1).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("pad"),
        json!({"op": "pad", "dtype": "f32", "dims": [r - 2, c - 2]}),
        bytes(n, 2),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &[r - 2, c - 2], 28)?;
            let mode = gpuarrays::Pad::Constant(0.0f32);
            Ok(Box::new(move || x.pad(&[(1, 1), (1, 1)], mode).map(drop)) as Runner)
        },
    ));
}
