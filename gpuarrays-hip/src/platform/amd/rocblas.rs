//! rocBLAS on the AMD platform: a small hand-written FFI table loaded at run time, like the
//! HIP runtime's ([`super::ffi`] says why no crate is used), resolved at the first BLAS call.
//!
//! rocBLAS rather than hipBLAS: on AMD, hipBLAS is a thin layer over rocBLAS, so calling
//! rocBLAS saves a library and a translation, and its C API is stable across the releases we
//! support. Every signature below is the C prototype of rocBLAS's published header
//! (`library/include/internal/rocblas-functions.h` and `rocblas-auxiliary.h`); the test
//! `tests/rocblas_header.rs` compares this table's [`RocblasFns::SIGNATURES`] with those
//! prototypes (a copy of them at a named commit, and the installed header where one exists).
//! Types: `rocblas_int` is `int32_t` (we never build rocBLAS's ILP64 variant), `rocblas_stride`
//! is `int64_t`, C enums (`rocblas_status`, `rocblas_operation`, `rocblas_math_mode`,
//! `rocblas_datatype`, `rocblas_gemm_algo`) are `int`, and the complex types are two `float` /
//! two `double`.
//!
//! Library names: `librocblas.so.5` (ROCm 7), `.so.4` (ROCm 6), `.so.0` (ROCm 5). Optional
//! symbol: `rocblas_set_math_mode` (ROCm 6.0+); without it a request for reduced precision
//! runs in full precision.
#![allow(non_snake_case)]

use super::ffi::{HipStream, fn_table};
use crate::error::{HipError, Result};
use crate::platform::loader::{
    LoadedLibrary, SymbolSpec, SymbolTable, open_first, versioned_names, with_env_dirs,
};
use crate::platform::{BlasMath, BlasType, GemmStridedBatched, PlatformKind};
use std::ffi::{c_char, c_void};

/// `rocblas_handle`.
pub type RocblasHandle = *mut c_void;

/// `rocblas_operation_none`: use the matrix as it is.
pub const OPERATION_NONE: i32 = 111;
/// `rocblas_status_success`.
pub const STATUS_SUCCESS: i32 = 0;
/// `rocblas_status_memory_error`: an allocation failed.
pub const STATUS_MEMORY_ERROR: i32 = 5;
/// `rocblas_default_math`.
pub const DEFAULT_MATH: i32 = 0;
/// `rocblas_xf32_xdl_math_op`: single-precision products through xf32 on matrix cores.
pub const XF32_XDL_MATH_OP: i32 = 1;
/// `rocblas_datatype_f16_r`: IEEE binary16.
pub const DATATYPE_F16_R: i32 = 150;
/// `rocblas_datatype_f32_r`: the compute type of half products.
pub const DATATYPE_F32_R: i32 = 151;
/// `rocblas_datatype_bf16_r`: bfloat16.
pub const DATATYPE_BF16_R: i32 = 168;
/// `rocblas_gemm_algo_standard`: rocBLAS picks the solution.
pub const GEMM_ALGO_STANDARD: i32 = 0;

/// librocblas symbols.
pub const ROCBLAS: SymbolSpec = SymbolSpec {
    required: &[
        "rocblas_create_handle",
        "rocblas_destroy_handle",
        "rocblas_set_stream",
        "rocblas_status_to_string",
        "rocblas_get_version_string",
        "rocblas_sgemm_strided_batched",
        "rocblas_dgemm_strided_batched",
        "rocblas_cgemm_strided_batched",
        "rocblas_zgemm_strided_batched",
        "rocblas_gemm_strided_batched_ex",
    ],
    optional: &["rocblas_set_math_mode"],
};

