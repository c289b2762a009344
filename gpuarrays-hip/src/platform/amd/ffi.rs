//! A small hand-written FFI table for libamdhip64 and hiprtc, resolved at run time.
//!
//! Why not `cubecl-hip-sys` (7.14, evaluated for this crate): it does build without ROCm, and
//! it loads the libraries at run time, but (1) its generated wrappers resolve each symbol
//! lazily and *panic* on a missing library or symbol; (2) it only tries `libamdhip64.so`,
//! `.so.1`, `.so.0` and a separate `libhiprtc`, so it never finds Debian's
//! `libamdhip64.so.5` or ROCm's `.so.6`/`.so.7` without the development symlink, and ROCm 5.x
//! ships hiprtc inside libamdhip64; (3) its build script picks struct layouts from the build
//! machine's `hipconfig` (or the newest bindings when there is none), so a binary built
//! without ROCm carries 7.x layouts. The project's rule "write by hand only what no crate
//! does" allows this: eager resolution into a `Result`, across ROCm 5.2–7.x SONAMEs.
//!
//! Every signature below is the C signature of HIP's headers; none passes a struct by value
//! or reads a struct whose layout changed between releases (device properties are read by
//! attribute; the architecture name is found by content, see `mod.rs`).
//!
//! Oldest supported release: ROCm 5.2 (Debian's `libamdhip64-5`, 5.2.3), which exports every
//! required symbol below, hiprtc included. Optional (newer) symbols and their fallbacks:
//! - `hipGetDevicePropertiesR0600` (ROCm 6+): fallback `hipGetDeviceProperties`;
//! - a separate `libhiprtc` (ROCm 6+): fallback to the hiprtc symbols in libamdhip64 (5.x);
//! - `hipHostMalloc` (deprecated in ROCm 6 in favour of `hipHostAlloc`; both exist in 5.2):
//!   whichever is exported; with neither, large host copies take the driver's pageable path.
#![allow(non_snake_case)]

use crate::platform::loader::{SymbolSpec, SymbolTable};
use std::ffi::{c_char, c_void};

pub type HipStream = *mut c_void;

/// `hipMemAccessDesc`: which device may reach a memory pool, and how (`hipMemPoolSetAccess`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HipMemAccessDesc {
    /// `hipMemLocation::type` (`hipMemLocationTypeDevice` = 1).
    pub location_type: i32,
    /// `hipMemLocation::id`: the device ordinal.
    pub location_id: i32,
    /// `hipMemAccessFlags` (`hipMemAccessFlagsProtReadWrite` = 3).
    pub flags: i32,
}
pub type HipEvent = *mut c_void;
pub type HipModule = *mut c_void;
pub type HipFunction = *mut c_void;
pub type HipGraph = *mut c_void;
pub type HipGraphExec = *mut c_void;
pub type RtcProgram = *mut c_void;

/// libamdhip64 symbols.
pub const HIP: SymbolSpec = SymbolSpec {
    required: &[
        "hipInit",
        "hipDriverGetVersion",
        "hipRuntimeGetVersion",
        "hipGetErrorName",
        "hipGetErrorString",
        "hipGetDeviceCount",
        "hipGetDevice",
        "hipSetDevice",
        "hipDeviceGetName",
        "hipDeviceGetAttribute",
        "hipDeviceTotalMem",
        "hipMemGetInfo",
        "hipDeviceSynchronize",
        "hipDeviceGetStreamPriorityRange",
        "hipStreamCreateWithPriority",
        "hipStreamDestroy",
        "hipStreamQuery",
        "hipStreamSynchronize",
        "hipStreamWaitEvent",
        "hipEventCreateWithFlags",
        "hipEventRecord",
        "hipEventQuery",
        "hipEventSynchronize",
        "hipEventDestroy",
        "hipEventElapsedTime",
        "hipMallocAsync",
        "hipFreeAsync",
        "hipMemcpyHtoDAsync",
        "hipMemcpyDtoHAsync",
        "hipMemcpyDtoDAsync",
        "hipMemsetD8Async",
        "hipDeviceCanAccessPeer",
        "hipDeviceEnablePeerAccess",
        "hipDeviceGetDefaultMemPool",
        "hipMemPoolSetAccess",
        "hipMemcpyPeerAsync",
        "hipHostFree",
        "hipModuleLoadData",
        "hipModuleUnload",
        "hipModuleGetFunction",
        "hipModuleLaunchKernel",
        "hipStreamBeginCapture",
        "hipStreamEndCapture",
        "hipStreamIsCapturing",
        "hipGraphInstantiateWithFlags",
        "hipGraphExecUpdate",
        "hipGraphLaunch",
        "hipGraphDestroy",
        "hipGraphExecDestroy",
    ],
    optional: &[
        "hipGetDevicePropertiesR0600",
        "hipGetDeviceProperties",
        "hipHostMalloc",
        "hipHostAlloc",
    ],
};

