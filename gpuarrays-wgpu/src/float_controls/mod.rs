//! IEEE floating point on drivers that would otherwise optimise it away.
//!
//! WGSL and Vulkan both let a shader compiler assume that no float is infinite or NaN and
//! that zero signs do not matter, and Vulkan lets it fuse a multiply and an add. The
//! NVIDIA Vulkan driver does all of it: on the H200, `(3a + b) − a` gave `2a + b`
//! (`inf` where IEEE gives NaN), `(inf + 0i)·(x + inf·i)` lost its NaN, and `|z|` of a
//! complex value with a NaN part returned 0, because `x != x` was folded to `false`
//! (docs/results/correctness-h200.md: 32 conformance rows). lavapipe keeps IEEE
//! semantics and passed every row.
//!
//! The cure is the one Vulkan defines (SPV_KHR_float_controls, core since 1.2): the entry
//! point declares `SignedZeroInfNanPreserve` for each float width, and float arithmetic
//! carries `NoContraction`. naga, which wgpu uses to turn WGSL into SPIR-V, cannot say
//! either, so on Vulkan devices that report the support
//! (`VkPhysicalDeviceFloatControlsProperties`, read through wgpu's Vulkan handles) the
//! backend compiles its WGSL to SPIR-V with naga itself, adds the declarations
//! ([`spirv_patch`]) and hands the module to wgpu as a passthrough shader.
//! `DenormPreserve` is declared too where the device offers it, so subnormals survive.
//!
//! Everything else (other wgpu backends, devices without the support, the module patch
//! failing) takes wgpu's ordinary WGSL path, and `GPUARRAYS_WGPU_FLOAT_CONTROLS=0`
//! forces that path (to compare). Which path a device uses is in its adapter summary
//! (`gpuarrays info`).

pub mod spirv_patch;

#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
mod vulkan_query;

pub use spirv_patch::Controls;

/// Set to `0` to compile through wgpu's WGSL path even where float controls are available.
pub const FLOAT_CONTROLS_ENV: &str = "GPUARRAYS_WGPU_FLOAT_CONTROLS";

/// Whether [`FLOAT_CONTROLS_ENV`] allows float controls (anything but `0`/`false`/`no`).
pub fn allowed_by_env() -> bool {
    std::env::var(FLOAT_CONTROLS_ENV)
        .map(|v| !matches!(v.trim(), "0" | "false" | "no"))
        .unwrap_or(true)
}

/// How a device's shaders are compiled with float controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpirvMode {
    /// What the modules declare.
    pub controls: Controls,
    /// The SPIR-V version to write (the highest the device's Vulkan version accepts).
    pub version: (u8, u8),
    /// Whether the module may use f64 (SHADER_F64 in use).
    pub f64: bool,
    /// Whether the module may use i64/u64 (SHADER_INT64 in use).
    pub int64: bool,
}

impl std::fmt::Display for SpirvMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.controls;
        let widths = |a: bool, b: bool| match (a, b) {
            (true, true) => "f32+f64",
            (true, false) => "f32",
            (false, true) => "f64",
            (false, false) => "none",
        };
        write!(
            f,
            "SPIR-V {}.{} with float controls (inf/NaN/-0 kept: {}; subnormals kept: {}; no contraction)",
            self.version.0,
            self.version.1,
            widths(c.preserve_f32, c.preserve_f64),
            widths(c.denorm_f32, c.denorm_f64)
        )
    }
}

/// The float controls `adapter` supports, if it is a Vulkan 1.2+ device that keeps inf,
/// NaN and zero signs in at least f32 and offers passthrough shaders; `None` otherwise.
pub(crate) fn detect(adapter: &wgpu::Adapter) -> Option<(Controls, (u8, u8))> {
    if !adapter
        .features()
        .contains(wgpu::Features::PASSTHROUGH_SHADERS)
    {
        return None;
    }
    #[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
    {
        let found = vulkan_query::float_controls(adapter)?;
        found.0.preserve_f32.then_some(found)
    }
    #[cfg(any(target_arch = "wasm32", target_vendor = "apple"))]
    {
        None
    }
}

/// `source` (WGSL, entry point `main`) as SPIR-V words with `mode`'s float controls, or
/// why not (a WGSL or validation error, or a module the patch refuses).
pub(crate) fn compile(source: &str, mode: &SpirvMode) -> Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut caps = Capabilities::empty();
    if mode.f64 {
        caps |= Capabilities::FLOAT64;
    }
    if mode.int64 {
        caps |= Capabilities::SHADER_INT64;
    }
    let info = Validator::new(ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    let options = spv::Options {
        lang_version: mode.version,
        flags: spv::WriterFlags::empty(),
        // Each `@group(g) @binding(b)` becomes descriptor set g, binding b: the numbering
        // wgpu's Vulkan backend gives the explicit bind-group layouts the pipelines use.
        fake_missing_bindings: true,
        // Out-of-range indices are clamped, as wgpu does without robust buffer access.
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Restrict,
            image_load: naga::proc::BoundsCheckPolicy::Restrict,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        // WGSL zero-initialises workgroup memory; the polyfill does it on every driver.
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Polyfill,
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".to_string(),
    };
    let words =
        spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| e.to_string())?;
    spirv_patch::patch(&words, mode.controls).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
