//! Reads `VkPhysicalDeviceFloatControlsProperties` through wgpu's Vulkan handles (wgpu
//! has no API for it; `ash` is the Vulkan binding wgpu itself uses).

use ash::vk;

use super::Controls;

/// The float controls of `adapter` and the SPIR-V version its Vulkan version accepts;
/// `None` if it is not a Vulkan 1.2+ device (where float controls are core).
pub(super) fn float_controls(adapter: &wgpu::Adapter) -> Option<(Controls, (u8, u8))> {
    // SAFETY: the guard only borrows wgpu's adapter; nothing here destroys or mutates a
    // Vulkan object, the guard is dropped before this function returns, and `None`
    // (not a Vulkan adapter) is handled.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let api = hal.physical_device_capabilities().properties().api_version;
    let instance = hal.shared_instance();
    if api < vk::API_VERSION_1_2 || instance.instance_api_version() < vk::API_VERSION_1_1 {
        return None;
    }
    let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut fc);
    // SAFETY: the physical device belongs to this instance (both from the same wgpu
    // adapter), the instance is Vulkan 1.1+ (checked above), so the core 1.1 entry point
    // is loaded, and `props` is a valid chain whose only extension struct is core in the
    // device's Vulkan 1.2+.
    unsafe {
        instance
            .raw_instance()
            .get_physical_device_properties2(hal.raw_physical_device(), &mut props)
    };
    let on = |b: vk::Bool32| b == vk::TRUE;
    let controls = Controls {
        preserve_f32: on(fc.shader_signed_zero_inf_nan_preserve_float32),
        preserve_f64: on(fc.shader_signed_zero_inf_nan_preserve_float64),
        denorm_f32: on(fc.shader_denorm_preserve_float32),
        denorm_f64: on(fc.shader_denorm_preserve_float64),
    };
    let version = if api >= vk::API_VERSION_1_3 {
        (1, 6)
    } else {
        (1, 5)
    };
    tracing::info!(?controls, ?version, "wgpu: Vulkan float controls");
    Some((controls, version))
}
