//! The on-disk kernel cache: compiled binaries keyed by a hash of (source, options, arch,
//! compiler version), so a process never recompiles what an earlier one built (NVRTC took
//! 154 ms for one small kernel on the H200 machine).
//!
//! `GPUARRAYS_KERNEL_CACHE=off` disables it, `=DIR` puts it in DIR; the default is
//! `$XDG_CACHE_HOME/gpuarrays/kernels` or `~/.cache/gpuarrays/kernels` (resolved with the
//! runtime's configuration, [`RuntimeConfig::kernel_cache`]). Files are written to a
//! temporary name and renamed, so readers never see a partial file. Each file holds its full
//! key material, compared on load, so a hash collision is a miss, never a wrong kernel. Disk
//! problems are logged and treated as misses: the cache never fails an operation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::runtime::RuntimeConfig;

pub use crate::runtime::KERNEL_CACHE_ENV;

const MAGIC: &[u8; 8] = b"GAKC0001";

/// FNV-1a, 64 bits: stable across Rust versions and processes (unlike `DefaultHasher`).
pub fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&(p.len() as u64).to_le_bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// What one cache file holds besides its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedBinary {
    /// The loadable image.
    pub binary: Vec<u8>,
    /// (requested kernel name, lowered symbol) pairs.
    pub lowered_names: Vec<(String, String)>,
}

/// The disk cache (or its absence).
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: Option<PathBuf>,
}

impl DiskCache {
    /// No disk cache.
    pub fn off() -> DiskCache {
        DiskCache { dir: None }
    }

    /// A cache in `dir` (created on first write).
    pub fn at(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache {
            dir: Some(dir.into()),
        }
    }

    /// The cache `config` names ([`RuntimeConfig::kernel_cache`]: from
    /// `GPUARRAYS_KERNEL_CACHE` when the runtime was configured from the environment).
    pub fn configured(config: &RuntimeConfig) -> DiskCache {
        DiskCache {
            dir: config.kernel_cache.clone(),
        }
    }

    /// The directory, if the cache is on.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn path(&self, hash: u64) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{hash:016x}.bin")))
    }

    /// The binary stored for `key` (whose hash is `hash`), if any and intact.
    pub fn load(&self, hash: u64, key: &[u8]) -> Option<CachedBinary> {
        let path = self.path(hash)?;
        let bytes = std::fs::read(&path).ok()?;
        match decode(&bytes, key) {
            Some(c) => Some(c),
            None => {
                tracing::debug!(path = %path.display(), "kernel cache file does not match its key; ignoring it");
                None
            }
        }
    }

    /// Stores `entry` for `key`; failures are logged, not returned.
    pub fn store(&self, hash: u64, key: &[u8], entry: &CachedBinary) {
        let Some(path) = self.path(hash) else { return };
        if let Err(e) = write_atomic(&path, &encode(key, entry)) {
            tracing::debug!(path = %path.display(), error = %e, "could not write the kernel cache");
        }
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!(
        "tmp.{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn encode(key: &[u8], e: &CachedBinary) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + e.binary.len() + 256);
    out.extend_from_slice(MAGIC);
    put(&mut out, key);
    out.extend_from_slice(&(e.lowered_names.len() as u64).to_le_bytes());
    for (k, l) in &e.lowered_names {
        put(&mut out, k.as_bytes());
        put(&mut out, l.as_bytes());
    }
    put(&mut out, &e.binary);
    out
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn chunk(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.chunk()?.to_vec()).ok()
    }
}

fn decode(bytes: &[u8], key: &[u8]) -> Option<CachedBinary> {
    let mut r = Reader(bytes);
    if r.take(MAGIC.len())? != MAGIC || r.chunk()? != key {
        return None;
    }
    let count = r.u64()?;
    let mut lowered_names = Vec::new();
    for _ in 0..count {
        lowered_names.push((r.string()?, r.string()?));
    }
    let binary = r.chunk()?.to_vec();
    r.0.is_empty().then_some(CachedBinary {
        binary,
        lowered_names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_key_check() {
        let dir = std::env::temp_dir().join(format!("ga-kc-test-{}", std::process::id()));
        let cache = DiskCache::at(&dir);
        let entry = CachedBinary {
            binary: vec![1, 2, 3, 0, 255],
            lowered_names: vec![("k".into(), "_Z1kv".into())],
        };
        let key = b"source\0opts\0sm_90\0nvrtc 13.0";
        let h = fnv1a64(&[key]);
        assert_eq!(cache.load(h, key), None);
        cache.store(h, key, &entry);
        assert_eq!(cache.load(h, key), Some(entry.clone()));
        // Same hash, different key material: a miss, never the wrong binary.
        assert_eq!(cache.load(h, b"other source"), None);
        // A truncated file is a miss.
        let path = cache.path(h).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(cache.load(h, key), None);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(DiskCache::off().load(h, key).is_none());
    }

    #[test]
    fn hash_separates_parts() {
        assert_ne!(fnv1a64(&[b"ab", b"c"]), fnv1a64(&[b"a", b"bc"]));
    }
}
