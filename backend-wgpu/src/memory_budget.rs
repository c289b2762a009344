//! Free device memory, for out-of-memory errors: wgpu has no API for it, so it is read
//! through wgpu's Vulkan handles from `VK_EXT_memory_budget` (which wgpu enables wherever
//! the driver offers it: lavapipe and NVIDIA's driver do). Other backends and drivers
//! without the extension report `None`.

use ash::vk;

/// Free memory of the device-local heaps in bytes (each heap's budget less its usage), or
/// `None` where the driver does not report it.
pub(crate) fn free_device_memory(device: &wgpu::Device) -> Option<u64> {
    // SAFETY: the guard only borrows wgpu's device; nothing here destroys or mutates a
    // Vulkan object, the guard is dropped before this function returns, and `None` (not a
    // Vulkan device) is handled.
    let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }?;
    if !hal
        .enabled_device_extensions()
        .contains(&ash::ext::memory_budget::NAME)
    {
        return None;
    }
    let instance = hal.shared_instance();
    if instance.instance_api_version() < vk::API_VERSION_1_1 {
        return None;
    }
    let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
    let mut props = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut budget);
    // SAFETY: the physical device belongs to this instance (both from the same wgpu
    // device), the instance is Vulkan 1.1+ (checked above), so the core 1.1 entry point is
    // loaded, and the only structure chained is that of an extension the device enabled.
    unsafe {
        instance
            .raw_instance()
            .get_physical_device_memory_properties2(hal.raw_physical_device(), &mut props)
    };
    let vk::PhysicalDeviceMemoryProperties2 {
        memory_properties, ..
    } = props;
    let heaps = memory_properties.memory_heap_count as usize;
    let local = memory_properties
        .memory_heaps
        .iter()
        .zip(budget.heap_budget.iter().zip(&budget.heap_usage))
        .take(heaps)
        .filter(|(heap, _)| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|(_, (&b, &u))| b.saturating_sub(u));
    Some(local.fold(0u64, u64::saturating_add))
}
