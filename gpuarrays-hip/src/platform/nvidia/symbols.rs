//! Every CUDA driver and NVRTC symbol the NVIDIA platform calls, by the exact name cudarc
//! resolves (e.g. `cuStreamDestroy_v2`), and the preflight that resolves them all before any
//! cudarc function is touched.
//!
//! Why: cudarc with `dynamic-loading` resolves lazily and panics on a missing library or
//! symbol. We open the same library cudarc will open (the first loadable name of
//! `cudarc::get_lib_name_candidates`, in cudarc's order) and dlsym every symbol first, so a
//! missing runtime or an old driver is a typed error at platform creation.
//!
//! Oldest supported: the CUDA 12.0 driver (R525). Every symbol below exists there, so none is
//! optional. Devices without stream-ordered allocation support (attribute
//! MEMORY_POOLS_SUPPORTED = 0) fall back to `cuMemAlloc_v2`/`cuMemFree_v2` after a stream
//! synchronise.

use crate::error::Result;
use crate::platform::PlatformKind;
use crate::platform::loader::{LoadedLibrary, SymbolSpec, SymbolTable, open_first};

/// CUDA driver symbols (cudarc's names).
pub const DRIVER: SymbolSpec = SymbolSpec {
    required: &[
        "cuInit",
        "cuDriverGetVersion",
        "cuGetErrorName",
        "cuGetErrorString",
        "cuDeviceGetCount",
        "cuDeviceGet",
        "cuDeviceGetName",
        "cuDeviceGetAttribute",
        "cuDeviceTotalMem_v2",
        "cuDevicePrimaryCtxRetain",
        "cuDevicePrimaryCtxRelease_v2",
        "cuCtxSetCurrent",
        "cuCtxGetCurrent",
        "cuCtxSynchronize",
        "cuCtxGetStreamPriorityRange",
        "cuStreamCreateWithPriority",
        "cuStreamDestroy_v2",
        "cuStreamQuery",
        "cuStreamSynchronize",
        "cuStreamWaitEvent",
        "cuEventCreate",
        "cuEventRecord",
        "cuEventQuery",
        "cuEventSynchronize",
        "cuEventDestroy_v2",
        "cuMemAllocAsync",
        "cuMemFreeAsync",
        "cuMemAlloc_v2",
        "cuMemFree_v2",
        "cuMemGetInfo_v2",
        "cuMemcpyHtoDAsync_v2",
        "cuMemcpyDtoHAsync_v2",
        "cuMemcpyDtoDAsync_v2",
        "cuMemsetD8Async",
        "cuDeviceCanAccessPeer",
        "cuCtxEnablePeerAccess",
        "cuDeviceGetDefaultMemPool",
        "cuMemPoolSetAccess",
        "cuMemcpyPeerAsync",
        "cuMemHostAlloc",
        "cuMemFreeHost",
        "cuModuleLoadData",
        "cuModuleUnload",
        "cuModuleGetFunction",
        "cuLaunchKernel",
        "cuStreamBeginCapture_v2",
        "cuStreamEndCapture",
        "cuStreamIsCapturing",
        "cuGraphInstantiateWithFlags",
        "cuGraphExecUpdate_v2",
        "cuGraphLaunch",
        "cuGraphDestroy",
        "cuGraphExecDestroy",
    ],
    // Device-side timing (`event_elapsed_ms`) only; CUDA 12.8+ drivers. cudarc's CUDA 13
    // bindings have only this name.
    optional: &["cuEventElapsedTime_v2"],
};

/// NVRTC symbols (cudarc's names).
pub const NVRTC: SymbolSpec = SymbolSpec {
    required: &[
        "nvrtcVersion",
        "nvrtcGetErrorString",
        "nvrtcCreateProgram",
        "nvrtcAddNameExpression",
        "nvrtcCompileProgram",
        "nvrtcGetProgramLogSize",
        "nvrtcGetProgramLog",
        "nvrtcGetCUBINSize",
        "nvrtcGetCUBIN",
        "nvrtcGetLoweredName",
        "nvrtcDestroyProgram",
    ],
    optional: &[],
};

/// cuBLAS symbols (cudarc's names), resolved at the first matrix product, not at platform
/// creation: libcublas is large and most programs never multiply matrices. All exist since
/// CUDA 11.0.
pub const CUBLAS: SymbolSpec = SymbolSpec {
    required: &[
        "cublasCreate_v2",
        "cublasDestroy_v2",
        "cublasSetStream_v2",
        "cublasSetMathMode",
        "cublasGetProperty",
        "cublasGetStatusName",
        "cublasGetStatusString",
        "cublasSgemmStridedBatched",
        "cublasDgemmStridedBatched",
        "cublasCgemmStridedBatched",
        "cublasZgemmStridedBatched",
        "cublasGemmStridedBatchedEx",
    ],
    optional: &[],
};

const DRIVER_HINT: &str =
    "install the NVIDIA driver (libcuda.so.1), or set GPUARRAYS_HIP_PLATFORM=amd on an AMD machine";
const NVRTC_HINT: &str =
    "install CUDA's NVRTC (libnvrtc.so, CUDA 12 or newer) and put its directory on LD_LIBRARY_PATH";

const CUBLAS_HINT: &str = "install CUDA's cuBLAS (libcublas.so and libcublasLt.so, CUDA 12 or newer) and put its directory on LD_LIBRARY_PATH, or set GPUARRAYS_MATMUL=kernel to use gpuarrays' own matrix kernel";

/// The library names cudarc tries for `names`, in cudarc's order.
pub fn cudarc_candidates(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| cudarc::get_lib_name_candidates(n))
        .collect()
}

/// Open libcuda as cudarc will and resolve every driver symbol.
pub fn preflight_driver() -> Result<(LoadedLibrary, SymbolTable)> {
    let lib = open_first(
        PlatformKind::Nvidia,
        "the NVIDIA driver (libcuda)",
        "the NVIDIA driver",
        &cudarc_candidates(&["cuda", "nvcuda"]),
        DRIVER_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Nvidia,
        "the NVIDIA driver (libcuda)",
        &lib,
        &DRIVER,
        DRIVER_HINT,
    )?;
    Ok((lib, table))
}

/// Open libnvrtc as cudarc will and resolve every NVRTC symbol.
pub fn preflight_nvrtc() -> Result<(LoadedLibrary, SymbolTable)> {
    let lib = open_first(
        PlatformKind::Nvidia,
        "CUDA's NVRTC (libnvrtc)",
        "CUDA's NVRTC",
        &cudarc_candidates(&["nvrtc"]),
        NVRTC_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Nvidia,
        "CUDA's NVRTC (libnvrtc)",
        &lib,
        &NVRTC,
        NVRTC_HINT,
    )?;
    Ok((lib, table))
}

/// Open libcublas as cudarc will and resolve every cuBLAS symbol.
pub fn preflight_cublas() -> Result<(LoadedLibrary, SymbolTable)> {
    let lib = open_first(
        PlatformKind::Nvidia,
        "CUDA's cuBLAS (libcublas)",
        "CUDA's cuBLAS",
        &cudarc_candidates(&["cublas"]),
        CUBLAS_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Nvidia,
        "CUDA's cuBLAS (libcublas)",
        &lib,
        &CUBLAS,
        CUBLAS_HINT,
    )?;
    Ok((lib, table))
}
