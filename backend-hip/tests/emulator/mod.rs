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
use std::path::PathBuf;
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
use gpuarrays_hip::{HipBackend, HipRuntime, RuntimeConfig};
use parking_lot::Mutex;

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
    format!(
        "extern \"C\" void ga_emu_launch_{name}(void** args, const unsigned* grid, const unsigned* block) {{\n  \
         (void)args;\n  std::function<void()> fn = [&]() {{ {name}({}); }};\n  ga_emu::run_grid(grid, block, GA_WARP, fn);\n}}\n",
        args.join(", ")
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
        // Fresh device memory is not zero on a GPU either: fill it with a pattern.
        let v = vec![0xA5u8; bytes.max(1)];
        let ptr = v.as_ptr() as u64;
        let mut st = self.state.lock();
        st.used += v.len();
        st.allocs.insert(ptr, v);
        Ok(DevicePtr(ptr))
    }
    fn free_async(&self, ptr: DevicePtr, _stream: StreamHandle) -> Result<()> {
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
        // SAFETY: as above.
        unsafe { std::ptr::write_bytes(dst.0 as *mut u8, value, bytes) };
        Ok(())
    }
    fn compiler_version(&self) -> Result<String> {
        Ok("g++ emulation".into())
    }
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompiledProgram> {
        let id = self.handle();
        let mut source = request.source.to_string();
        for k in request.kernel_names {
            let params = kernel_params(request.source, k)
                .ok_or_else(|| invalid(format!("kernel {k} not found in {}", request.name)))?;
            source.push_str(&trampoline(k, &params));
        }
        let cpp = self.dir.join(format!("m{id}.cpp"));
        let so = self.dir.join(format!("m{id}.so"));
        std::fs::write(&cpp, &source).map_err(|e| invalid(format!("write source: {e}")))?;
        let out = Command::new("g++")
            .args([
                "-std=c++17",
                "-O1",
                "-g0",
                "-w",
                "-fPIC",
                "-shared",
                "-include",
            ])
            .arg(self.dir.join("emu.h"))
            .arg(&cpp)
            .arg("-o")
            .arg(&so)
            .output()
            .map_err(|e| invalid(format!("run g++: {e}")))?;
        if !out.status.success() {
            return Err(HipError::Compile {
                platform: PlatformKind::TestDouble,
                program: request.name.into(),
                arch: request.arch.into(),
                call: "g++",
                log: format!(
                    "{} (source kept at {})",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .take(40)
                        .collect::<Vec<_>>()
                        .join("\n"),
                    cpp.display()
                ),
            });
        }
        let _ = std::fs::remove_file(&cpp);
        Ok(CompiledProgram {
            binary: so.to_string_lossy().into_owned().into_bytes(),
            lowered_names: request
                .kernel_names
                .iter()
                .map(|k| (k.to_string(), k.to_string()))
                .collect(),
            log: String::new(),
        })
    }
    fn load_module(&self, _device: DeviceId, image: &[u8]) -> Result<ModuleHandle> {
        let path = String::from_utf8_lossy(image).into_owned();
        // SAFETY: the library is one this platform just built; its initialisers only set up
        // the emulator's globals.
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| invalid(format!("load {path}: {e}")))?;
        let h = self.handle();
        self.state.lock().modules.insert(h, lib);
        Ok(ModuleHandle(h))
    }
    fn unload_module(&self, module: ModuleHandle) -> Result<()> {
        self.state.lock().modules.remove(&module.0);
        Ok(())
    }
    fn get_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let st = self.state.lock();
        let lib = st
            .modules
            .get(&module.0)
            .ok_or_else(|| invalid("no such module".into()))?;
        let symbol = format!("ga_emu_launch_{name}");
        // SAFETY: the symbol is a trampoline generated with exactly this signature.
        let f: libloading::Symbol<'_, Trampoline> =
            unsafe { lib.get(symbol.as_bytes()) }.map_err(|e| invalid(format!("{symbol}: {e}")))?;
        Ok(FunctionHandle(*f as usize as u64))
    }
    unsafe fn launch_kernel(
        &self,
        function: FunctionHandle,
        config: &LaunchConfig,
        _stream: StreamHandle,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        if config.shared_mem_bytes != 0 {
            return Err(invalid("dynamic shared memory is not emulated".into()));
        }
        let threads: u32 = config.block.iter().product();
        if threads == 0 || threads > 1024 {
            return Err(invalid(format!("{threads} threads per block")));
        }
        // SAFETY: `function` came from `get_function` (a trampoline of this signature), whose
        // module stays loaded while the backend holds it.
        let f: Trampoline = unsafe { std::mem::transmute(function.0 as usize) };
        let _one_at_a_time = LAUNCH.lock();
        // SAFETY: the trait's contract: one pointer per parameter, of the parameter's type.
        unsafe {
            f(
                args.as_mut_ptr(),
                config.grid.as_ptr(),
                config.block.as_ptr(),
            )
        };
        Ok(())
    }
    fn create_timing_event(&self, device: DeviceId) -> Result<EventHandle> {
        self.create_event(device)
    }
    fn event_elapsed_ms(&self, _start: EventHandle, _end: EventHandle) -> Result<f32> {
        Err(invalid("timing events are not emulated".into()))
    }
    // No vendor BLAS on the emulator: matmul takes the own kernel (the route's fallback).
    fn blas_version(&self) -> Result<String> {
        Err(invalid("no BLAS library on the emulator".into()))
    }
    fn blas_create(&self, _device: DeviceId) -> Result<BlasHandle> {
        Err(invalid("no BLAS library on the emulator".into()))
    }
    fn blas_destroy(&self, _device: DeviceId, _handle: BlasHandle) -> Result<()> {
        Ok(())
    }
    unsafe fn blas_gemm(
        &self,
        _handle: BlasHandle,
        _stream: StreamHandle,
        _gemm: &GemmStridedBatched,
    ) -> Result<()> {
        Err(invalid("no BLAS library on the emulator".into()))
    }
    // No FFT library on the emulator (FFT is checked on the test double and on the GPU).
    fn fft_plan_create(&self, _device: DeviceId, _desc: &FftPlanDesc) -> Result<FftPlanInfo> {
        Err(invalid("no FFT library on the emulator".into()))
    }
    fn fft_plan_destroy(&self, _device: DeviceId, _plan: FftPlanHandle) -> Result<()> {
        Ok(())
    }
    unsafe fn fft_execute(
        &self,
        _plan: FftPlanHandle,
        _desc: &FftPlanDesc,
        _input: DevicePtr,
        _output: DevicePtr,
        _work: DevicePtr,
        _work_bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(invalid("no FFT library on the emulator".into()))
    }
    fn begin_capture(&self, _stream: StreamHandle, _mode: CaptureMode) -> Result<()> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn end_capture(&self, _stream: StreamHandle) -> Result<GraphHandle> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn is_capturing(&self, _stream: StreamHandle) -> Result<bool> {
        Ok(false)
    }
    fn instantiate_graph(&self, _graph: GraphHandle) -> Result<GraphExecHandle> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn launch_graph(&self, _graph: GraphExecHandle, _stream: StreamHandle) -> Result<()> {
        Err(invalid("graph capture is not emulated".into()))
    }
    fn destroy_graph(&self, _graph: GraphHandle) -> Result<()> {
        Ok(())
    }
    fn destroy_graph_exec(&self, _graph: GraphExecHandle) -> Result<()> {
        Ok(())
    }
}
