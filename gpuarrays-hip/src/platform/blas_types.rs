//! What the platform layer needs to describe one vendor BLAS call (cuBLAS on NVIDIA, rocBLAS
//! on AMD): the element types those libraries multiply, the precision policy, and one
//! column-major strided-batched product.
//!
//! The platform layer speaks the libraries' own column-major convention and nothing else; the
//! row-major arrays of gpuarrays are mapped onto it one layer up (`crate::blas`), so every
//! platform implementation is a direct translation of these fields into one library call.

use super::DevicePtr;

/// Element types the vendor BLAS libraries provide products for. Integers and bool are not
/// among them: those stay on the backend's own kernel.
///
/// The half types go through the libraries' mixed-precision entry point (cuBLAS
/// `cublasGemmStridedBatchedEx`, rocBLAS `rocblas_gemm_strided_batched_ex`) with inputs and
/// output in the half type and every product and sum in `f32`: the output is rounded once,
/// from the `f32` sum, which is the rule gpuarrays' own kernel and the CPU reference follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlasType {
    /// `float` (`sgemm`).
    F32,
    /// `double` (`dgemm`).
    F64,
    /// Complex `float` (`cgemm`), laid out as two `f32` (real, imaginary).
    C32,
    /// Complex `double` (`zgemm`).
    C64,
    /// IEEE binary16, multiplied on tensor (matrix) cores with `f32` accumulation.
    F16,
    /// bfloat16, multiplied on tensor (matrix) cores with `f32` accumulation.
    BF16,
}

impl BlasType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            BlasType::F16 | BlasType::BF16 => 2,
            BlasType::F32 => 4,
            BlasType::F64 | BlasType::C32 => 8,
            BlasType::C64 => 16,
        }
    }

    /// Whether the type is a half type (stored in 16 bits, accumulated in `f32`).
    pub fn is_half(self) -> bool {
        matches!(self, BlasType::F16 | BlasType::BF16)
    }
}

/// How single-precision products (f32 and complex f32) may round. The half types ignore it:
/// their products always run on tensor cores, exactly (a half times a half is exact in
/// `f32`), and always accumulate in `f32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BlasMath {
    /// Every product and sum in the element type (IEEE single precision): the default.
    #[default]
    Exact,
    /// Products on tensor cores with inputs rounded to a 10-bit mantissa (NVIDIA TF32,
    /// AMD xf32 where rocBLAS offers it): several times faster, about three decimal digits.
    /// Only ever on explicit request.
    ReducedF32,
}

/// One column-major product per batch entry: `C_i = A_i · B_i` for `i` in `0..batch`, with
/// `A_i` of `m × k` at `a + i·stride_a` (leading dimension `lda`), `B_i` of `k × n`, `C_i` of
/// `m × n`; no transposes, `alpha = 1`, `beta = 0` (C is written, never read). Sizes and
/// leading dimensions are in elements, strides in elements (0 repeats one matrix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmStridedBatched {
    /// Element type.
    pub dtype: BlasType,
    /// Rows of `A_i` and `C_i`.
    pub m: i32,
    /// Columns of `B_i` and `C_i`.
    pub n: i32,
    /// Columns of `A_i`, rows of `B_i` (≥ 1: an empty inner dimension is handled above).
    pub k: i32,
    /// First `A`.
    pub a: DevicePtr,
    /// Leading dimension of `A_i` (≥ max(1, m)).
    pub lda: i32,
    /// Elements from `A_i` to `A_{i+1}`.
    pub stride_a: i64,
    /// First `B`.
    pub b: DevicePtr,
    /// Leading dimension of `B_i` (≥ max(1, k)).
    pub ldb: i32,
    /// Elements from `B_i` to `B_{i+1}`.
    pub stride_b: i64,
    /// First `C`.
    pub c: DevicePtr,
    /// Leading dimension of `C_i` (≥ max(1, m)).
    pub ldc: i32,
    /// Elements from `C_i` to `C_{i+1}` (≥ ldc·n: outputs never overlap).
    pub stride_c: i64,
    /// Number of products (≥ 1).
    pub batch: i32,
    /// Precision policy for single-precision types.
    pub math: BlasMath,
}
