//! The backends compiled into this build, and for each whether it is available here.
//!
//! Each backend is one [`BackendEntry`] in [`compiled`]. Adding a backend (HIP, wgpu) means
//! adding one entry, behind its cargo feature: a `probe` that opens the device (failing
//! with a clear error when the runtime or device is missing) and a `run_suite` that runs
//! the conformance suite on it against the CPU reference (`gpuarrays_conformance::run`).
//! The CLI (`gpuarrays info`, `gpuarrays validate`) lists and validates whatever is here.

use gpuarrays_conformance::{SuiteConfig, SuiteReport};
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support};
use gpuarrays_cpu_ref::CpuBackend;

/// What a backend's results are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The CPU reference: checked against the conformance suite's scalar oracle.
    Reference,
    /// A GPU backend: checked against the CPU reference.
    Gpu,
}

/// One backend compiled into this build.
#[derive(Debug, Clone, Copy)]
pub struct BackendEntry {
    /// The name the CLI accepts (`--backend NAME`), e.g. "cpu", "hip".
    pub name: &'static str,
    pub role: Role,
    /// One line for `gpuarrays info`.
    pub description: &'static str,
    /// Opens the backend's devices; an error says why it is not available here.
    pub probe: fn() -> Result<BackendInfo>,
    /// Runs the conformance suite on the backend (see [`Role`] for the reference).
    pub run_suite: fn(&SuiteConfig) -> Result<SuiteReport>,
}

/// What a probe found.
#[derive(Debug, Clone)]
pub struct BackendInfo {
    pub devices: Vec<DeviceInfo>,
    /// The first device's answer for every (element type, operation kind).
    pub capabilities: Vec<Capability>,
}

/// One answer of [`Backend::supports`].
#[derive(Debug, Clone, PartialEq)]
pub struct Capability {
    pub dtype: DType,
    pub op: OpKind,
    pub support: Support,
}

/// Every (element type, operation kind) answer of `backend`.
pub fn capabilities<B: Backend>(backend: &B) -> Vec<Capability> {
    DType::ALL
        .iter()
        .flat_map(|&dtype| {
            OpKind::ALL.iter().map(move |&op| Capability {
                dtype,
                op,
                support: backend.supports(dtype, op),
            })
        })
        .collect()
}

/// The backends compiled into this build, the CPU reference first.
pub fn compiled() -> Vec<BackendEntry> {
    // GPU backends add their entry here, behind their feature.
    #[allow(unused_mut)]
    let mut entries = vec![cpu_entry()];
    #[cfg(feature = "hip")]
    entries.push(hip_entry());
    entries
}

/// The entry named `name`, if compiled in.
pub fn find(name: &str) -> Option<BackendEntry> {
    compiled().into_iter().find(|e| e.name == name)
}

/// The names of the compiled-in backends.
pub fn names() -> Vec<&'static str> {
    compiled().iter().map(|e| e.name).collect()
}

fn cpu_entry() -> BackendEntry {
    BackendEntry {
        name: "cpu",
        role: Role::Reference,
        description: "CPU reference backend (rayon), checked against the scalar oracle",
        probe: || {
            let cpu = CpuBackend::new();
            Ok(BackendInfo {
                devices: vec![cpu.device().clone()],
                capabilities: capabilities(&cpu),
            })
        },
        run_suite: |cfg| Ok(gpuarrays_conformance::run_cpu_against_oracle(cfg)),
    }
}

#[cfg(feature = "hip")]
fn hip_devices() -> Result<Vec<gpuarrays_hip::HipBackend>> {
    let devices =
        gpuarrays_hip::HipBackend::all().map_err(|e| gpuarrays_core::Error::backend("hip", e))?;
    if devices.is_empty() {
        return Err(gpuarrays_core::Error::backend(
            "hip",
            std::io::Error::other("the HIP runtime loaded but reports no device"),
        ));
    }
    Ok(devices)
}

#[cfg(feature = "hip")]
fn hip_entry() -> BackendEntry {
    BackendEntry {
        name: "hip",
        role: Role::Gpu,
        description: "HIP backend (AMD via ROCm, NVIDIA via CUDA), checked against the CPU reference",
        probe: || {
            let devices = hip_devices()?;
            Ok(BackendInfo {
                capabilities: capabilities(&devices[0]),
                devices: devices.iter().map(|d| d.device().clone()).collect(),
            })
        },
        run_suite: |cfg| {
            let mut rows = Vec::new();
            for hip in hip_devices()? {
                rows.extend(gpuarrays_conformance::run(&hip, cfg).rows);
            }
            Ok(SuiteReport { rows })
        },
    }
}
