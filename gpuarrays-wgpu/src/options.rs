//! How to open a device: [`WgpuOptions`] and the feature [`Profile`].

/// Which optional features to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Everything the adapter offers (SHADER_F64, SHADER_INT64 where present).
    #[default]
    Adapter,
    /// The WebGPU baseline: no f64, no 64-bit integers, whatever the adapter offers.
    Baseline,
}

/// How to open a device.
#[derive(Debug, Clone, Default)]
pub struct WgpuOptions {
    /// An adapter index or name substring; `None` reads `GPUARRAYS_WGPU_ADAPTER`, then
    /// prefers a discrete GPU.
    pub adapter: Option<String>,
    /// Which optional features to use.
    pub profile: Profile,
    /// Treat `max_storage_buffer_binding_size` as at most this many bytes (at least 4 KiB).
    /// Tests use it to exercise the splitting of operands larger than one binding with
    /// small arrays; `None` uses the adapter's limit.
    pub binding_limit: Option<u64>,
    /// Declare that the device flushes subnormals to zero (f32, and f64 where in use)
    /// without probing; `GPUARRAYS_WGPU_ASSUME_FTZ=1` does the same. Tests use it to
    /// exercise the flush-to-zero handling on a device that keeps subnormals.
    pub assume_ftz: bool,
    /// Compile through wgpu's WGSL path even where the device offers Vulkan float controls
    /// (see [`crate::float_controls`]); `GPUARRAYS_WGPU_FLOAT_CONTROLS=0` does the same.
    pub no_float_controls: bool,
}
