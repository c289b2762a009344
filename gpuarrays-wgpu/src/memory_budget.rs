//! Free device memory, for out-of-memory errors. wgpu has no API for it, so it is read
//! through wgpu's Vulkan handles from `VK_EXT_memory_budget`, which wgpu enables wherever
//! the driver offers it (NVIDIA's driver does; lavapipe of Mesa 22.3 does not). A CPU
//! adapter (lavapipe) allocates its device memory from the host, so without the extension
//! its figure is the host's available memory (`MemAvailable` of `/proc/meminfo`). Other
//! backends and drivers report `None`.

/// Free memory for allocations on `device` in bytes, where known; `host_memory`: the
/// adapter's device memory is host memory (a CPU adapter).
pub(crate) fn free_memory(device: &wgpu::Device, host_memory: bool) -> Option<u64> {
    free_device_memory(device).or_else(|| host_memory.then(available_host_memory).flatten())
}

/// The host's available memory (Linux: `MemAvailable` of `/proc/meminfo`), or `None`.
fn available_host_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

use ash::vk;

/// Free memory of the device-local heaps in bytes (each heap's budget less its usage), or
/// `None` where the driver does not report it.
fn free_device_memory(device: &wgpu::Device) -> Option<u64> {
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