/// hiprtc symbols (in libhiprtc on ROCm 6+, in libamdhip64 on ROCm 5.x).
pub const HIPRTC: SymbolSpec = SymbolSpec {
    required: &[
        "hiprtcVersion",
        "hiprtcGetErrorString",
        "hiprtcCreateProgram",
        "hiprtcAddNameExpression",
        "hiprtcCompileProgram",
        "hiprtcGetProgramLogSize",
        "hiprtcGetProgramLog",
        "hiprtcGetCodeSize",
        "hiprtcGetCode",
        "hiprtcGetLoweredName",
        "hiprtcDestroyProgram",
    ],
    optional: &[],
};

/// `hipDeviceAttribute_t` values used (identical from ROCm 5.2 through 7.x).
pub mod attr {
    pub const MAX_THREADS_PER_BLOCK: i32 = 56;
    pub const MULTIPROCESSOR_COUNT: i32 = 63;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: i32 = 74;
    pub const WARP_SIZE: i32 = 87;
}

/// The table macro (shared with rocBLAS's table and the collectives' table).
pub(crate) use crate::platform::loader::fn_table;

fn_table!(HipFns {
    hipInit: fn(u32) -> i32,
    hipDriverGetVersion: fn(*mut i32) -> i32,
    hipRuntimeGetVersion: fn(*mut i32) -> i32,
    hipGetErrorName: fn(i32) -> *const c_char,
    hipGetErrorString: fn(i32) -> *const c_char,
    hipGetDeviceCount: fn(*mut i32) -> i32,
    hipGetDevice: fn(*mut i32) -> i32,
    hipSetDevice: fn(i32) -> i32,
    hipDeviceGetName: fn(*mut c_char, i32, i32) -> i32,
    hipDeviceGetAttribute: fn(*mut i32, i32, i32) -> i32,
    hipDeviceTotalMem: fn(*mut usize, i32) -> i32,
    #[optional] hipGetDevicePropertiesR0600: fn(*mut c_void, i32) -> i32,
    #[optional] hipGetDeviceProperties: fn(*mut c_void, i32) -> i32,
    hipMemGetInfo: fn(*mut usize, *mut usize) -> i32,
    hipDeviceSynchronize: fn() -> i32,
    hipDeviceGetStreamPriorityRange: fn(*mut i32, *mut i32) -> i32,
    hipStreamCreateWithPriority: fn(*mut HipStream, u32, i32) -> i32,
    hipStreamDestroy: fn(HipStream) -> i32,
    hipStreamQuery: fn(HipStream) -> i32,
    hipStreamSynchronize: fn(HipStream) -> i32,
    hipStreamWaitEvent: fn(HipStream, HipEvent, u32) -> i32,
    hipEventCreateWithFlags: fn(*mut HipEvent, u32) -> i32,
    hipEventRecord: fn(HipEvent, HipStream) -> i32,
    hipEventQuery: fn(HipEvent) -> i32,
    hipEventSynchronize: fn(HipEvent) -> i32,
    hipEventDestroy: fn(HipEvent) -> i32,
    hipEventElapsedTime: fn(*mut f32, HipEvent, HipEvent) -> i32,
    hipMallocAsync: fn(*mut *mut c_void, usize, HipStream) -> i32,
    hipFreeAsync: fn(*mut c_void, HipStream) -> i32,
    hipMemcpyHtoDAsync: fn(*mut c_void, *mut c_void, usize, HipStream) -> i32,
    hipMemcpyDtoHAsync: fn(*mut c_void, *mut c_void, usize, HipStream) -> i32,
    hipMemcpyDtoDAsync: fn(*mut c_void, *mut c_void, usize, HipStream) -> i32,
    hipMemsetD8Async: fn(*mut c_void, u8, usize, HipStream) -> i32,
    hipDeviceCanAccessPeer: fn(*mut i32, i32, i32) -> i32,
    hipDeviceEnablePeerAccess: fn(i32, u32) -> i32,
    hipDeviceGetDefaultMemPool: fn(*mut *mut c_void, i32) -> i32,
    hipMemPoolSetAccess: fn(*mut c_void, *const HipMemAccessDesc, usize) -> i32,
    hipMemcpyPeerAsync: fn(*mut c_void, i32, *const c_void, i32, usize, HipStream) -> i32,
    #[optional] hipHostMalloc: fn(*mut *mut c_void, usize, u32) -> i32,
    #[optional] hipHostAlloc: fn(*mut *mut c_void, usize, u32) -> i32,
    hipHostFree: fn(*mut c_void) -> i32,
    hipModuleLoadData: fn(*mut HipModule, *const c_void) -> i32,
    hipModuleUnload: fn(HipModule) -> i32,
    hipModuleGetFunction: fn(*mut HipFunction, HipModule, *const c_char) -> i32,
    hipModuleLaunchKernel: fn(HipFunction, u32, u32, u32, u32, u32, u32, u32, HipStream, *mut *mut c_void, *mut *mut c_void) -> i32,
    hipStreamBeginCapture: fn(HipStream, i32) -> i32,
    hipStreamEndCapture: fn(HipStream, *mut HipGraph) -> i32,
    hipStreamIsCapturing: fn(HipStream, *mut i32) -> i32,
    hipGraphInstantiateWithFlags: fn(*mut HipGraphExec, HipGraph, u64) -> i32,
    hipGraphExecUpdate: fn(HipGraphExec, HipGraph, *mut *mut c_void, *mut i32) -> i32,
    hipGraphLaunch: fn(HipGraphExec, HipStream) -> i32,
    hipGraphDestroy: fn(HipGraph) -> i32,
    hipGraphExecDestroy: fn(HipGraphExec) -> i32,
});

fn_table!(RtcFns {
    hiprtcVersion: fn(*mut i32, *mut i32) -> i32,
    hiprtcGetErrorString: fn(i32) -> *const c_char,
    hiprtcCreateProgram: fn(*mut RtcProgram, *const c_char, *const c_char, i32, *const *const c_char, *const *const c_char) -> i32,
    hiprtcAddNameExpression: fn(RtcProgram, *const c_char) -> i32,
    hiprtcCompileProgram: fn(RtcProgram, i32, *const *const c_char) -> i32,
    hiprtcGetProgramLogSize: fn(RtcProgram, *mut usize) -> i32,
    hiprtcGetProgramLog: fn(RtcProgram, *mut c_char) -> i32,
    hiprtcGetCodeSize: fn(RtcProgram, *mut usize) -> i32,
    hiprtcGetCode: fn(RtcProgram, *mut c_char) -> i32,
    hiprtcGetLoweredName: fn(RtcProgram, *const c_char, *mut *const c_char) -> i32,
    hiprtcDestroyProgram: fn(*mut RtcProgram) -> i32,
});
