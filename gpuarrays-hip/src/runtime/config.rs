//! [`RuntimeConfig`]: the runtime's settings, and every environment variable of the crate.
//!
//! The crate reads its environment in three places only: here, once, when a runtime is
//! configured from the environment ([`RuntimeConfig::from_env`], which
//! `HipRuntime::from_env` and so `HipBackend::new` use); in `platform/`, which picks and
//! loads a GPU runtime before there is a configuration; and in `collectives/bootstrap`, which
//! a process started by a launcher asks for its rank and group id before it opens a device
//! (`Communicator::from_env`). Everything below reads its setting
//! from a [`RuntimeConfig`] (kernels from its [`KernelPolicy`]), so a runtime built with
//! [`RuntimeConfig::default`] never depends on the environment. Unset means the default.
//!
//! | variable | values | default | what it sets |
//! |---|---|---|---|
//! | `GPUARRAYS_HIP_PLATFORM` | `amd`, `nvidia`, `auto` | automatic | the GPU runtime (`platform/select.rs`) |
//! | `ROCM_PATH`, `HIP_PATH` | directories | the system's library search | where ROCm's libraries are looked for first (`platform/loader.rs`; NVIDIA's are found by the system's search, `LD_LIBRARY_PATH`) |
//! | `NCCL_HOME`, `CUDA_HOME` | directories | the system's library search | where NCCL (libnccl.so.2) is looked for first (`platform/nvidia/multi_device.rs`; RCCL under `ROCM_PATH`) |
//! | `GPUARRAYS_RANK`, `GPUARRAYS_RANKS`, `GPUARRAYS_LOCAL_RANK` | counts | torchrun's `RANK`/`WORLD_SIZE`/`LOCAL_RANK`, then Open MPI's, then Slurm's | this process's rank, the group size and the device (`collectives/bootstrap/rank_info.rs`) |
//! | `GPUARRAYS_BOOTSTRAP` | `env:VAR`, `file:PATH`, `tcp:HOST:PORT` | none | how ranks share the group id (`collectives/bootstrap.rs`) |
//! | `GPUARRAYS_BOOTSTRAP_TIMEOUT` | seconds | 120 | how long a rank waits for the id |
//! | `GPUARRAYS_STREAM_POOL` | `on`, `off` | on | [`RuntimeConfig::pooling`] |
//! | `GPUARRAYS_MAX_IDLE_STREAMS` | a count | 32 | [`RuntimeConfig::max_idle_streams`] |
//! | `GPUARRAYS_HOST_STAGING` | `off`, or e.g. `chunk=16M,slots=4` | on | [`RuntimeConfig::staging`] |
//! | `GPUARRAYS_KERNEL_CACHE` | `off`, a directory | `$XDG_CACHE_HOME/gpuarrays/kernels`, else `$HOME/.cache/gpuarrays/kernels` | [`RuntimeConfig::kernel_cache`] |
//! | `GPUARRAYS_FFT_PLAN_CACHE` | `count[,bytes]`, `0` | 64 idle plans, 1 GiB | [`RuntimeConfig::fft_plan_cache`] |
//! | `GPUARRAYS_MATMUL` | `auto`, `blas`, `kernel` | `auto` | [`KernelPolicy::matmul`] |
//! | `GPUARRAYS_ALLOW_TF32` | `1`/`on`, `0`/`off` | off | [`KernelPolicy::blas_math`] |
//! | `GPUARRAYS_SORT` | `auto`, `register`, `bitonic`, `rows`, `onesweep` | `auto` | [`KernelPolicy::sort`] |
//! | `GPUARRAYS_SCAN` | `lookback`, `multipass`, `reducescan`, `rowpass` | automatic | [`KernelPolicy::row_scan`] |
//! | `GPUARRAYS_REDUCE_COLS` | `threads` | slices | [`KernelPolicy::col_reduce`] |
//! | `GPUARRAYS_ARG_REDUCE` | `perelement` | per-thread best | [`KernelPolicy::arg_reduce`] |
//! | `GPUARRAYS_REDUCE` | `twopass` | one launch | [`KernelPolicy::split_reduce`] |
//!
//! `GPUARRAYS_FIND`, `GPUARRAYS_SORT_REGISTER_MAX`, `GPUARRAYS_SORT_PASS_ITEMS`,
//! `GPUARRAYS_REDUCE_BLOCKS` and `GPUARRAYS_COL_SLICE_BLOCKS` are retired: their variants
//! lost their measurements (the figures are in [`super::policy`]).

