//! Compiled compute pipelines, cached by their WGSL source in a [`HandleCache`] with a
//! budget: generating the source is microseconds, compiling it (naga, then the driver) is
//! milliseconds, so each distinct kernel compiles once while the cache keeps it.
//!
//! Every pipeline has an explicit bind-group layout (binding 0: the parameter block, as a
//! uniform; then one storage buffer per [`Access`]), so a binding a kernel happens not to
//! read never makes the layout differ from what the dispatch binds.

use gpuarrays_core::handle_cache::{HandleCache, Limits};

use crate::error::{Result, WgpuError};
use crate::float_controls::{self, SpirvMode};

/// How a kernel uses one storage binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    ReadWrite,
}

/// A compiled kernel: the pipeline and its bind-group layout (cheap to clone).
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// What is compiled: source, entry `main`, binding 0 a uniform, then storage bindings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShaderSpec {
    /// A short name for logs and errors.
    pub label: String,
    /// The WGSL source.
    pub source: String,
    /// Storage bindings 1..=n.
    pub storage: Vec<Access>,
}

/// Idle pipelines kept: one per source, at most [`MAX_PIPELINES`] over all sources.
pub(crate) const MAX_PIPELINES: usize = 512;

pub(crate) struct PipelineCache {
    cache: HandleCache<String, Pipeline>,
    /// Compile through naga to SPIR-V with float controls (see [`crate::float_controls`]);
    /// `None`: wgpu's WGSL path.
    spirv: Option<SpirvMode>,
}

impl PipelineCache {
    pub fn new(spirv: Option<SpirvMode>) -> Self {
        PipelineCache {
            cache: HandleCache::with_drop(Limits::new(1, MAX_PIPELINES)),
            spirv,
        }
    }

    pub fn stats(&self) -> gpuarrays_core::handle_cache::HandleCacheStats {
        self.cache.stats()
    }

    /// The pipeline for `spec`, compiled on a miss.
    pub fn get(&self, device: &wgpu::Device, adapter: &str, spec: &ShaderSpec) -> Result<Pipeline> {
        let lease = self.cache.get_or_create(spec.source.clone(), || {
            compile(device, adapter, spec, self.spirv.as_ref()).map(|p| (p, 0))
        })?;
        Ok(lease.clone())
    }
}

/// The shader module of `spec`: SPIR-V with float controls where `spirv` says so (falling
/// back to the WGSL path, with a warning, if naga cannot write it), WGSL otherwise.
fn module(
    device: &wgpu::Device,
    spec: &ShaderSpec,
    spirv: Option<&SpirvMode>,
) -> wgpu::ShaderModule {
    let source = crate::wgsl::half::complete(&spec.source);
    if let Some(mode) = spirv {
        match float_controls::compile(&source, mode) {
            Ok(words) => {
                let desc = wgpu::ShaderModuleDescriptorPassthrough {
                    label: Some(&spec.label),
                    entry_points: std::borrow::Cow::Owned(vec![
                        wgpu::PassthroughShaderEntryPoint {
                            name: "main".into(),
                            workgroup_size: (0, 0, 0),
                        },
                    ]),
                    spirv: Some(std::borrow::Cow::Owned(words)),
                    ..Default::default()
                };
                // SAFETY: the words are naga's SPIR-V for a module naga parsed and validated
                // with the device's features (f64/i64 only where enabled), with bounds
                // checks on every access; the patch only adds float-control declarations
                // the device reports support for (`float_controls::detect`, Vulkan 1.2+
                // where they are core) and `NoContraction` decorations; the entry point is
                // `main`, and the pipeline gets an explicit layout matching the bindings.
                return unsafe { device.create_shader_module_passthrough(desc) };
            }
            Err(e) => tracing::warn!(
                kernel = %spec.label,
                "wgpu: SPIR-V with float controls failed ({e}); compiling through WGSL"
            ),
        }
    }
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&spec.label),
        source: wgpu::ShaderSource::Wgsl(source),
    })
}

fn compile(
    device: &wgpu::Device,
    adapter: &str,
    spec: &ShaderSpec,
    spirv: Option<&SpirvMode>,
) -> Result<Pipeline> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = module(device, spec, spirv);
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }];
    for (i, a) in spec.storage.iter().enumerate() {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: i as u32 + 1,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage {
                    read_only: *a == Access::Read,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(&spec.label),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&spec.label),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&spec.label),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(WgpuError::Shader {
            kernel: spec.label.clone(),
            adapter: adapter.to_string(),
            reason: e.to_string(),
        });
    }
    tracing::debug!(kernel = %spec.label, "compiled a wgpu pipeline");
    Ok(Pipeline { pipeline, layout })
}