fn_table!(RocblasFns {
    rocblas_create_handle: fn(*mut RocblasHandle) -> i32,
    rocblas_destroy_handle: fn(RocblasHandle) -> i32,
    rocblas_set_stream: fn(RocblasHandle, HipStream) -> i32,
    rocblas_status_to_string: fn(i32) -> *const c_char,
    rocblas_get_version_string: fn(*mut c_char, usize) -> i32,
    #[optional] rocblas_set_math_mode: fn(RocblasHandle, i32) -> i32,
    rocblas_sgemm_strided_batched: fn(RocblasHandle, i32, i32, i32, i32, i32, *const f32, *const f32, i32, i64, *const f32, i32, i64, *const f32, *mut f32, i32, i64, i32) -> i32,
    rocblas_dgemm_strided_batched: fn(RocblasHandle, i32, i32, i32, i32, i32, *const f64, *const f64, i32, i64, *const f64, i32, i64, *const f64, *mut f64, i32, i64, i32) -> i32,
    rocblas_cgemm_strided_batched: fn(RocblasHandle, i32, i32, i32, i32, i32, *const [f32; 2], *const [f32; 2], i32, i64, *const [f32; 2], i32, i64, *const [f32; 2], *mut [f32; 2], i32, i64, i32) -> i32,
    rocblas_zgemm_strided_batched: fn(RocblasHandle, i32, i32, i32, i32, i32, *const [f64; 2], *const [f64; 2], i32, i64, *const [f64; 2], i32, i64, *const [f64; 2], *mut [f64; 2], i32, i64, i32) -> i32,
    rocblas_gemm_strided_batched_ex: fn(RocblasHandle, i32, i32, i32, i32, i32, *const c_void, *const c_void, i32, i32, i64, *const c_void, i32, i32, i64, *const c_void, *const c_void, i32, i32, i64, *mut c_void, i32, i32, i64, i32, i32, i32, i32, u32) -> i32,
});

const ROCBLAS_HINT: &str = "install ROCm's rocBLAS (librocblas; ROCm 5.2 or newer) or set ROCM_PATH, or set GPUARRAYS_MATMUL=kernel to use gpuarrays' own matrix kernel";

/// The library names tried for librocblas, in order.
pub fn rocblas_candidates() -> Vec<String> {
    let versions = ["5", "4", "0"];
    let mut names = with_env_dirs(
        &["ROCM_PATH", "HIP_PATH"],
        &versioned_names("rocblas", &versions),
    );
    names.extend(
        versioned_names("rocblas", &versions)
            .iter()
            .map(|n| format!("/opt/rocm/lib/{n}")),
    );
    names
}

/// rocBLAS as loaded: the library (kept open) and its resolved functions.
#[derive(Debug)]
pub struct Rocblas {
    /// librocblas as loaded.
    pub lib: LoadedLibrary,
    /// The resolved functions.
    pub fns: RocblasFns,
}

// SAFETY: a library handle and plain function pointers; rocBLAS's API is thread-safe for
// distinct handles, and the callers use one handle on one thread at a time.
unsafe impl Send for Rocblas {}
// SAFETY: as above; no interior mutability.
unsafe impl Sync for Rocblas {}

/// Open librocblas and resolve every symbol.
pub fn load_rocblas() -> Result<Rocblas> {
    let lib = open_first(
        PlatformKind::Amd,
        "ROCm's rocBLAS (librocblas)",
        "ROCm's rocBLAS",
        &rocblas_candidates(),
        ROCBLAS_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Amd,
        "ROCm's rocBLAS (librocblas)",
        &lib,
        &ROCBLAS,
        ROCBLAS_HINT,
    )?;
    let fns = RocblasFns::from_table(&table).ok_or_else(|| HipError::MissingSymbols {
        platform: PlatformKind::Amd,
        library: "ROCm's rocBLAS (librocblas)",
        path: lib.path.clone(),
        missing: vec!["(table)".into()],
        hint: ROCBLAS_HINT,
    })?;
    Ok(Rocblas { lib, fns })
}

impl Rocblas {
    /// The error for a failed rocBLAS call.
    pub fn check(&self, call: &'static str, status: i32) -> Result<()> {
        if status == STATUS_SUCCESS {
            return Ok(());
        }
        // SAFETY: takes a status code and returns a static NUL-terminated string (or null).
        let p = unsafe { (self.fns.rocblas_status_to_string)(status) };
        let name = if p.is_null() {
            "rocblas_status_unknown".to_string()
        } else {
            // SAFETY: non-null pointers from rocblas_status_to_string are static C strings.
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        };
        // An allocation failure is reported with the out-of-memory code, so callers can
        // release idle resources and retry.
        let code = if status == STATUS_MEMORY_ERROR {
            crate::platform::codes::OUT_OF_MEMORY
        } else {
            status
        };
        Err(HipError::Api {
            platform: PlatformKind::Amd,
            call,
            code,
            message: format!("rocBLAS returned {name}"),
            name,
        })
    }