use std::path::{Path, PathBuf};

use gpuarrays_core::handle_cache::Limits;

use super::policy::KernelPolicy;
use crate::error::{HipError, Result};
use crate::memory::{HOST_STAGING_ENV, StagingConfig};

/// `GPUARRAYS_STREAM_POOL=off` disables pooling (a stream is created and destroyed per
/// thread), for benchmarks.
pub const STREAM_POOL_ENV: &str = "GPUARRAYS_STREAM_POOL";
/// `GPUARRAYS_MAX_IDLE_STREAMS=N` sets the idle cap per device × priority.
pub const MAX_IDLE_STREAMS_ENV: &str = "GPUARRAYS_MAX_IDLE_STREAMS";
/// `GPUARRAYS_KERNEL_CACHE`: `off`, or the directory of the on-disk kernel cache.
pub const KERNEL_CACHE_ENV: &str = "GPUARRAYS_KERNEL_CACHE";
/// `GPUARRAYS_FFT_PLAN_CACHE=count[,bytes]`: the idle-plan budgets of every device's cache.
pub const FFT_PLAN_CACHE_ENV: &str = "GPUARRAYS_FFT_PLAN_CACHE";

/// Per device: 4 idle FFT plans per key, 64 over all keys, 1 GiB of plans' own memory.
pub const DEFAULT_FFT_PLAN_LIMITS: Limits = Limits {
    max_entries: 4,
    max_idle: 64,
    max_idle_bytes: 1 << 30,
};

/// Runtime settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Idle streams kept per device × priority (default 32).
    pub max_idle_streams: usize,
    /// Whether streams are pooled (default true).
    pub pooling: bool,
    /// Bytes the memory pool keeps cached per device (default unlimited: released on
    /// out-of-memory).
    pub max_cached_bytes: usize,
    /// How large copies between a device and pageable host memory are staged (see
    /// [`StagingConfig`]; `GPUARRAYS_HOST_STAGING`).
    pub staging: StagingConfig,
    /// Which kernels run where several compute the same results, and where matrix products go.
    pub kernels: KernelPolicy,
    /// The directory of the on-disk kernel cache of backends made by `HipBackend::new`, or
    /// `None` for none (the default; [`RuntimeConfig::from_env`] gives the user's cache
    /// directory unless `GPUARRAYS_KERNEL_CACHE=off`).
    pub kernel_cache: Option<PathBuf>,
    /// The idle-plan budgets of every device's FFT plan cache (default
    /// [`DEFAULT_FFT_PLAN_LIMITS`]).
    pub fft_plan_cache: Limits,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            max_idle_streams: 32,
            pooling: true,
            max_cached_bytes: usize::MAX,
            staging: StagingConfig::default(),
            kernels: KernelPolicy::default(),
            kernel_cache: None,
            fft_plan_cache: DEFAULT_FFT_PLAN_LIMITS,
        }
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl RuntimeConfig {
    /// Defaults, overridden by every variable of the [module documentation](self) that is
    /// set. Read once per runtime.
    pub fn from_env() -> Result<RuntimeConfig> {
        let mut c = RuntimeConfig::from_values(
            var(STREAM_POOL_ENV).as_deref(),
            var(MAX_IDLE_STREAMS_ENV).as_deref(),
        )?;
        if let Some(v) = var(HOST_STAGING_ENV) {
            c.staging = StagingConfig::parse(&v)?;
        }
        c.kernels = KernelPolicy::from_vars(var)?;
        c.kernel_cache = kernel_cache_from_env()?;
        if let Some(v) = var(FFT_PLAN_CACHE_ENV) {
            c.fft_plan_cache = parse_fft_plan_limits(&v)?;
        }
        Ok(c)
    }

    /// Defaults, overridden by the values of `GPUARRAYS_STREAM_POOL` (on/off) and
    /// `GPUARRAYS_MAX_IDLE_STREAMS` (a count) where given.
    pub fn from_values(pool: Option<&str>, max_idle: Option<&str>) -> Result<RuntimeConfig> {
        let mut c = RuntimeConfig::default();
        if let Some(v) = pool {
            c.pooling = match v.trim().to_ascii_lowercase().as_str() {
                "" | "on" | "1" | "true" => true,
                "off" | "0" | "false" => false,
                _ => {
                    return Err(HipError::InvalidConfig {
                        var: STREAM_POOL_ENV,
                        value: v.to_string(),
                        expected: "on or off",
                    });
                }
            };
        }
        if let Some(v) = max_idle {
            c.max_idle_streams = v.trim().parse().map_err(|_| HipError::InvalidConfig {
                var: MAX_IDLE_STREAMS_ENV,
                value: v.to_string(),
                expected: "a non-negative integer",
            })?;
        }
        Ok(c)
    }
}

