//! Profiler ranges for the GPU vendors' profilers: NVTX (Nsight Systems and Nsight Compute
//! on NVIDIA) and roctx (rocprof on AMD), as [`RangeSink`]s for the facade's
//! `profiling::RangeLayer`.
//!
//! NVTX is the NVTX3 C implementation compiled in through the `nvtx` crate: a range call
//! checks once whether a profiler injected itself (`NVTX_INJECTION64_PATH`, set by Nsight)
//! and is a no-op otherwise, so the sink is always offered. roctx is `libroctx64`, loaded
//! at run time like the HIP runtime, and only under rocprof (which sets one of
//! [`ROCPROF_ENV`]): loading ROCm libraries into a process that runs on NVIDIA is what the
//! loader's comment warns about, and without a profiler the ranges go nowhere.

use std::ffi::{CStr, c_char, c_int};

use gpuarrays_core::profiling::RangeSink;
use libloading::Library;

use crate::platform::PlatformKind;
use crate::platform::loader::open_first;

/// NVTX ranges (Nsight).
struct Nvtx;

impl RangeSink for Nvtx {
    fn name(&self) -> &'static str {
        "nvtx"
    }
    fn push(&self, label: &CStr) {
        nvtx::range_push!("{}", label.to_string_lossy());
    }
    fn pop(&self) {
        nvtx::range_pop!();
    }
}

type PushFn = unsafe extern "C" fn(*const c_char) -> c_int;
type PopFn = unsafe extern "C" fn() -> c_int;

/// roctx ranges (rocprof): `roctxRangePushA` / `roctxRangePop` of `libroctx64`.
struct Roctx {
    push: PushFn,
    pop: PopFn,
    /// Keeps the functions' library mapped (loaded resident anyway, see `loader.rs`).
    _library: Library,
}

impl RangeSink for Roctx {
    fn name(&self) -> &'static str {
        "roctx"
    }
    fn push(&self, label: &CStr) {
        // SAFETY: `push` is roctxRangePushA, `int (const char*)`, resolved from the library
        // `_library` keeps loaded; `label` is a valid NUL-terminated string for the call.
        unsafe { (self.push)(label.as_ptr()) };
    }
    fn pop(&self) {
        // SAFETY: `pop` is roctxRangePop, `int (void)`, resolved from the loaded library.
        unsafe { (self.pop)() };
    }
}

/// Variables rocprof (v1/v2: `HSA_TOOLS_LIB`, `ROCP_TOOL_LIB`; v3: `ROCPROFILER_LIBRARY_CTOR`)
/// sets in the profiled process; roctx is loaded only when one is set.
pub const ROCPROF_ENV: [&str; 3] = ["HSA_TOOLS_LIB", "ROCP_TOOL_LIB", "ROCPROFILER_LIBRARY_CTOR"];

fn roctx() -> Option<Roctx> {
    if !ROCPROF_ENV.iter().any(|v| std::env::var_os(v).is_some()) {
        return None;
    }
    let candidates: Vec<String> = [
        "libroctx64.so",
        "libroctx64.so.4",
        "/opt/rocm/lib/libroctx64.so",
    ]
    .map(String::from)
    .to_vec();
    let lib = open_first(
        PlatformKind::Amd,
        "libroctx64",
        "ROCm (roctracer)",
        &candidates,
        "install ROCm's roctracer to see gpuarrays ranges in rocprof",
    )
    .ok()?
    .library;
    // SAFETY: the symbols are resolved with the signatures roctx.h declares for them
    // (`int roctxRangePushA(const char*)`, `int roctxRangePop(void)`); the function pointers
    // are kept together with the library, which stays loaded.
    let (push, pop) = unsafe {
        let push = *lib.get::<PushFn>(b"roctxRangePushA\0").ok()?;
        let pop = *lib.get::<PopFn>(b"roctxRangePop\0").ok()?;
        (push, pop)
    };
    Some(Roctx {
        push,
        pop,
        _library: lib,
    })
}

/// The profilers' range sinks available here: NVTX always (a no-op unless a profiler is
/// attached), roctx under rocprof when `libroctx64` loads.
pub fn profiler_sinks() -> Vec<Box<dyn RangeSink>> {
    let mut sinks: Vec<Box<dyn RangeSink>> = vec![Box::new(Nvtx)];
    if let Some(r) = roctx() {
        sinks.push(Box::new(r));
    }
    sinks
}
