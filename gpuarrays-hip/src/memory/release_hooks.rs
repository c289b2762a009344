//! Callbacks that release idle resources (FFT plans, idle streams, ...) when device memory
//! runs out. Hooks run outside every lock of the memory pool, before the pool returns its
//! cached blocks to the platform: what a hook frees through the pool (device buffers it
//! drops) is returned in the same retry.

use crate::platform::DeviceId;
use parking_lot::Mutex;
use std::sync::Arc;

/// A release callback: frees what it can on the device and returns the bytes it returned to
/// the platform itself (destroyed library objects; 0 when unknown). Memory it frees through
/// the memory pool is not reported: the pool counts it when it returns it.
pub type ReleaseHook = Arc<dyn Fn(DeviceId) -> usize + Send + Sync>;

/// Identifies a registered hook, for [`ReleaseHooks::unregister`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HookId(u64);

type Entry = (HookId, &'static str, ReleaseHook);

/// The hooks of one device.
#[derive(Default)]
pub struct ReleaseHooks {
    hooks: Mutex<(u64, Vec<Entry>)>,
}

impl std::fmt::Debug for ReleaseHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.hooks.lock().1.iter().map(|h| h.1).collect();
        f.debug_struct("ReleaseHooks")
            .field("hooks", &names)
            .finish()
    }
}

impl ReleaseHooks {
    /// Register a hook under a name used in diagnostics.
    pub fn register(&self, name: &'static str, hook: ReleaseHook) -> HookId {
        let mut h = self.hooks.lock();
        h.0 += 1;
        let id = HookId(h.0);
        h.1.push((id, name, hook));
        id
    }

    /// Remove a hook.
    pub fn unregister(&self, id: HookId) {
        self.hooks.lock().1.retain(|h| h.0 != id);
    }

    /// Run every hook (outside the lock); returns the bytes they report.
    pub fn run(&self, device: DeviceId) -> usize {
        let hooks: Vec<(&'static str, ReleaseHook)> = self
            .hooks
            .lock()
            .1
            .iter()
            .map(|h| (h.1, h.2.clone()))
            .collect();
        let mut total = 0;
        for (name, hook) in hooks {
            let released = hook(device);
            tracing::debug!(%device, hook = name, released, "release hook ran");
            total += released;
        }
        total
    }
}
