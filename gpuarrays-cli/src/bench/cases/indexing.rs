//! `array/index/...`: gathers and scatters at the suite's sizes — rows picked by an index
//! (`index_select`), an element picked per position (`take_along_axis`, PyTorch `gather`),
//! additions at random positions (`scatter_add`), a 256-bin `bincount` (every update
//! contends for few elements), and boolean selection (`masked_select`). The indices are
//! uniform random positions made on the device; PyTorch and CuPy make their own alike.

use gpuarrays::kernel::IndexMode;
use gpuarrays::{AnyBackend, Array, DType, Result};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Work};

/// Uniform random i64 positions in `0..n`, of shape `dims`.
fn positions(
    b: &AnyBackend,
    dims: &[usize],
    n: usize,
    seed: u64,
) -> Result<Array<i64, AnyBackend>> {
    let u = Array::<f32, _>::random_uniform(b, dims, seed)?;
    (u.ex() * n as f32)
        .floor()
        .min((n - 1) as f32)
        .cast(DType::I64)
        .eval()
}

/// The rows for an f32 matrix of `m` (rows, cols) and a vector of `n` elements.
pub fn cases(v: &mut Vec<Case>, suffix: String, m: [usize; 2], n: usize) {
    let [r, c] = m;
    let name = |what: &str| format!("array/index/{what}{suffix}");
    // Half the rows, each read whole: the gathered bytes, written once, plus the indices.
    let picked = r / 2;
    v.push(Case::new(
        name("index_select"),
        json!({"op": "index_select", "dtype": "f32", "dims": m, "count": picked}),
        Work::Bytes((picked * c * 4 * 2 + picked * 8) as f64),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &m, 31)?;
            let i = positions(b, &[picked], r, 32)?;
            Ok(Box::new(move || x.take(&i, Some(0), IndexMode::Raise).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("take_along_axis"),
        json!({"op": "take_along_axis", "dtype": "f32", "dims": m, "axis": 1}),
        Work::Bytes((r * c * (8 + 4 + 4)) as f64),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &m, 33)?;
            let i = positions(b, &m, c, 34)?;
            Ok(Box::new(move || x.take_along_axis(&i, 1).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("scatter_add"),
        json!({"op": "scatter_add", "dtype": "f32", "dims": [n], "bins": n}),
        Work::Bytes((n * (8 + 4 + 8)) as f64),
        move |b: &AnyBackend| {
            let mut t = Array::<f32, _>::zeros(b, &[n])?;
            let x = data::<f32>(b, &[n], 35)?;
            let i = positions(b, &[n], n, 36)?;
            Ok(Box::new(move || t.scatter_add(&i, &x, 0)) as Runner)
        },
    ));
    v.push(Case::new(
        name("bincount256"),
        json!({"op": "bincount", "dtype": "i64", "dims": [n], "bins": 256}),
        Work::Bytes((n * 8) as f64),
        move |b: &AnyBackend| {
            let i = positions(b, &[n], 256, 37)?;
            Ok(Box::new(move || i.bincount(256).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("masked_select"),
        json!({"op": "masked_select", "dtype": "f32", "dims": [n]}),
        Work::Bytes((n * (1 + 4) + n / 2 * 4) as f64),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &[n], 38)?;
            let mask = Array::<f32, _>::random_uniform(b, &[n], 39)?
                .ex()
                .gt(0.5f32)
                .eval::<bool>()?;
            Ok(Box::new(move || x.masked_select(&mask).map(drop)) as Runner)
        },
    ));
}
