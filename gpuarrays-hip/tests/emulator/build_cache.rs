//! The emulator's shared build cache: every emulated platform of every test binary builds its
//! modules with `g++`, and most tests open a fresh backend, so the same kernel source used to
//! be compiled again and again (the four emulated test binaries spent most of CI's time in
//! `g++`). A built module is kept in cargo's scratch folder for integration tests
//! (`target/tmp`), named by a hash of everything the compiler sees: its version, the flags,
//! `emu.h` and the source with its trampolines. A platform copies the cached library into its
//! own folder before loading it, so no two platforms share one loaded library (and with it the
//! library's static state).
//!
//! Losing the cache (a clean build, `cargo clean`) costs time only; a failed write leaves the
//! module built and loaded as before.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The flags every module is built with (after `-include emu.h`).
pub const GXX_FLAGS: [&str; 6] = ["-std=c++17", "-O1", "-g0", "-w", "-fPIC", "-shared"];

/// The cache's folder, created on first use; `None` when it cannot be created or the
/// environment asks for no cache (`GPUARRAYS_EMU_CACHE=off`).
fn folder() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        if std::env::var("GPUARRAYS_EMU_CACHE").is_ok_and(|v| v == "off") {
            return None;
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("emulated-kernels");
        std::fs::create_dir_all(&dir).ok().map(|()| dir)
    })
    .as_deref()
}

/// `g++ --version`, once per process: a new compiler makes new keys.
fn compiler_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        Command::new("g++")
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    })
}

/// The cache entry for `source` compiled after `emu_h`, if caching is on.
pub fn entry(emu_h: &str, source: &str) -> Option<PathBuf> {
    let dir = folder()?;
    let mut h = DefaultHasher::new();
    (compiler_version(), GXX_FLAGS, emu_h, source).hash(&mut h);
    // A second, differently seeded hash makes the name 128 bits wide.
    let first = h.finish();
    first.hash(&mut h);
    Some(dir.join(format!("{first:016x}{:016x}.so", h.finish())))
}

/// Copies the cached module `entry` to `so`; false on a miss.
pub fn fetch(entry: &Path, so: &Path) -> bool {
    std::fs::copy(entry, so).is_ok()
}

/// Stores the freshly built `so` as `entry`: written under a unique name, then renamed, so a
/// reader in another thread or test binary sees a whole file or none.
pub fn store(so: &Path, entry: &Path) {
    static N: AtomicU64 = AtomicU64::new(0);
    let tmp = entry.with_extension(format!(
        "{}-{}.part",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let stored = std::fs::copy(so, &tmp).is_ok() && std::fs::rename(&tmp, entry).is_ok();
    if !stored {
        let _ = std::fs::remove_file(&tmp);
    }
}
