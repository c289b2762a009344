//! Finding adapters and choosing one: every adapter wgpu can drive natively (Vulkan, Metal,
//! DX12; not OpenGL, whose compute support is too uneven), listed in wgpu's order, chosen
//! by index or by a substring of the name through `GPUARRAYS_WGPU_ADAPTER`.
//!
//! Without the variable the first discrete GPU is taken, then any other GPU, then a CPU
//! adapter (lavapipe's "llvmpipe"): a machine with a GPU and Mesa installed uses the GPU.

use crate::error::{Result, WgpuError};

/// The environment variable that picks an adapter: an index into [`adapters`] or a
/// case-insensitive substring of the adapter's name.
pub const ADAPTER_ENV: &str = "GPUARRAYS_WGPU_ADAPTER";

/// One adapter, as listed by [`adapters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSummary {
    /// Position in the list (what `GPUARRAYS_WGPU_ADAPTER=<index>` selects).
    pub index: usize,
    /// The adapter's name, e.g. "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// The wgpu backend, e.g. "vulkan".
    pub backend: String,
    /// Discrete GPU, integrated GPU, CPU, ...
    pub device_type: String,
    /// The driver's name and version.
    pub driver: String,
    /// Whether the adapter offers SHADER_F64 (f64 and c64).
    pub f64: bool,
    /// Whether the adapter offers SHADER_INT64 (i64 and u64).
    pub int64: bool,
    /// For an opened device: how its shaders are compiled where that is with Vulkan float
    /// controls (see [`crate::float_controls`]); `None`: wgpu's WGSL path (or not opened).
    pub float_controls: Option<String>,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} ({}, {}, driver {}; f64 {}, i64 {})",
            self.index,
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            if self.f64 { "yes" } else { "no" },
            if self.int64 { "yes" } else { "no" }
        )?;
        if let Some(fc) = &self.float_controls {
            write!(f, "; shaders: {fc}")?;
        }
        Ok(())
    }
}

pub(crate) const BACKENDS: wgpu::Backends = wgpu::Backends::PRIMARY;

pub(crate) fn instance() -> wgpu::Instance {
    crate::quiet_wayland::quiet_headless_wayland();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = BACKENDS;
    wgpu::Instance::new(desc)
}

pub(crate) fn enumerate(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(BACKENDS))
}

fn summary(index: usize, adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    let features = adapter.features();
    AdapterSummary {
        index,
        name: info.name,
        backend: format!("{:?}", info.backend).to_lowercase(),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        f64: features.contains(wgpu::Features::SHADER_F64),
        int64: features.contains(wgpu::Features::SHADER_INT64),
        float_controls: None,
    }
}

/// Every adapter this backend can use, in the order `GPUARRAYS_WGPU_ADAPTER` indexes them.
pub fn adapters() -> Vec<AdapterSummary> {
    enumerate(&instance())
        .iter()
        .enumerate()
        .map(|(i, a)| summary(i, a))
        .collect()
}

fn preference(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Picks from `list` by `selector` (an index or a name substring), or by preference.
pub(crate) fn choose(
    list: Vec<wgpu::Adapter>,
    selector: Option<&str>,
) -> Result<(usize, wgpu::Adapter)> {
    if list.is_empty() {
        return Err(WgpuError::NoAdapter {
            backends: format!("{BACKENDS:?}"),
        });
    }
    let index = match selector.map(str::trim).filter(|s| !s.is_empty()) {
        Some(sel) => {
            let by_index = sel.parse::<usize>().ok().filter(|&i| i < list.len());
            let lower = sel.to_lowercase();
            by_index
                .or_else(|| {
                    list.iter()
                        .position(|a| a.get_info().name.to_lowercase().contains(&lower))
                })
                .ok_or_else(|| WgpuError::AdapterNotFound {
                    selector: sel.to_string(),
                    available: list
                        .iter()
                        .enumerate()
                        .map(|(i, a)| summary(i, a).to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                })?
        }
        None => (0..list.len())
            .min_by_key(|&i| (preference(list[i].get_info().device_type), i))
            .unwrap_or(0),
    };
    let adapter = list
        .into_iter()
        .nth(index)
        .ok_or_else(|| WgpuError::NoAdapter {
            backends: format!("{BACKENDS:?}"),
        })?;
    Ok((index, adapter))
}
