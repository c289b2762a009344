//! `ndarray` conversion from every layout (standard, transposed, negative and odd strides)
//! and back, for every element type.

mod common;

use common::sample;
use gpuarrays_core::{Array, Complex32, Complex64, DType, Element, s};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::{FromNdarray, ToNdarray, from_ndarray, to_ndarray};
use ndarray::{ArrayD, IxDyn, array};

fn check_layouts<T: Element>(make: impl Fn(usize) -> T) {
    let cpu = CpuBackend::new();
    let base = ndarray::Array::from_shape_fn((4, 5, 6), |(i, j, k)| make(i * 30 + j * 6 + k));
    let views: Vec<(&str, ndarray::ArrayViewD<T>)> = vec![
        ("standard", base.view().into_dyn()),
        ("transposed", base.t().into_dyn()),
        ("permuted", base.view().permuted_axes([1, 2, 0]).into_dyn()),
        (
            "negative stride",
            base.slice(ndarray::s![.., ..;-1, ..]).into_dyn(),
        ),
        (
            "odd steps",
            base.slice(ndarray::s![1..;3, ..;-2, 1..5;2]).into_dyn(),
        ),
        ("empty", base.slice(ndarray::s![.., 2..2, ..]).into_dyn()),
        ("0-d", base.slice(ndarray::s![1, 2, 3]).into_dyn()),
    ];
    for (name, v) in views {
        let g: Array<T, CpuBackend> = from_ndarray(&cpu, &v).expect("from_ndarray");
        assert_eq!(g.dims(), v.shape(), "{name}");
        let logical: Vec<T> = v.iter().copied().collect();
        assert_eq!(g.to_vec().expect("to_vec"), logical, "{} {name}", T::DTYPE);
        let back = to_ndarray(&g).expect("to_ndarray");
        assert_eq!(back, v.to_owned(), "{} {name}", T::DTYPE);
    }
}

#[test]
fn every_dtype_every_layout() {
    check_layouts(|i| i % 2 == 1);
    check_layouts(|i| (i * 7) as u8);
    check_layouts(|i| i as i32 - 60);
    check_layouts(|i| i as u32 * 3);
    check_layouts(|i| -(i as i64) << 33);
    check_layouts(|i| u64::MAX - i as u64);
    check_layouts(|i| i as f32 * 0.25);
    check_layouts(|i| i as f64 / 7.0);
    check_layouts(|i| Complex32::new(i as f32, -(i as f32)));
    check_layouts(|i| Complex64::new(0.5 * i as f64, 2.0));
}

#[test]
fn gpuarrays_views_convert_in_logical_order() {
    let cpu = CpuBackend::new();
    let a = sample(&cpu, DType::F64, &[3, 4])
        .into_typed::<f64>()
        .expect("typed");
    let v = a.permute(&[1, 0]).expect("t").at(&s![..;-1]).expect("rev");
    let nd = v.to_ndarray().expect("to_ndarray");
    let full = a.to_ndarray().expect("full");
    let expect = full.t().slice(ndarray::s![..;-1, ..]).to_owned().into_dyn();
    assert_eq!(nd, expect);
}

#[test]
fn extension_traits_and_fixed_dims() {
    let cpu = CpuBackend::new();
    let m = array![[1.0f32, 2.0], [3.0, 4.0]];
    let g = m.to_gpuarrays(&cpu).expect("upload");
    assert_eq!(g.dims(), &[2, 2]);
    assert_eq!(g.to_ndarray().expect("down"), m.into_dyn());
    let scalar = ArrayD::from_elem(IxDyn(&[]), 7i32);
    let g = scalar.to_gpuarrays(&cpu).expect("0-d");
    assert_eq!((g.ndim(), g.item().expect("item")), (0, 7));
}
