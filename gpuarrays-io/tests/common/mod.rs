//! Shared test data: deterministic arrays of every element type, and byte comparison.

#![allow(dead_code)]

use gpuarrays_core::{Array, DType, Element, RawArray, dispatch_dtype};
use gpuarrays_cpu_ref::CpuBackend;

/// The little-endian bytes of element `i` of the sample array of `dtype`: values that
/// exercise sign, fractions, large magnitudes and both complex parts.
pub fn sample_element(dtype: DType, i: usize) -> Vec<u8> {
    let k = i as i64;
    match dtype {
        DType::Bool => vec![u8::from(i % 3 == 0)],
        DType::I8 => vec![(i * 37 % 256) as u8],
        DType::U8 => vec![(i * 37 % 256) as u8],
        DType::I16 => ((k * 7919 % 65536 - 32768) as i16).to_le_bytes().to_vec(),
        DType::U16 => ((k * 40503 % 65536) as u16).to_le_bytes().to_vec(),
        DType::F16 => gpuarrays_core::f16::from_f64(k as f64 * 0.37 - 3.5)
            .to_le_bytes()
            .to_vec(),
        DType::BF16 => gpuarrays_core::bf16::from_f64(k as f64 * -1.5e5 + 0.125)
            .to_le_bytes()
            .to_vec(),
        DType::I32 => ((k * 7919 - 50_000) as i32).to_le_bytes().to_vec(),
        DType::U32 => ((k * 2_654_435_761 % 4_294_967_296) as u32)
            .to_le_bytes()
            .to_vec(),
        DType::I64 => (k * 1_000_000_007 - (1i64 << 40)).to_le_bytes().to_vec(),
        DType::U64 => (u64::MAX - i as u64 * 977).to_le_bytes().to_vec(),
        DType::F32 => (k as f32 * 0.37 - 3.5).to_le_bytes().to_vec(),
        DType::F64 => (k as f64 * 1.0e-3 - 2.0e10 / (k as f64 + 1.0))
            .to_le_bytes()
            .to_vec(),
        DType::C32 => [
            (k as f32 * 0.5).to_le_bytes(),
            (-(k as f32) - 0.25).to_le_bytes(),
        ]
        .concat(),
        DType::C64 => [
            (k as f64 / 3.0).to_le_bytes(),
            (k as f64 * -7.5).to_le_bytes(),
        ]
        .concat(),
    }
}

/// A contiguous array of `dtype` and shape `dims` holding the sample elements.
pub fn sample(cpu: &CpuBackend, dtype: DType, dims: &[usize]) -> RawArray<CpuBackend> {
    let n: usize = dims.iter().product();
    let bytes: Vec<u8> = (0..n).flat_map(|i| sample_element(dtype, i)).collect();
    dispatch_dtype!(dtype, T => {
        let values = T::from_bytes(&bytes).expect("sample bytes");
        Array::<T, _>::from_slice(cpu, dims, &values).expect("upload").into_raw()
    })
}

/// Asserts two arrays have the same type, shape and elements (compared as bytes, so NaNs
/// and signed zeros count).
pub fn assert_same(a: &RawArray<CpuBackend>, b: &RawArray<CpuBackend>, what: &str) {
    assert_eq!(a.dtype(), b.dtype(), "{what}: dtype");
    assert_eq!(a.dims(), b.dims(), "{what}: shape");
    assert_eq!(
        a.to_bytes().expect("download a"),
        b.to_bytes().expect("download b"),
        "{what}: elements"
    );
}

/// Shapes every format round-trips: 0-d, empty (several ways), 1-d, 2-d, 3-d.
pub const SHAPES: &[&[usize]] = &[
    &[],
    &[0],
    &[3, 0],
    &[0, 4, 2],
    &[1],
    &[5],
    &[2, 3],
    &[2, 3, 4],
];
