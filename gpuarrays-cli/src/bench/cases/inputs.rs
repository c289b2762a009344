//! The input arrays the `array/...` rows share (`array.rs`, and the views, indexing and
//! sorting rows beside it), made on the device so that no host copy enters a timing.

use gpuarrays::{AnyBackend, Array, Element, Result};

/// Test data of type `T` with `dims`: uniform floats, or 0, 1, 2, ... for integers.
pub fn data<T: Element>(b: &AnyBackend, dims: &[usize], seed: u64) -> Result<Array<T, AnyBackend>> {
    let n = dims.iter().product();
    let dims_i: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
    if T::DTYPE.is_float() {
        Array::<f32, _>::random_uniform(b, dims, seed)?.cast::<T>()
    } else {
        Array::<i64, _>::arange(b, 0, 1, n)?
            .cast::<T>()?
            .reshape(&dims_i)
    }
}
