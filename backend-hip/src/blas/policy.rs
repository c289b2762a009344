//! Which matrix products go to the vendor BLAS, and at which precision, from the environment.

use crate::error::{HipError, Result};
use crate::platform::{BlasMath, BlasType};
use gpuarrays_core::DType;

/// `GPUARRAYS_MATMUL`: `auto` (default), `blas` or `kernel`.
pub const MATMUL_ENV: &str = "GPUARRAYS_MATMUL";
/// `GPUARRAYS_ALLOW_TF32`: `1`/`on` lets single-precision products use reduced-precision
/// tensor-core math (TF32 / xf32); off by default.
pub const ALLOW_TF32_ENV: &str = "GPUARRAYS_ALLOW_TF32";

/// Where matrix products of the types the vendor BLAS has (f32, f64 and both complex types) run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatmulRoute {
    /// The vendor BLAS where its library loads; the backend's own kernel otherwise (with a
    /// warning, once per device).
    #[default]
    Auto,
    /// The vendor BLAS only: a missing library is an error.
    Blas,
    /// The backend's own kernel only (for comparisons, or where the library misbehaves).
    Kernel,
}

impl MatmulRoute {
    /// The route named by `value` (`GPUARRAYS_MATMUL`'s value); `None` is the default.
    pub fn parse(value: Option<&str>) -> Result<MatmulRoute> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Ok(MatmulRoute::Auto),
            Some("blas") => Ok(MatmulRoute::Blas),
            Some("kernel") => Ok(MatmulRoute::Kernel),
            Some(_) => Err(HipError::InvalidConfig {
                var: MATMUL_ENV,
                value: value.unwrap_or_default().to_string(),
                expected: "auto, blas or kernel",
            }),
        }
    }

    /// The route of `GPUARRAYS_MATMUL`.
    pub fn from_env() -> Result<MatmulRoute> {
        MatmulRoute::parse(std::env::var(MATMUL_ENV).ok().as_deref())
    }
}

/// The precision named by `value` (`GPUARRAYS_ALLOW_TF32`'s value); exact unless asked.
pub fn parse_math(value: Option<&str>) -> Result<BlasMath> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("0") | Some("off") | Some("false") => Ok(BlasMath::Exact),
        Some("1") | Some("on") | Some("true") => Ok(BlasMath::ReducedF32),
        Some(_) => Err(HipError::InvalidConfig {
            var: ALLOW_TF32_ENV,
            value: value.unwrap_or_default().to_string(),
            expected: "1/on or 0/off",
        }),
    }
}

/// The vendor BLAS type of a gpuarrays element type, if the libraries have one.
pub fn blas_type(dtype: DType) -> Option<BlasType> {
    match dtype {
        DType::F32 => Some(BlasType::F32),
        DType::F64 => Some(BlasType::F64),
        DType::C32 => Some(BlasType::C32),
        DType::C64 => Some(BlasType::C64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_precision_parse_and_default_to_auto_and_exact() {
        assert_eq!(MatmulRoute::parse(None).ok(), Some(MatmulRoute::Auto));
        assert_eq!(
            MatmulRoute::parse(Some(" BLAS ")).ok(),
            Some(MatmulRoute::Blas)
        );
        assert_eq!(
            MatmulRoute::parse(Some("kernel")).ok(),
            Some(MatmulRoute::Kernel)
        );
        let e = MatmulRoute::parse(Some("cublas"))
            .err()
            .map(|e| e.to_string());
        assert!(
            e.is_some_and(|e| e.contains("GPUARRAYS_MATMUL") && e.contains("auto, blas or kernel"))
        );
        assert_eq!(parse_math(None).ok(), Some(BlasMath::Exact));
        assert_eq!(parse_math(Some("on")).ok(), Some(BlasMath::ReducedF32));
        assert_eq!(parse_math(Some("0")).ok(), Some(BlasMath::Exact));
        assert!(parse_math(Some("tf32")).is_err());
    }

    #[test]
    fn only_floating_and_complex_types_have_a_blas_type() {
        for d in DType::ALL {
            let expected = d.is_float() || d.is_complex();
            assert_eq!(blas_type(d).is_some(), expected, "{d}");
            if let Some(t) = blas_type(d) {
                assert_eq!(t.size(), d.size(), "{d}");
            }
        }
    }
}
