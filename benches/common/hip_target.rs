//! Where the HIP stress and soak programs run: the real device (`--platform gpu`, the
//! default: the process-wide runtime, device 0) or the in-process test double
//! (`--platform double`), whose race detector checks every access the programs make and
//! whose run on a machine without a GPU sizes the programs (the per-thread cost).

use gpuarrays::hip::kernels::DiskCache;
use gpuarrays::hip::platform::test_double::{FakeConfig, FakePlatform};
use gpuarrays::hip::{HipBackend, HipRuntime, RuntimeConfig};
use std::sync::Arc;
use std::time::Duration;

/// The backend a program runs on, and the double when it is one.
pub struct Target {
    pub backend: HipBackend,
    pub double: Option<Arc<FakePlatform>>,
}

impl Target {
    /// The value of `--platform` (`gpu` or `double`); `races` turns the double's race
    /// detector on (it keeps state per allocation: off for the soak).
    pub fn open(platform: &str, races: bool) -> Result<Target, String> {
        match platform {
            "gpu" => {
                let backend = HipBackend::new(0).map_err(|e| format!("no HIP device: {e}"))?;
                Ok(Target {
                    backend,
                    double: None,
                })
            }
            "double" => {
                let fake = Arc::new(FakePlatform::new(FakeConfig {
                    kernel_time: Duration::from_micros(5),
                    copy_time: Duration::from_micros(2),
                    detect_races: races,
                    keep_log: false,
                    ..FakeConfig::default()
                }));
                let rt = HipRuntime::new(fake.clone(), RuntimeConfig::default())
                    .map_err(|e| format!("runtime over the test double: {e}"))?;
                let backend = HipBackend::with_runtime(rt, 0, DiskCache::off())
                    .map_err(|e| format!("backend over the test double: {e}"))?;
                Ok(Target {
                    backend,
                    double: Some(fake),
                })
            }
            other => Err(format!(
                "--platform {other}: expected `gpu` (the real device) or `double` (the test double)"
            )),
        }
    }

    /// Whether kernels really compute (outputs can be checked).
    pub fn computes(&self) -> bool {
        self.double.is_none()
    }

    /// The double's race reports (empty on the GPU).
    pub fn races(&self) -> Vec<String> {
        self.double.as_ref().map(|d| d.races()).unwrap_or_default()
    }
}

/// `--name value` from the command line, parsed, or `default`.
pub fn arg<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => {
            let v = args
                .get(i + 1)
                .ok_or_else(|| format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name} {v}: not a valid value"))
        }
    }
}
