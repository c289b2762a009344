//! Compiled kernels, cached in memory per device and on disk.
//!
//! Two levels: a [`KernelSet`] maps an operation's structural key (e.g. a program and its
//! access pattern) straight to a loaded [`Module`], so the launch path never regenerates or
//! hashes source text; on a miss, [`ModuleCache`] turns the source into a module — from its
//! in-memory table, else the [`DiskCache`], else the run-time compiler.

mod disk;

pub use disk::{CachedBinary, DiskCache, KERNEL_CACHE_ENV, fnv1a64};

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::cpp::header::Dialect;
use crate::error::{HipError, Result};
use crate::platform::{CompileRequest, DeviceId, FunctionHandle, ModuleHandle, Platform};

/// One generated program: C++ source and the kernels to look up in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSource {
    /// A short name for logs and compiler messages.
    pub name: String,
    /// The complete source (kernel header included).
    pub source: String,
    /// The `__global__` functions to resolve.
    pub kernels: Vec<&'static str>,
}

/// A loaded module and its resolved kernels. Unloaded when the last reference goes.
pub struct Module {
    platform: Arc<dyn Platform>,
    device: DeviceId,
    handle: ModuleHandle,
    functions: Vec<(&'static str, FunctionHandle)>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("handle", &self.handle)
            .field("functions", &self.functions)
            .finish()
    }
}

impl Module {
    /// The kernel named `name` (one of the source's `kernels`).
    pub fn function(&self, name: &str) -> Result<FunctionHandle> {
        self.functions
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| HipError::InvalidArgument(format!("module has no kernel {name}")))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        let r = self
            .platform
            .bind_device(self.device)
            .and_then(|()| self.platform.unload_module(self.handle));
        if let Err(e) = r {
            tracing::debug!(module = %self.handle, error = %e, "unloading a kernel module failed");
        }
    }
}

/// Counters of a [`ModuleCache`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Sources compiled by the run-time compiler.
    pub compiled: usize,
    /// Binaries found in the disk cache.
    pub disk_hits: usize,
    /// Modules loaded on the device (compiled or from disk).
    pub loaded: usize,
}

struct Slot {
    key: Vec<u8>,
    module: Mutex<Option<Arc<Module>>>,
}

/// Source → loaded module, for one device.
pub struct ModuleCache {
    platform: Arc<dyn Platform>,
    device: DeviceId,
    arch: String,
    dialect: Dialect,
    disk: DiskCache,
    version: Mutex<Option<String>>,
    slots: Mutex<HashMap<u64, Vec<Arc<Slot>>>>,
    compiled: AtomicUsize,
    disk_hits: AtomicUsize,
    loaded: AtomicUsize,
}

