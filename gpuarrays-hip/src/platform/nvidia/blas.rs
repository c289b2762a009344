//! cuBLAS on the NVIDIA platform, through cudarc's `cublas::sys` with raw handles.
//!
//! libcublas is opened and every symbol resolved by our own preflight
//! ([`super::symbols::preflight_cublas`]) at the first BLAS call, before any cudarc cuBLAS
//! function is touched: cudarc resolves lazily and panics on a missing library, we return
//! [`HipError::LibraryNotFound`] / [`HipError::MissingSymbols`] instead. cudarc opens the same
//! file (the first loadable candidate, in cudarc's order), and every call runs under
//! [`guarded`] as the driver calls do.
//!
//! cuBLAS works through the CUDA runtime, which uses the context current on the calling
//! thread: the primary context our platform binds. A handle belongs to the device current at
//! its creation; `blas_destroy` binds that device again first.

use super::{NvidiaPlatform, guarded, stream};
use crate::error::{HipError, Result};
use crate::platform::{
    BlasHandle, BlasMath, BlasType, DeviceId, GemmStridedBatched, PlatformKind, StreamHandle, codes,
};
use cudarc::cublas::sys as cb;
use std::ffi::{CStr, c_char, c_void};

fn cstr_or(p: *const c_char, fallback: &str) -> String {
    if p.is_null() {
        return fallback.to_string();
    }
    // SAFETY: cuBLAS returns pointers to static NUL-terminated strings for status codes.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The error for a failed cuBLAS call.
fn blas_error(call: &'static str, status: cb::cublasStatus_t) -> HipError {
    // SAFETY: both take a status code and return a static string; the symbols were resolved
    // by the preflight before any cuBLAS call could fail.
    let name = guarded("cublasGetStatusName", || unsafe {
        cb::cublasGetStatusName(status)
    })
    .map_or_else(
        |_| "CUBLAS_STATUS_UNKNOWN".into(),
        |p| cstr_or(p, "CUBLAS_STATUS_UNKNOWN"),
    );
    // SAFETY: as above.
    let message = guarded("cublasGetStatusString", || unsafe {
        cb::cublasGetStatusString(status)
    })
    .map_or_else(
        |_| "no description".into(),
        |p| cstr_or(p, "no description"),
    );
    // An allocation failure is reported with the out-of-memory code, so callers can release
    // idle resources and retry (as for cuFFT's CUFFT_ALLOC_FAILED).
    let code = if status == cb::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED {
        codes::OUT_OF_MEMORY
    } else {
        status as i32
    };
    HipError::Api {
        platform: PlatformKind::Nvidia,
        call,
        code,
        name,
        message,
    }
}

/// Run a cuBLAS call and check its status.
fn blas_call(call: &'static str, f: impl FnOnce() -> cb::cublasStatus_t) -> Result<()> {
    let status = guarded(call, f)?;
    if status == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(blas_error(call, status))
    }
}

fn raw(h: BlasHandle) -> cb::cublasHandle_t {
    h.0 as usize as cb::cublasHandle_t
}

impl NvidiaPlatform {
    /// cuBLAS, preflighted once; the error (a missing library or symbol) is kept and returned
    /// on every later call.
    pub(super) fn cublas_ready(&self) -> Result<()> {
        self.cublas
            .get_or_init(|| {
                let loaded = super::symbols::preflight_cublas().map(|(lib, _)| lib);
                match &loaded {
                    Ok(lib) => tracing::debug!(path = %lib.path, "cuBLAS loaded"),
                    Err(e) => tracing::info!(error = %e, "cuBLAS unavailable"),
                }
                loaded
            })
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    pub(super) fn cublas_version(&self) -> Result<String> {
        self.cublas_ready()?;
        let mut v = [0i32; 3];
        for (i, t) in [
            cb::libraryPropertyType::MAJOR_VERSION,
            cb::libraryPropertyType::MINOR_VERSION,
            cb::libraryPropertyType::PATCH_LEVEL,
        ]
        .into_iter()
        .enumerate()
        {
            // SAFETY: `v[i]` is a valid out-pointer; the symbol was preflighted.
            blas_call("cublasGetProperty", || unsafe {
                cb::cublasGetProperty(t, &mut v[i])
            })?;
        }
        Ok(format!("cuBLAS {}.{}.{}", v[0], v[1], v[2]))
    }

    pub(super) fn cublas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        self.cublas_ready()?;
        crate::platform::Platform::bind_device(self, device)?;
        let mut h: cb::cublasHandle_t = std::ptr::null_mut();
        // SAFETY: `h` is a valid out-pointer; the device's primary context is current.
        blas_call("cublasCreate_v2", || unsafe { cb::cublasCreate_v2(&mut h) })?;
        Ok(BlasHandle(h as usize as u64))
    }

