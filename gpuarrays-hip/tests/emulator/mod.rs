//! `EmuPlatform`: a [`Platform`] that runs the generated kernels on the CPU, for tests on
//! machines without a GPU. Device memory is host memory, every operation completes before it
//! returns (streams and events are trivially ordered), and `compile` builds the HIP-dialect
//! source with the host `g++` after `emu.h`, which emulates blocks, barriers and warp
//! operations (see there). Each kernel gets an `extern "C"` trampoline that unpacks the launch's
//! parameter pointers by the kernel's declared parameter types, so the backend's real host code
//! (work splits, scratch layouts, launch sequences) drives the real kernel text.
//!
//! Slow (fibers, one block at a time): meant for inputs of thousands of elements.

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gpuarrays_hip::error::{HipError, Result};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::{
    BlasHandle, CaptureMode, CompileRequest, CompiledProgram, DeviceId, DeviceProperties,
    DevicePtr, EventHandle, FftPlanDesc, FftPlanHandle, FftPlanInfo, FunctionHandle,
    GemmStridedBatched, GraphExecHandle, GraphHandle, LaunchConfig, MemInfo, ModuleHandle,
    Platform, PlatformKind, PriorityRange, StreamHandle, WorkStatus,
};
use gpuarrays_hip::platform::{
    BlasLibrary, CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, FftLibrary,
    GraphCapture, KernelModules, PeerAccess,
};
use gpuarrays_hip::{HipBackend, HipRuntime, RuntimeConfig};
use parking_lot::Mutex;

mod build_cache;
mod work_impl;

const EMU_H: &str = include_str!("emu.h");
const MEMORY: usize = 1 << 32;

type Trampoline = unsafe extern "C" fn(*mut *mut c_void, *const u32, *const u32);