impl std::fmt::Debug for ModuleCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleCache")
            .field("device", &self.device)
            .field("arch", &self.arch)
            .field("disk", &self.disk)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl ModuleCache {
    /// A cache for `device` (of architecture `arch`) backed by `disk`.
    pub fn new(
        platform: Arc<dyn Platform>,
        device: DeviceId,
        arch: String,
        disk: DiskCache,
    ) -> ModuleCache {
        let dialect = Dialect::of(platform.kind());
        ModuleCache {
            platform,
            device,
            arch,
            dialect,
            disk,
            version: Mutex::new(None),
            slots: Mutex::new(HashMap::new()),
            compiled: AtomicUsize::new(0),
            disk_hits: AtomicUsize::new(0),
            loaded: AtomicUsize::new(0),
        }
    }

    /// The source dialect of this device's platform.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            compiled: self.compiled.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            loaded: self.loaded.load(Ordering::Relaxed),
        }
    }

    fn compiler_version(&self) -> Result<String> {
        let mut v = self.version.lock();
        if let Some(v) = v.as_ref() {
            return Ok(v.clone());
        }
        let got = self.platform.compiler_version()?;
        *v = Some(got.clone());
        Ok(got)
    }

    fn key_material(&self, src: &KernelSource, version: &str) -> Vec<u8> {
        let options = self.dialect.options().join("\u{1f}");
        let kernels = src.kernels.join("\u{1f}");
        [
            "gpuarrays-kernel-v1",
            &self.arch,
            version,
            &options,
            &kernels,
            &src.source,
        ]
        .join("\0")
        .into_bytes()
    }

    /// The module for `src`: loaded before, or from the disk cache, or compiled now.
    /// Concurrent requests for one source compile it once.
    pub fn load(&self, src: &KernelSource) -> Result<Arc<Module>> {
        let version = self.compiler_version()?;
        let key = self.key_material(src, &version);
        let hash = fnv1a64(&[&key]);
        let slot = {
            let mut slots = self.slots.lock();
            let bucket = slots.entry(hash).or_default();
            match bucket.iter().find(|s| s.key == key) {
                Some(s) => s.clone(),
                None => {
                    let s = Arc::new(Slot {
                        key: key.clone(),
                        module: Mutex::new(None),
                    });
                    bucket.push(s.clone());
                    s
                }
            }
        };
        let mut module = slot.module.lock();
        if let Some(m) = module.as_ref() {
            return Ok(m.clone());
        }
        let binary = match self.disk.load(hash, &key) {
            Some(b) => {
                self.disk_hits.fetch_add(1, Ordering::Relaxed);
                b
            }
            None => {
                let b = self.compile(src)?;
                self.disk.store(hash, &key, &b);
                b
            }
        };
        let m = Arc::new(self.instantiate(src, &binary)?);
        self.loaded.fetch_add(1, Ordering::Relaxed);
        *module = Some(m.clone());
        Ok(m)
    }

    fn compile(&self, src: &KernelSource) -> Result<CachedBinary> {
        let started = std::time::Instant::now();
        let compiled = self.platform.compile(&CompileRequest {
            name: &src.name,
            source: &src.source,
            kernel_names: &src.kernels,
            options: self.dialect.options(),
            arch: &self.arch,
        })?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            kernel = %src.name,
            ms = started.elapsed().as_secs_f64() * 1e3,
            log = %compiled.log,
            "compiled kernel"
        );
        Ok(CachedBinary {
            binary: compiled.binary,
            lowered_names: compiled.lowered_names,
        })
    }

    fn instantiate(&self, src: &KernelSource, b: &CachedBinary) -> Result<Module> {
        let handle = self.platform.load_module(self.device, &b.binary)?;
        let mut module = Module {
            platform: self.platform.clone(),
            device: self.device,
            handle,
            functions: Vec::with_capacity(src.kernels.len()),
        };
        for &k in &src.kernels {
            let lowered = b
                .lowered_names
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, l)| l.as_str())
                .unwrap_or(k);
            let f = self.platform.get_function(handle, lowered)?;
            module.functions.push((k, f));
        }
        Ok(module)
    }
}

/// FxHash (rotate, xor, multiply): a few cycles per word where SipHash, the std default,
/// showed up at 8% of the host-side launch cost of a tiny kernel in a profile. Keys here are
/// our own structures, not attacker-chosen, so DoS resistance buys nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Structural key → module, the launch path's cache (one per operation family and device).
pub struct KernelSet<K> {
    map: Mutex<FxMap<K, Arc<Module>>>,
}

impl<K> Default for KernelSet<K> {
    fn default() -> Self {
        KernelSet {
            map: Mutex::new(FxMap::default()),
        }
    }
}

impl<K: Hash + Eq + Clone> KernelSet<K> {
    /// The module for `key`, building its source with `build` on the first request.
    pub fn get(
        &self,
        key: &K,
        cache: &ModuleCache,
        build: impl FnOnce() -> Result<KernelSource>,
    ) -> Result<Arc<Module>> {
        if let Some(m) = self.map.lock().get(key) {
            return Ok(m.clone());
        }
        let module = cache.load(&build()?)?;
        self.map.lock().insert(key.clone(), module.clone());
        Ok(module)
    }

    /// Number of keys with a loaded module.
    pub fn len(&self) -> usize {
        self.map.lock().len()
    }

    /// Whether no module is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
