//! `half/...`: f16 and bf16 elementwise arithmetic, sums, cumulative sums (an f32 running
//! value, each output rounded once: one pass on HIP, a widening pass, the f32 scan and a
//! rounding pass elsewhere), the cast from f32 and sorts (16-bit keys:
//! two radix passes), at the suite's small size and at 1 GiB of f32 input, compared with the
//! copy bandwidth (and with PyTorch, which `benches/suite_torch.py` runs on the same rows). The kernels compute in
//! f32 and round once per operation (the guide's rule), so these rows show what that costs
//! beside bandwidth.

use gpuarrays::kernel::ReduceOp;
use gpuarrays::{Array, Element, Scalar, bf16, f16};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Sizes, Work};

/// Elements of the rows: the suite's vector length, or 1 GiB of f32 (2^28 elements).
fn lengths(sizes: Sizes) -> Vec<(usize, &'static str)> {
    let mut v = Vec::new();
    if sizes.small() {
        v.push((super::array::SMALL, ""));
    }
    if sizes.large() {
        v.push((1 << 28, "L"));
    }
    v
}

pub fn cases(sizes: Sizes) -> Vec<Case> {
    let mut v = Vec::new();
    for (n, l) in lengths(sizes) {
        typed::<f16>(&mut v, n, l);
        typed::<bf16>(&mut v, n, l);
    }
    v
}

fn typed<T: Element>(v: &mut Vec<Case>, n: usize, l: &str) {
    let t = T::DTYPE.name();
    let size = T::DTYPE.size();
    v.push(Case::new(
        format!("half/{t}/axpy{l}"),
        json!({"op": "axpy", "dtype": t, "dims": [n]}),
        Work::Bytes((3 * n * size) as f64),
        move |b| {
            let x = data::<T>(b, &[n], 4)?;
            let y = data::<T>(b, &[n], 5)?;
            let mut z = Array::<T, _>::zeros(b, &[n])?;
            let a = Scalar::from_f64_lit(1.5, T::DTYPE)?;
            Ok(Box::new(move || (x.ex() * a + y.ex()).eval_into(&mut z)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("half/{t}/sum{l}"),
        json!({"op": "sum", "dtype": t, "dims": [n]}),
        Work::Bytes((n * size) as f64),
        move |b| {
            let x = data::<T>(b, &[n], 7)?;
            Ok(Box::new(move || x.raw().reduce(ReduceOp::Sum, None).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("half/{t}/cumsum{l}"),
        json!({"op": "cumsum", "dtype": t, "dims": [n], "axis": 0}),
        Work::Bytes((2 * n * size) as f64),
        move |b| {
            let x = data::<T>(b, &[n], 10)?;
            Ok(Box::new(move || x.cumsum(0).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("half/{t}/sort{l}"),
        json!({"op": "sort", "dtype": t, "dims": [n]}),
        Work::Bytes((2 * n * size) as f64),
        move |b| {
            let x = data::<T>(b, &[n], 9)?;
            Ok(Box::new(move || x.sort().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("half/{t}/from_f32{l}"),
        json!({"op": "cast", "dtype": "f32", "to": t, "dims": [n]}),
        Work::Bytes((n * (4 + size)) as f64),
        move |b| {
            let x = data::<f32>(b, &[n], 8)?;
            let mut y = Array::<T, _>::zeros(b, &[n])?;
            Ok(Box::new(move || x.ex().cast(T::DTYPE).eval_into(&mut y)) as Runner)
        },
    ));
}
