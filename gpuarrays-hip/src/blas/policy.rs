//! Which element types the vendor BLAS takes. Where products go and at which precision is the
//! runtime's [`KernelPolicy`](crate::runtime::KernelPolicy) (`matmul`, `blas_math`); its
//! types are re-exported here.

use crate::platform::BlasType;
use gpuarrays_core::DType;

pub use crate::runtime::policy::{ALLOW_TF32_ENV, MATMUL_ENV, MatmulRoute};

/// The vendor BLAS type of a gpuarrays element type, if the libraries have one.
pub fn blas_type(dtype: DType) -> Option<BlasType> {
    match dtype {
        DType::F32 => Some(BlasType::F32),
        DType::F64 => Some(BlasType::F64),
        DType::C32 => Some(BlasType::C32),
        DType::C64 => Some(BlasType::C64),
        DType::F16 => Some(BlasType::F16),
        DType::BF16 => Some(BlasType::BF16),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_float_and_complex_types_have_a_blas_type() {
        for d in DType::ALL {
            let expected = d.is_float() || d.is_complex();
            assert_eq!(blas_type(d).is_some(), expected, "{d}");
            if let Some(t) = blas_type(d) {
                assert_eq!(t.size(), d.size(), "{d}");
            }
        }
    }
}
