//! Which path a matrix product takes — the vendor BLAS, a memset (an empty sum), or the own
//! kernel — decided before the ordering protocol locks the operands, with everything slow
//! done then: a BLAS handle for the thread (creating one takes milliseconds) or the kernel's
//! compilation. Inside [`HipBackend::enqueue`] the plan only enqueues.

use super::HipBackend;
use crate::blas::{MatmulRoute, RowMajorProduct, blas_type};
use crate::error::{HipError, Result};
use crate::kernels::matmul::{self, MatmulLaunch};
use crate::stream::Stream;

/// How one product is enqueued.
pub(super) enum MatmulPlan {
    /// Nothing to compute (no outputs).
    Nothing,
    /// An empty sum (`k == 0`): every output is +0.
    Zero,
    /// The vendor BLAS.
    Blas(RowMajorProduct),
    /// The own kernel (compiled already).
    Kernel,
}

impl HipBackend {
    /// The plan for `l`: the BLAS where the route and the type allow it (integers,
    /// `GPUARRAYS_MATMUL=kernel`, sizes beyond 32 bits and `auto` without the library go to
    /// the kernel; the last is reported once).
    pub(super) fn matmul_plan(&self, l: &MatmulLaunch) -> Result<MatmulPlan> {
        let plan = self.matmul_blas_plan(l)?;
        if let MatmulPlan::Kernel = plan {
            matmul::prepare(self.kernels(), l)?;
        }
        Ok(plan)
    }

    fn matmul_blas_plan(&self, l: &MatmulLaunch) -> Result<MatmulPlan> {
        let route = self.matmul_route();
        let Some(dtype) = blas_type(l.dtype) else {
            return Ok(MatmulPlan::Kernel);
        };
        if route == MatmulRoute::Kernel {
            return Ok(MatmulPlan::Kernel);
        }
        if l.batch * l.m * l.n == 0 {
            return Ok(MatmulPlan::Nothing);
        }
        if l.k == 0 {
            return Ok(MatmulPlan::Zero);
        }
        let product = RowMajorProduct {
            dtype,
            batch: l.batch,
            m: l.m,
            n: l.n,
            k: l.k,
            a: l.a,
            a_batch_stride: l.a_batch_stride,
            b: l.b,
            b_batch_stride: l.b_batch_stride,
            output: l.output,
        };
        if !product.fits_32_bit() {
            tracing::debug!(
                ?product,
                "matmul beyond the BLAS's 32-bit sizes: own kernel"
            );
            return Ok(MatmulPlan::Kernel);
        }
        match self.inner.blas.prepare_thread_handle() {
            Ok(()) => Ok(MatmulPlan::Blas(product)),
            Err(e) => self.blas_unavailable(route, e).map(|()| MatmulPlan::Kernel),
        }
    }

    /// The BLAS library is missing: on `auto`, the kernel (reported once); else the error.
    fn blas_unavailable(&self, route: MatmulRoute, e: HipError) -> Result<()> {
        match e {
            HipError::LibraryNotFound { .. } | HipError::MissingSymbols { .. }
                if route == MatmulRoute::Auto =>
            {
                use std::sync::atomic::Ordering;
                if !self
                    .inner
                    .blas_fallback_reported
                    .swap(true, Ordering::Relaxed)
                {
                    tracing::warn!(device = %self.inner.info, error = %e, "matrix products run on gpuarrays' own kernel, about 10x slower than the vendor BLAS");
                }
                Ok(())
            }
            e => Err(e),
        }
    }

    /// Enqueue `plan` for `l` on `stream` (inside the ordering protocol).
    pub(super) fn matmul_run(
        &self,
        plan: &MatmulPlan,
        l: &MatmulLaunch,
        stream: &Stream,
    ) -> Result<()> {
        match plan {
            MatmulPlan::Nothing => Ok(()),
            MatmulPlan::Zero => {
                // SAFETY: the output's extent was checked against its buffer by the caller,
                // and its memory is reused only after this memset (its free waits for every
                // recorded use, this one included).
                unsafe {
                    self.kernels().platform().memset_async(
                        l.output,
                        0,
                        l.batch * l.m * l.n * l.dtype.size(),
                        stream.handle(),
                    )
                }
            }
            MatmulPlan::Blas(product) => match self.inner.blas.gemm(stream, product) {
                Ok(()) => Ok(()),
                // The handle prepared before was lost (the thread's lease could not be kept):
                // the kernel, compiled here — a rare path that holds the operands meanwhile.
                Err(e) => self
                    .blas_unavailable(self.matmul_route(), e)
                    .and_then(|()| matmul::run(self.kernels(), stream, l)),
            },
            MatmulPlan::Kernel => matmul::run(self.kernels(), stream, l),
        }
    }
}