    /// "rocBLAS 4.4.0.…".
    pub fn version(&self) -> Result<String> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` is writable for the length passed; rocBLAS NUL-terminates within it.
        self.check("rocblas_get_version_string", unsafe {
            (self.fns.rocblas_get_version_string)(buf.as_mut_ptr(), buf.len() - 1)
        })?;
        // SAFETY: the last byte is never written, so the buffer holds a C string.
        let v = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        Ok(format!("rocBLAS {v}"))
    }

    /// Set stream and precision of `h`, then enqueue `g`.
    ///
    /// # Safety
    /// As [`crate::platform::BlasLibrary::blas_gemm`]; the device of `h` is current on this thread.
    pub unsafe fn gemm(
        &self,
        h: RocblasHandle,
        stream: HipStream,
        g: &GemmStridedBatched,
    ) -> Result<()> {
        let f = &self.fns;
        // SAFETY: a live handle used by this thread only (contract).
        self.check("rocblas_set_stream", unsafe {
            (f.rocblas_set_stream)(h, stream)
        })?;
        if g.dtype.is_half() {
            // The half types' entry point has no math mode: it always accumulates in its
            // compute type (f32 here) on the matrix cores.
        } else if let Some(set_math) = f.rocblas_set_math_mode {
            let mode = match g.math {
                BlasMath::Exact => DEFAULT_MATH,
                BlasMath::ReducedF32 => XF32_XDL_MATH_OP,
            };
            // SAFETY: as above; sets a mode on the handle only.
            self.check("rocblas_set_math_mode", unsafe { set_math(h, mode) })?;
        } else if g.math == BlasMath::ReducedF32 {
            tracing::debug!("rocblas_set_math_mode is absent (ROCm < 6): full precision");
        }
        let n = OPERATION_NONE;
        let (a, b, c) = (
            g.a.0 as usize as *const c_void,
            g.b.0 as usize as *const c_void,
            g.c.0 as usize as *mut c_void,
        );
        // alpha = 1, beta = 0 as host values (rocBLAS's default pointer mode is host).
        let (call, status) = match g.dtype {
            BlasType::F32 => {
                let (one, zero) = (1f32, 0f32);
                // SAFETY: the matrices lie in live allocations of the handle's device
                // (contract); alpha and beta are host values that outlive the call.
                ("rocblas_sgemm_strided_batched", unsafe {
                    (f.rocblas_sgemm_strided_batched)(
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
                ("rocblas_dgemm_strided_batched", unsafe {
                    (f.rocblas_dgemm_strided_batched)(
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
                let (one, zero) = ([1f32, 0.0], [0f32, 0.0]);
                // SAFETY: as above; two f32 per element, num-complex's layout.
                ("rocblas_cgemm_strided_batched", unsafe {
                    (f.rocblas_cgemm_strided_batched)(
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
                    DATATYPE_F16_R
                } else {
                    DATATYPE_BF16_R
                };
                // alpha and beta are of the compute type, f32.
                let (one, zero) = (1f32, 0f32);
                // SAFETY: as above; A, B and C hold 2-byte elements of type `t`, and D is C
                // (same type, leading dimension and stride, as rocBLAS requires in place).
                ("rocblas_gemm_strided_batched_ex", unsafe {
                    (f.rocblas_gemm_strided_batched_ex)(
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
                        c,
                        t,
                        g.ldc,
                        g.stride_c,
                        g.batch,
                        DATATYPE_F32_R,
                        GEMM_ALGO_STANDARD,
                        0,
                        0,
                    )
                })
            }
            BlasType::C64 => {
                let (one, zero) = ([1f64, 0.0], [0f64, 0.0]);
                // SAFETY: as above, for two f64.
                ("rocblas_zgemm_strided_batched", unsafe {
                    (f.rocblas_zgemm_strided_batched)(
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
        };
        self.check(call, status)
    }
}
