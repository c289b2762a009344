//! Test harness: every test runs against the test double, and also against the real platform
//! when a GPU is present (required when GPUARRAYS_REQUIRE_GPU=1).
#![allow(dead_code)]

use gpuarrays_hip::platform::test_double::{Completion, FakeConfig, FakePlatform};
use gpuarrays_hip::platform::{
    CompileRequest, DeviceId, DevicePtr, EventHandle, FunctionHandle, LaunchConfig, Platform,
    select_platform,
};
use gpuarrays_hip::{HipRuntime, RuntimeConfig, Stream, StreamPriority};
use std::sync::{Arc, OnceLock};

pub const D0: DeviceId = DeviceId(0);

/// One platform under test.
pub struct Harness {
    pub name: &'static str,
    pub rt: Arc<HipRuntime>,
    pub fake: Option<Arc<FakePlatform>>,
    hold_kernel: OnceLock<FunctionHandle>,
}

fn real_platform() -> Option<Arc<dyn Platform>> {
    static REAL: OnceLock<Option<Arc<dyn Platform>>> = OnceLock::new();
    REAL.get_or_init(|| {
        let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
        match select_platform() {
            Ok(p) => Some(p),
            Err(e) if required => panic!("GPUARRAYS_REQUIRE_GPU=1 but no platform: {e}"),
            Err(e) => {
                eprintln!("no real GPU platform, testing the double only: {e}");
                None
            }
        }
    })
    .clone()
}

pub fn fake_harness(fake: FakeConfig, config: RuntimeConfig) -> Harness {
    let fake = Arc::new(FakePlatform::new(fake));
    let rt = HipRuntime::new(fake.clone(), config).expect("runtime over the double");
    Harness {
        name: "test-double",
        rt,
        fake: Some(fake),
        hold_kernel: OnceLock::new(),
    }
}

/// The double, plus the real platform where available.
pub fn harnesses(config: RuntimeConfig) -> Vec<Harness> {
    let mut v = vec![fake_harness(FakeConfig::default(), config.clone())];
    if let Some(p) = real_platform() {
        let rt = HipRuntime::new(p, config).expect("runtime over the real platform");
        v.push(Harness {
            name: "real",
            rt,
            fake: None,
            hold_kernel: OnceLock::new(),
        });
    }
    v
}

pub fn default_harnesses() -> Vec<Harness> {
    harnesses(RuntimeConfig::default())
}

/// Work that keeps a stream busy until released (released on drop too, so a failing test
/// does not leave a kernel spinning).
pub struct Hold(Option<HoldInner>);

enum HoldInner {
    Fake(Arc<FakePlatform>, u64),
    Real {
        rt: Arc<HipRuntime>,
        flag: DevicePtr,
        side: Stream,
        done: EventHandle,
    },
}

const HOLD_SRC: &str = r#"
extern "C" __global__ void gpuarrays_test_hold(volatile unsigned int* flag, unsigned long long max_iters) {
    for (unsigned long long i = 0; i < max_iters; ++i) {
        if (*flag != 0u) return;
#ifdef __CUDACC_RTC__
        __nanosleep(1000);
#else
        __builtin_amdgcn_s_sleep(100);
#endif
    }
}
"#;

impl Harness {
    pub fn is_real(&self) -> bool {
        self.fake.is_none()
    }

    pub fn fake(&self) -> &Arc<FakePlatform> {
        self.fake.as_ref().expect("fake-only step")
    }

    fn kernel(&self) -> FunctionHandle {
        *self.hold_kernel.get_or_init(|| {
            let p = self.rt.platform();
            let arch = self.rt.device(D0).unwrap().properties().arch.clone();
            let prog = p
                .compile(&CompileRequest {
                    name: "hold.cu",
                    source: HOLD_SRC,
                    kernel_names: &["gpuarrays_test_hold"],
                    options: &[],
                    arch: &arch,
                })
                .expect("compile the hold kernel");
            let m = p.load_module(D0, &prog.binary).expect("load module");
            p.get_function(m, prog.lowered_name("gpuarrays_test_hold").unwrap())
                .expect("function")
        })
    }

    /// Keep `stream` busy until [`Hold::release`].
    pub fn hold(&self, stream: &Stream) -> Hold {
        if let Some(f) = &self.fake {
            return Hold(Some(HoldInner::Fake(
                f.clone(),
                f.hold(stream.handle(), Completion::Manual),
            )));
        }
        let p = self.rt.platform();
        p.bind_device(stream.device()).unwrap();
        let f = self.kernel();
        let side = self
            .rt
            .create_stream(stream.device(), StreamPriority::Normal)
            .unwrap();
        let flag = p.alloc_async(4, side.handle()).unwrap();
        // A copy, not a memset: copies need no driver kernel (with lazy module loading, a
        // kernel load can wait for the spinning kernel to end).
        let zero = 0u32;
        // SAFETY: a 4-byte allocation just made; `zero` lives until the synchronize below.
        unsafe {
            p.copy_htod_async(flag, (&zero as *const u32).cast(), 4, side.handle())
                .unwrap()
        };
        side.synchronize().unwrap();
        let mut flag_arg = flag.0;
        let mut max: u64 = 5_000_000;
        let mut args = [
            &mut flag_arg as *mut u64 as *mut std::ffi::c_void,
            &mut max as *mut u64 as *mut std::ffi::c_void,
        ];
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments match the kernel's (pointer, u64) parameters.
        unsafe {
            p.launch_kernel(f, &cfg, stream.handle(), &mut args)
                .unwrap()
        };
        let done = p.create_event(stream.device()).unwrap();
        p.record_event(done, stream.handle()).unwrap();
        Hold(Some(HoldInner::Real {
            rt: self.rt.clone(),
            flag,
            side,
            done,
        }))
    }
}

impl Hold {
    pub fn release(mut self) {
        self.release_inner();
    }

    fn release_inner(&mut self) {
        match self.0.take() {
            None => {}
            Some(HoldInner::Fake(f, id)) => f.complete(id),
            Some(HoldInner::Real {
                rt,
                flag,
                side,
                done,
            }) => {
                let p = rt.platform();
                p.bind_device(side.device()).unwrap();
                let one = 1u32;
                // SAFETY: the flag allocation is live; `one` lives until the synchronize.
                unsafe {
                    p.copy_htod_async(flag, (&one as *const u32).cast(), 4, side.handle())
                        .unwrap()
                };
                side.synchronize().unwrap();
                // Freed once the kernel has returned.
                p.synchronize_event(done).unwrap();
                p.destroy_event(done).unwrap();
                p.free_async(flag, side.handle()).unwrap();
                side.synchronize().unwrap();
            }
        }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if self.0.is_some() {
            // Best effort on a failing test: never leave a kernel spinning.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.release_inner()));
            if r.is_err() {
                eprintln!("releasing a hold failed");
            }
        }
    }
}

/// Run `f` on a new thread and wait for it (its streams go back to the pools when it ends).
pub fn on_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(f).join().expect("thread panicked")
}
