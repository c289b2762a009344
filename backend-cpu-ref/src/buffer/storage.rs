//! How buffers hold element types ([`Storage`]) and a check that two buffers differ.

use gpuarrays_core::{Complex32, Complex64};

use super::CpuBuffer;
use crate::error::CpuError;

/// How a CPU buffer holds an element type: as itself, except bool, held as its byte.
///
/// Kernels are dispatched with [`gpuarrays_core::dispatch_dtype!`], which binds the Rust
/// element type (`bool` for Bool); they read and write `Stored<T>`. A buffer may hold any
/// byte where a bool is expected (a `u8` array reinterpreted as bool), and reading such a
/// byte as a Rust `bool` would be undefined behaviour, so bool kernels work on the byte
/// (ordering and comparing bytes orders and compares the bools they stand for).
pub(crate) trait Storage {
    type Repr: Copy + Send + Sync + 'static;
}

/// The type a CPU buffer holds for the element type `T` (see [`Storage`]).
pub(crate) type Stored<T> = <T as Storage>::Repr;

impl Storage for bool {
    type Repr = u8;
}

macro_rules! stored_as_itself {
    ($($t:ty),*) => {$(
        impl Storage for $t {
            type Repr = $t;
        }
    )*};
}
stored_as_itself!(u8, i32, u32, i64, u64, f32, f64, Complex32, Complex64);

/// Fails unless `a` and `b` are different buffers (kernels that read one buffer while
/// writing another rely on it).
pub(crate) fn distinct(a: &CpuBuffer, b: &CpuBuffer) -> Result<(), CpuError> {
    if std::ptr::eq(a, b) {
        Err(crate::error::invalid("the same buffer as input and output"))
    } else {
        Ok(())
    }
}