    pub(super) fn cublas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        self.cublas_ready()?;
        crate::platform::Platform::bind_device(self, device)?;
        // SAFETY: the caller passes a handle created on `device` that nobody uses any more;
        // that device's context is current.
        blas_call("cublasDestroy_v2", || unsafe {
            cb::cublasDestroy_v2(raw(handle))
        })
    }

    /// # Safety
    /// As [`crate::platform::BlasLibrary::blas_gemm`].
    pub(super) unsafe fn cublas_gemm(
        &self,
        handle: BlasHandle,
        s: StreamHandle,
        g: &GemmStridedBatched,
    ) -> Result<()> {
        self.cublas_ready()?;
        let h = raw(handle);
        // SAFETY: a live handle used by this thread only (contract); the stream belongs to the
        // handle's device.
        blas_call("cublasSetStream_v2", || unsafe {
            cb::cublasSetStream_v2(h, stream(s) as cb::cudaStream_t)
        })?;
        let mode = match (g.dtype.is_half(), g.math) {
            // Half products: tensor cores (cuBLAS's default for 16-bit inputs), and every
            // reduction, split-K included, in the f32 compute type: without this flag cuBLAS
            // may add partial sums in the half output type, rounding more than once.
            (true, _) => cb::cublasMath_t::CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION,
            (false, BlasMath::Exact) => cb::cublasMath_t::CUBLAS_DEFAULT_MATH,
            (false, BlasMath::ReducedF32) => cb::cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH,
        };
        // SAFETY: as above; sets a mode on the handle only.
        blas_call("cublasSetMathMode", || unsafe {
            cb::cublasSetMathMode(h, mode)
        })?;
        let n = cb::cublasOperation_t::CUBLAS_OP_N;
        let (a, b, c) = (
            g.a.0 as usize as *const c_void,
            g.b.0 as usize as *const c_void,
            g.c.0 as usize as *mut c_void,
        );
        // alpha = 1 and beta = 0 as host values (cuBLAS's default pointer mode is host),
        // laid out as the element type: complex ones are (1, 0) and (0, 0).
        match g.dtype {
            BlasType::F32 => {
                let (one, zero) = (1f32, 0f32);
                // SAFETY: the matrices lie in live allocations of the handle's device
                // (contract); alpha and beta are host values that outlive the call.
                blas_call("cublasSgemmStridedBatched", || unsafe {
                    cb::cublasSgemmStridedBatched(
                        h,
                        n,
                        n,
                        g.m,
                        g.n,
                        g.k,
                        &one,
                        a.cast(),
                        g.lda,
                        g.stride_a,
                        b.cast(),
                        g.ldb,
                        g.stride_b,
                        &zero,
                        c.cast(),
                        g.ldc,
                        g.stride_c,
                        g.batch,
                    )
                })
            }
            BlasType::F64 => {
                let (one, zero) = (1f64, 0f64);
                // SAFETY: as above.
                blas_call("cublasDgemmStridedBatched", || unsafe {
                    cb::cublasDgemmStridedBatched(
                        h,
                        n,
                        n,
                        g.m,
                        g.n,
                        g.k,
                        &one,
                        a.cast(),
                        g.lda,
                        g.stride_a,
                        b.cast(),
                        g.ldb,
                        g.stride_b,
                        &zero,
                        c.cast(),
                        g.ldc,
                        g.stride_c,
                        g.batch,
                    )
                })
            }
            BlasType::C32 => {
                let one = cb::cuComplex { x: 1.0, y: 0.0 };
                let zero = cb::cuComplex { x: 0.0, y: 0.0 };
                // SAFETY: as above; cuComplex is two f32, the layout of num-complex's
                // Complex<f32> the arrays hold.
                blas_call("cublasCgemmStridedBatched", || unsafe {
                    cb::cublasCgemmStridedBatched(
                        h,
                        n,
                        n,
                        g.m,
                        g.n,
                        g.k,
                        &one,
                        a.cast(),
                        g.lda,
                        g.stride_a,
                        b.cast(),
                        g.ldb,
                        g.stride_b,
                        &zero,
                        c.cast(),
                        g.ldc,
                        g.stride_c,
                        g.batch,
                    )
                })
            }
            BlasType::F16 | BlasType::BF16 => {
                let t = if g.dtype == BlasType::F16 {
                    cb::cudaDataType::CUDA_R_16F
                } else {
                    cb::cudaDataType::CUDA_R_16BF
                };
                // alpha and beta are of the compute type, f32.
                let (one, zero) = (1f32, 0f32);
                // SAFETY: as above; A, B and C hold 2-byte elements of type `t`.
                blas_call("cublasGemmStridedBatchedEx", || unsafe {
                    cb::cublasGemmStridedBatchedEx(
                        h,
                        n,
                        n,
                        g.m,
                        g.n,
                        g.k,
                        (&raw const one).cast(),
                        a,
                        t,
                        g.lda,
                        g.stride_a,
                        b,
                        t,
                        g.ldb,
                        g.stride_b,
                        (&raw const zero).cast(),
                        c,
                        t,
                        g.ldc,
                        g.stride_c,
                        g.batch,
                        cb::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                        cb::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                })
            }
            BlasType::C64 => {
                let one = cb::cuDoubleComplex { x: 1.0, y: 0.0 };
                let zero = cb::cuDoubleComplex { x: 0.0, y: 0.0 };
                // SAFETY: as above, for two f64.
                blas_call("cublasZgemmStridedBatched", || unsafe {
                    cb::cublasZgemmStridedBatched(
                        h,
                        n,
                        n,
                        g.m,
                        g.n,
                        g.k,
                        &one,
                        a.cast(),
                        g.lda,
                        g.stride_a,
                        b.cast(),
                        g.ldb,
                        g.stride_b,
                        &zero,
                        c.cast(),
                        g.ldc,
                        g.stride_c,
                        g.batch,
                    )
                })
            }
        }
    }
}
