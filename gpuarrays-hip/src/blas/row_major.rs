//! A row-major batched product as gpuarrays describes it, and its column-major form for the
//! vendor libraries: `C = A·B` row-major is `Cᵀ = Bᵀ·Aᵀ` column-major, with no data moved.

use crate::error::{HipError, Result};
use crate::platform::{BlasMath, BlasType, DevicePtr, GemmStridedBatched};

/// `out[i] = a[i] · b[i]` for `i` in `0..batch`, row-major: `a[i]` is `m × k` at
/// `a + i·a_batch_stride` elements, `b[i]` is `k × n`, `out[i]` is `m × n`, contiguous and
/// consecutive. A batch stride of 0 repeats one matrix (broadcasting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowMajorProduct {
    pub dtype: BlasType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: DevicePtr,
    pub a_batch_stride: usize,
    pub b: DevicePtr,
    pub b_batch_stride: usize,
    pub output: DevicePtr,
}

fn int(what: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        HipError::InvalidArgument(format!(
            "matmul: {what} = {v} exceeds the vendor BLAS's 32-bit sizes"
        ))
    })
}

fn long(what: &str, v: usize) -> Result<i64> {
    i64::try_from(v)
        .map_err(|_| HipError::InvalidArgument(format!("matmul: {what} = {v} is too large")))
}

impl RowMajorProduct {
    /// Whether the libraries' 32-bit sizes hold this product (else it runs on the kernel).
    pub fn fits_32_bit(&self) -> bool {
        let max = i32::MAX as usize;
        self.m <= max && self.n <= max && self.k <= max && self.batch <= max
    }

    /// The same product as one column-major strided-batched call. Needs `k ≥ 1` and
    /// `batch·m·n ≥ 1` (an empty product or output is handled by the caller without the
    /// library).
    ///
    /// Row-major `X` (`r × c`) is column-major `Xᵀ` (`c × r`, leading dimension `c`). So the
    /// call computes `outᵀ` (`n × m`, ld `n`) `= bᵀ` (`n × k`, ld `n`) `· aᵀ` (`k × m`, ld
    /// `k`): the library's A is our `b`, its B is our `a`.
    pub fn column_major(&self, math: BlasMath) -> Result<GemmStridedBatched> {
        if self.k == 0 || self.batch * self.m * self.n == 0 {
            return Err(HipError::InvalidArgument(format!(
                "matmul: an empty product ({} × ({}×{})·({}×{})) needs no library call",
                self.batch, self.m, self.k, self.k, self.n
            )));
        }
        let (m, n, k) = (int("n", self.n)?, int("m", self.m)?, int("k", self.k)?);
        Ok(GemmStridedBatched {
            dtype: self.dtype,
            m,
            n,
            k,
            a: self.b,
            lda: m,
            stride_a: long("b's batch stride", self.b_batch_stride)?,
            b: self.a,
            ldb: k,
            stride_b: long("a's batch stride", self.a_batch_stride)?,
            c: self.output,
            ldc: m,
            stride_c: long("the output's batch stride", self.m * self.n)?,
            batch: int("batch", self.batch)?,
            math,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(batch: usize, m: usize, n: usize, k: usize) -> RowMajorProduct {
        RowMajorProduct {
            dtype: BlasType::F32,
            batch,
            m,
            n,
            k,
            a: DevicePtr(0x1000),
            a_batch_stride: m * k,
            b: DevicePtr(0x2000),
            b_batch_stride: 0,
            output: DevicePtr(0x3000),
        }
    }

    #[test]
    fn operands_swap_and_leading_dimensions_are_the_row_lengths() {
        let g = product(3, 2, 5, 7)
            .column_major(BlasMath::Exact)
            .expect("valid");
        assert_eq!((g.m, g.n, g.k, g.batch), (5, 2, 7, 3));
        assert_eq!((g.a, g.lda, g.stride_a), (DevicePtr(0x2000), 5, 0));
        assert_eq!((g.b, g.ldb, g.stride_b), (DevicePtr(0x1000), 7, 14));
        assert_eq!((g.c, g.ldc, g.stride_c), (DevicePtr(0x3000), 5, 10));
    }

    #[test]
    fn empty_products_and_oversized_ones_are_refused() {
        assert!(product(1, 2, 3, 0).column_major(BlasMath::Exact).is_err());
        assert!(product(0, 2, 3, 4).column_major(BlasMath::Exact).is_err());
        let huge = product(1, 1, 1 << 31, 1);
        assert!(!huge.fits_32_bit());
        let e = huge
            .column_major(BlasMath::Exact)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("32-bit")));
    }
}