/// Whether the host compiler the emulator needs is present.
pub fn available() -> bool {
    Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A HIP backend over a fresh emulated device, or `None` (with the reason printed) when `g++`
/// is missing.
pub fn backend() -> Option<HipBackend> {
    backend_with_warp(32)
}

/// As [`backend`], on a device whose warps have `warp` lanes (32, or 64 as AMD's wavefronts):
/// the generated sources get `GA_WARP = warp` and the emulator groups that many threads.
pub fn backend_with_warp(warp: u32) -> Option<HipBackend> {
    if !available() {
        eprintln!("skipped: g++ not found; the kernels cannot be emulated");
        return None;
    }
    let platform: Arc<dyn Platform> = Arc::new(EmuPlatform::new(warp));
    let runtime = HipRuntime::new(platform, RuntimeConfig::default()).expect("emulated runtime");
    Some(HipBackend::with_runtime(runtime, 0, DiskCache::off()).expect("emulated backend"))
}

#[derive(Debug, Default)]
struct State {
    allocs: HashMap<u64, Vec<u8>>,
    modules: HashMap<u64, libloading::Library>,
    used: usize,
    /// The parameter sizes of each kernel (from its `ga_emu_sizes_` function), for captures.
    param_sizes: HashMap<u64, Vec<usize>>,
    /// Capturing streams and what they recorded so far.
    captures: HashMap<u64, Vec<EmuOp>>,
    /// Captured graphs and instantiated ones (the same recorded lists).
    graphs: HashMap<u64, Arc<Vec<EmuOp>>>,
}

/// One operation of an emulated graph.
#[derive(Debug, Clone)]
enum EmuOp {
    Kernel {
        function: FunctionHandle,
        grid: [u32; 3],
        block: [u32; 3],
        /// Each parameter's bytes, copied at capture.
        params: Vec<Vec<u8>>,
    },
    Copy {
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
    },
    Memset {
        dst: DevicePtr,
        value: u8,
        bytes: usize,
    },
}

/// The emulated platform (one device).
#[derive(Debug)]
pub struct EmuPlatform {
    dir: PathBuf,
    warp: u32,
    next: AtomicU64,
    state: Mutex<State>,
}

/// Kernels of every emulated platform run one at a time: shared memory is static in the
/// compiled module.
static LAUNCH: Mutex<()> = Mutex::new(());

fn invalid(msg: String) -> HipError {
    HipError::InvalidArgument(format!("emulated platform: {msg}"))
}

impl EmuPlatform {
    pub fn new(warp: u32) -> EmuPlatform {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ga-emu-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("emulator temp dir");
        std::fs::write(dir.join("emu.h"), EMU_H).expect("write emu.h");
        EmuPlatform {
            dir,
            warp,
            next: AtomicU64::new(1),
            state: Mutex::new(State::default()),
        }
    }

    fn handle(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Host copies and stream-ordered allocation are not captured by the emulator (the
    /// runtime refuses the first and never captures the second in a user capture).
    fn refuse_in_capture(&self, stream: StreamHandle, what: &str) -> Result<()> {
        if self.state.lock().captures.contains_key(&stream.0) {
            return Err(invalid(format!("{what} on a capturing stream")));
        }
        Ok(())
    }
}

impl Drop for EmuPlatform {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The parameter types of `__global__` function `name` in `source`, in order.
fn kernel_params(source: &str, name: &str) -> Option<Vec<String>> {
    for (at, _) in source.match_indices("__global__") {
        let rest = &source[at..];
        let open = rest.find('(')?;
        // Skip `__launch_bounds__(...)`.
        let (head, after) = if rest[..open].contains("__launch_bounds__") {
            let close = rest[open..].find(')')? + open;
            let next = rest[close..].find('(')? + close;
            (&rest[close + 1..next], &rest[next..])
        } else {
            (&rest[..open], &rest[open..])
        };
        if head.split_whitespace().last() != Some(name) {
            continue;
        }
        let mut depth = 0;
        let mut end = 0;
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let list = &after[1..end];
        let mut params = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in list.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    params.push(list[start..i].trim().to_string());
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !list[start..].trim().is_empty() {
            params.push(list[start..].trim().to_string());
        }
        return Some(
            params
                .iter()
                .map(|p| {
                    let ident_start = p
                        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .map_or(0, |i| i + 1);
                    p[..ident_start].trim().to_string()
                })
                .collect(),
        );
    }
    None
}

fn trampoline(name: &str, params: &[String]) -> String {
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("*(std::remove_cv_t<{t}>*)args[{i}]"))
        .collect();
    let sizes: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("out[{i}] = sizeof(std::remove_cv_t<{t}>);"))
        .collect();
    format!(
        "extern \"C\" void ga_emu_launch_{name}(void** args, const unsigned* grid, const unsigned* block) {{\n  \
         (void)args;\n  std::function<void()> fn = [&]() {{ {name}({}); }};\n  ga_emu::run_grid(grid, block, GA_WARP, fn);\n}}\n\
         extern \"C\" unsigned ga_emu_sizes_{name}(unsigned long* out) {{\n  (void)out;\n  {}\n  return {};\n}}\n",
        args.join(", "),
        sizes.join(" "),
        params.len()
    )
}

impl Platform for EmuPlatform {
    fn kind(&self) -> PlatformKind {
        PlatformKind::TestDouble
    }
    fn device_count(&self) -> Result<usize> {
        Ok(1)
    }
    fn device_properties(&self, _device: DeviceId) -> Result<DeviceProperties> {
        Ok(DeviceProperties {
            name: "emulated GPU (CPU)".into(),
            arch: "emu".into(),
            warp_size: self.warp,
            multiprocessor_count: 2,
            total_memory: MEMORY,
            max_threads_per_block: 1024,
            max_shared_memory_per_block: 48 * 1024,
        })
    }
    fn bind_device(&self, _device: DeviceId) -> Result<()> {
        Ok(())
    }
    fn mem_info(&self, _device: DeviceId) -> Result<MemInfo> {
        let used = self.state.lock().used;
        Ok(MemInfo {
            free: MEMORY - used.min(MEMORY),
            total: MEMORY,
        })
    }
    fn synchronize_device(&self, _device: DeviceId) -> Result<()> {
        Ok(())
    }
    fn stream_priority_range(&self, _device: DeviceId) -> Result<PriorityRange> {
        Ok(PriorityRange {
            least: 0,
            greatest: -1,
        })
    }
    fn create_stream(&self, _device: DeviceId, _priority: i32) -> Result<StreamHandle> {
        Ok(StreamHandle(self.handle()))
    }
    fn destroy_stream(&self, _stream: StreamHandle) -> Result<()> {
        Ok(())
    }
    fn query_stream(&self, _stream: StreamHandle) -> WorkStatus {
        WorkStatus::Ready
    }
    fn synchronize_stream(&self, _stream: StreamHandle) -> Result<()> {
        Ok(())
    }
    fn create_event(&self, _device: DeviceId) -> Result<EventHandle> {
        Ok(EventHandle(self.handle()))
    }
    fn record_event(&self, _event: EventHandle, _stream: StreamHandle) -> Result<()> {
        Ok(())
    }
    fn stream_wait_event(&self, _stream: StreamHandle, _event: EventHandle) -> Result<()> {
        Ok(())
    }
    fn query_event(&self, _event: EventHandle) -> WorkStatus {
        WorkStatus::Ready
    }
    fn synchronize_event(&self, _event: EventHandle) -> Result<()> {
        Ok(())
    }
    fn destroy_event(&self, _event: EventHandle) -> Result<()> {
        Ok(())
    }
    fn alloc_async(&self, bytes: usize, _stream: StreamHandle) -> Result<DevicePtr> {
        self.refuse_in_capture(_stream, "a stream-ordered allocation")?;
        // Fresh device memory is not zero on a GPU either: fill it with a pattern.
        let v = vec![0xA5u8; bytes.max(1)];
        let ptr = v.as_ptr() as u64;
        let mut st = self.state.lock();
        st.used += v.len();
        st.allocs.insert(ptr, v);
        Ok(DevicePtr(ptr))
    }
    fn free_async(&self, ptr: DevicePtr, _stream: StreamHandle) -> Result<()> {
        self.refuse_in_capture(_stream, "a stream-ordered free")?;
        let mut st = self.state.lock();
        let v = st
            .allocs
            .remove(&ptr.0)
            .ok_or_else(|| invalid(format!("free of unknown pointer {:#x}", ptr.0)))?;
        st.used -= v.len();
        Ok(())
    }
    unsafe fn copy_htod_async(
        &self,
        dst: DevicePtr,
        src: *const c_void,
        bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        self.refuse_in_capture(_stream, "a host-to-device copy")?;
        // SAFETY: the trait's contract: `src` readable and `dst` a live allocation, `bytes` long.
        unsafe { std::ptr::copy(src as *const u8, dst.0 as *mut u8, bytes) };
        Ok(())
    }
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut c_void,
        src: DevicePtr,
        bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        self.refuse_in_capture(_stream, "a device-to-host copy")?;
        // SAFETY: as above.
        unsafe { std::ptr::copy(src.0 as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }
    unsafe fn copy_dtod_async(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        if let Some(ops) = self.state.lock().captures.get_mut(&_stream.0) {
            ops.push(EmuOp::Copy { dst, src, bytes });
            return Ok(());
        }
        // SAFETY: as above; `copy` allows overlap.
        unsafe { std::ptr::copy(src.0 as *const u8, dst.0 as *mut u8, bytes) };
        Ok(())
    }
    fn host_alloc_pinned(&self, _device: DeviceId, _bytes: usize) -> Result<*mut u8> {
        // Large host copies then take the direct path, which is what the emulator checks.
        Err(invalid("the emulator has no pinned host memory".into()))
    }
    unsafe fn host_free_pinned(&self, _device: DeviceId, _ptr: *mut u8) -> Result<()> {
        Err(invalid("the emulator has no pinned host memory".into()))
    }
    unsafe fn memset_async(
        &self,
        dst: DevicePtr,
        value: u8,
        bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        if let Some(ops) = self.state.lock().captures.get_mut(&_stream.0) {
            ops.push(EmuOp::Memset { dst, value, bytes });
            return Ok(());
        }
        // SAFETY: as above.
        unsafe { std::ptr::write_bytes(dst.0 as *mut u8, value, bytes) };
        Ok(())
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.create_event(device)
    }
    fn event_elapsed_ms(&self, _start: EventHandle, _end: EventHandle) -> Result<f32> {
        Err(invalid("timing events are not emulated".into()))
    }
}
