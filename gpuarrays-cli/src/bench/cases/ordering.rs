//! `array/sorting/...`: the sort family on f32 — a stable `argsort`, `topk(100)`, `unique`
//! with inverse and counts (about 16 copies of each value), and `searchsorted` of every
//! element in a sorted table of 65,536. The large variant (`L`) has 2^26 elements, the size
//! the performance targets are stated at, rather than 1 GiB: PyTorch's and CuPy's
//! equivalents are run on the same sizes.

use gpuarrays::{AnyBackend, Array, Side, SortOrder};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Work};

/// Entries of the `searchsorted` table.
const TABLE: usize = 1 << 16;

/// The rows for vectors of `n` f32.
pub fn cases(v: &mut Vec<Case>, suffix: String, n: usize) {
    let name = |what: &str| format!("array/sorting/{what}{suffix}");
    // Read the values once, write i64 indices once: what any argsort must move.
    v.push(Case::new(
        name("argsort"),
        json!({"op": "argsort", "dtype": "f32", "dims": [n]}),
        Work::Bytes((n * (4 + 8)) as f64),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &[n], 41)?;
            Ok(Box::new(move || x.argsort(0, SortOrder::Ascending).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("topk100"),
        json!({"op": "topk", "dtype": "f32", "dims": [n], "k": 100}),
        Work::Bytes((n * 4) as f64),
        move |b: &AnyBackend| {
            let x = data::<f32>(b, &[n], 42)?;
            Ok(Box::new(move || x.topk(100, 0, SortOrder::Descending).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("unique"),
        json!({"op": "unique", "dtype": "f32", "dims": [n], "distinct": n / 16}),
        Work::Bytes((n * (4 + 8)) as f64),
        move |b: &AnyBackend| {
            let u = data::<f32>(b, &[n], 43)?;
            let x: Array<f32, _> = (u.ex() * (n / 16) as f32).floor().eval()?;
            Ok(Box::new(move || x.unique_all().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        name("searchsorted"),
        json!({"op": "searchsorted", "dtype": "f32", "dims": [n], "table": TABLE}),
        Work::Bytes((n * (4 + 8)) as f64),
        move |b: &AnyBackend| {
            let table = data::<f32>(b, &[TABLE], 44)?.sort()?;
            let x = data::<f32>(b, &[n], 45)?;
            Ok(Box::new(move || table.searchsorted(&x, Side::Left).map(drop)) as Runner)
        },
    ));
}