/// The kernel cache directory `GPUARRAYS_KERNEL_CACHE` asks for: `off` none, a path that
/// path, unset or empty the user's cache directory (none without `XDG_CACHE_HOME` and
/// `HOME`).
fn kernel_cache_from_env() -> Result<Option<PathBuf>> {
    match std::env::var(KERNEL_CACHE_ENV) {
        Ok(v) if v.trim().eq_ignore_ascii_case("off") => Ok(None),
        Ok(v) if !v.trim().is_empty() => Ok(Some(PathBuf::from(v.trim()))),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(default_kernel_cache_dir()),
        Err(std::env::VarError::NotUnicode(v)) => Err(HipError::InvalidConfig {
            var: KERNEL_CACHE_ENV,
            value: v.to_string_lossy().into_owned(),
            expected: "off or a directory path in UTF-8",
        }),
    }
}

fn default_kernel_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(base.join("gpuarrays").join("kernels"))
}

/// The FFT plan-cache limits for a value of [`FFT_PLAN_CACHE_ENV`]: `count` sets the idle
/// count over all keys (0 disables caching), `bytes` the byte budget; the per-key budget
/// stays 4 (or 0).
pub fn parse_fft_plan_limits(value: &str) -> Result<Limits> {
    let bad = || HipError::InvalidConfig {
        var: FFT_PLAN_CACHE_ENV,
        value: value.to_string(),
        expected: "count[,bytes], e.g. 64 or 64,1G (0 disables the cache)",
    };
    let mut parts = value.split(',').map(str::trim);
    let count: usize = parts
        .next()
        .filter(|c| !c.is_empty())
        .ok_or_else(bad)?
        .parse()
        .map_err(|_| bad())?;
    let bytes = match parts.next() {
        None => DEFAULT_FFT_PLAN_LIMITS.max_idle_bytes,
        Some(b) => parse_bytes(b).ok_or_else(bad)?,
    };
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(Limits {
        max_entries: DEFAULT_FFT_PLAN_LIMITS.max_entries.min(count),
        max_idle: count,
        max_idle_bytes: bytes,
    })
}

fn parse_bytes(s: &str) -> Option<usize> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return None,
    };
    digits.parse::<usize>().ok()?.checked_mul(1usize << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fft_plan_cache_values_parse_into_budgets() {
        let l = parse_fft_plan_limits("16").ok();
        assert_eq!(
            l.map(|l| (l.max_idle, l.max_entries, l.max_idle_bytes)),
            Some((16, 4, 1 << 30))
        );
        let l = parse_fft_plan_limits("8, 512M").ok();
        assert_eq!(
            l.map(|l| (l.max_idle, l.max_idle_bytes)),
            Some((8, 512 << 20))
        );
        let l = parse_fft_plan_limits("0").ok();
        assert_eq!(l.map(|l| (l.max_idle, l.max_entries)), Some((0, 0)));
        let l = parse_fft_plan_limits("2,100").ok();
        assert_eq!(l.map(|l| l.max_idle_bytes), Some(100));
        for bad in ["", "x", "4,", "4,1T", "1,2,3", "-1"] {
            assert!(parse_fft_plan_limits(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_default_configuration_reads_no_environment() {
        let c = RuntimeConfig::default();
        assert_eq!(c.kernels, KernelPolicy::default());
        assert_eq!(c.kernel_cache, None);
        assert_eq!(c.fft_plan_cache, DEFAULT_FFT_PLAN_LIMITS);
    }
}
