//! Run-time library loading shared by the AMD and NVIDIA platforms: open the first loadable
//! candidate of a library, then resolve a whole symbol list at once so that a missing symbol is
//! one typed error naming every missing symbol, never a panic at first call.
//!
//! **A GPU runtime, once loaded, stays loaded** (`RTLD_NODELETE`). Nothing is gained by
//! unloading one (cudarc keeps its libraries for the whole process too), and reloading one
//! can break: on the H200 machine (Debian's libamdhip64, linked to `libamd_comgr` and
//! LLVM 17, beside CUDA), a process that loaded libamdhip64, dropped it and loaded it again
//! (the automatic platform choice tries AMD first) died with "LLVM ERROR: Option
//! 'disassemble' registered more than once" (docs/results/hip-runtime.md).
//! Dropping a [`LoadedLibrary`] therefore only drops our handle; the next open finds the
//! same mapping.

use crate::error::{HipError, Result};
use crate::platform::PlatformKind;
use libloading::Library;
use std::collections::HashMap;

/// A library opened from the first candidate that loaded.
#[derive(Debug)]
pub struct LoadedLibrary {
    /// The candidate that loaded.
    pub path: String,
    /// The library.
    pub library: Library,
}

/// Open the first loadable file among `candidates` (names for the dynamic loader or paths).
/// `provider` says what installs the library (e.g. "ROCm"), `hint` how to get it.
pub fn open_first(
    platform: PlatformKind,
    library: &'static str,
    provider: &'static str,
    candidates: &[String],
    hint: &'static str,
) -> Result<LoadedLibrary> {
    let mut tried = Vec::with_capacity(candidates.len());
    let mut missing: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for candidate in candidates.iter().filter(|c| seen.insert(c.as_str())) {
        match open_resident(candidate) {
            Ok(lib) => {
                tracing::debug!(%platform, library, path = %candidate, "loaded library");
                return Ok(LoadedLibrary {
                    path: candidate.clone(),
                    library: lib,
                });
            }
            // "No such file" is the common case: list those names once, compactly.
            Err(e) if e.to_string().contains("No such file or directory") => {
                missing.push(candidate)
            }
            Err(e) => tried.push(format!("{candidate} ({e})")),
        }
    }
    if !missing.is_empty() {
        tried.insert(0, format!("not found: {}", missing.join(", ")));
    }
    Err(HipError::LibraryNotFound {
        platform,
        library,
        provider,
        tried,
        hint,
    })
}

/// Open `name` so that it is never unloaded (see the module documentation).
#[cfg(unix)]
fn open_resident(name: &str) -> std::result::Result<Library, libloading::Error> {
    use libloading::os::unix::{Library as UnixLibrary, RTLD_LAZY, RTLD_LOCAL};
    // SAFETY: loading a shared library runs its initialisers. The candidates are the GPU
    // runtime libraries this platform is written against (the same names cudarc and the
    // ROCm loader use); their initialisers have no preconditions on our side. The flags are
    // libloading's defaults (lazy binding, local symbols) plus RTLD_NODELETE.
    unsafe { UnixLibrary::open(Some(name), RTLD_LAZY | RTLD_LOCAL | libc::RTLD_NODELETE) }
        .map(Library::from)
}

/// Open `name` (no way to keep a library resident here: dropping it unloads it).
#[cfg(not(unix))]
fn open_resident(name: &str) -> std::result::Result<Library, libloading::Error> {
    // SAFETY: as for the Unix version: the candidates' initialisers have no preconditions.
    unsafe { Library::new(name) }
}

/// Whether the library `name` is mapped in this process now (`RTLD_NOLOAD`: nothing is
/// loaded by asking). For tests of the rule above.
#[cfg(unix)]
pub fn is_resident(name: &str) -> bool {
    use libloading::os::unix::{Library as UnixLibrary, RTLD_LAZY};
    // SAFETY: with RTLD_NOLOAD nothing is loaded and no initialiser runs: the call only
    // returns a new handle (a reference count) to a library already mapped.
    unsafe { UnixLibrary::open(Some(name), RTLD_LAZY | libc::RTLD_NOLOAD) }.is_ok()
}

/// Which symbols a platform needs from one library.
#[derive(Debug, Clone, Copy)]
pub struct SymbolSpec {
    /// Symbols the platform cannot work without.
    pub required: &'static [&'static str],
    /// Symbols newer than the oldest supported release; each has a documented fallback.
    pub optional: &'static [&'static str],
}

/// Resolved raw symbol addresses of one library, by name.
#[derive(Debug, Default)]
pub struct SymbolTable {
    addrs: HashMap<&'static str, usize>,
}

impl SymbolTable {
    /// Resolve every symbol of `spec` in `lib`. All missing required symbols are reported
    /// together.
    pub fn resolve(
        platform: PlatformKind,
        library: &'static str,
        lib: &LoadedLibrary,
        spec: &SymbolSpec,
        hint: &'static str,
    ) -> Result<SymbolTable> {
        let mut table = SymbolTable::default();
        let mut missing = Vec::new();
        for &name in spec.required {
            match raw_symbol(&lib.library, name) {
                Some(addr) => {
                    table.addrs.insert(name, addr);
                }
                None => missing.push(name.to_string()),
            }
        }
        if !missing.is_empty() {
            return Err(HipError::MissingSymbols {
                platform,
                library,
                path: lib.path.clone(),
                missing,
                hint,
            });
        }
        for &name in spec.optional {
            match raw_symbol(&lib.library, name) {
                Some(addr) => {
                    table.addrs.insert(name, addr);
                }
                None => {
                    tracing::debug!(%platform, library, symbol = name, "optional symbol absent")
                }
            }
        }
        Ok(table)
    }

    /// The address of `name`, if it was resolved.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.addrs.get(name).copied()
    }

    /// Whether `name` was resolved.
    pub fn has(&self, name: &str) -> bool {
        self.addrs.contains_key(name)
    }

    /// Merge another table (later entries win).
    pub fn extend(&mut self, other: SymbolTable) {
        self.addrs.extend(other.addrs);
    }
}

fn raw_symbol(lib: &Library, name: &str) -> Option<usize> {
    let mut cname = Vec::with_capacity(name.len() + 1);
    cname.extend_from_slice(name.as_bytes());
    cname.push(0);
    // SAFETY: we read the symbol's address only, as an opaque pointer-sized value; it is
    // transmuted to a function pointer of the documented C signature by the platform module
    // that declared the symbol, and never called through this type.
    let sym = unsafe { lib.get::<*const std::ffi::c_void>(&cname) }.ok()?;
    let addr = *sym as usize;
    (addr != 0).then_some(addr)
}

/// Library file names for `stem` (e.g. "amdhip64") with the given SONAME versions, the
/// unversioned development name first.
pub fn versioned_names(stem: &str, versions: &[&str]) -> Vec<String> {
    let mut names = vec![format!("lib{stem}.so")];
    names.extend(versions.iter().map(|v| format!("lib{stem}.so.{v}")));
    names
}

/// Prepend `$VAR/lib/NAME` and `$VAR/NAME` for each variable that is set.
pub fn with_env_dirs(vars: &[&str], names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for var in vars {
        if let Some(dir) = std::env::var_os(var) {
            let dir = std::path::PathBuf::from(dir);
            for name in names {
                out.push(dir.join("lib").join(name).display().to_string());
                out.push(dir.join(name).display().to_string());
            }
        }
    }
    out.extend(names.iter().cloned());
    out
}

/// A struct of typed function pointers for one library, built from a [`SymbolTable`]: the
/// hand-written FFI tables (HIP and hiprtc on AMD, rocBLAS, NCCL/RCCL), where no binding
/// crate covers the library or the platform. `#[optional]` symbols become `Option`s.
macro_rules! fn_table {
    ($name:ident { $( $(#[$opt:ident])? $sym:ident : fn($($arg:ty),*) $(-> $ret:ty)? ),* $(,)? }) => {
        /// Typed function pointers of one library.
        #[derive(Debug, Clone, Copy)]
        pub struct $name {
            $( pub $sym: fn_table!(@ty $($opt)? ; unsafe extern "C" fn($($arg),*) $(-> $ret)?), )*
        }

        impl $name {
            /// Every symbol with its Rust signature as written here, so that tests can compare
            /// the table with the C prototypes of the library's published headers.
            pub const SIGNATURES: &'static [(&'static str, &'static str)] = &[
                $( (stringify!($sym), stringify!(fn($($arg),*) $(-> $ret)?)), )*
            ];

            /// Build the table from resolved addresses. Required symbols are present: the
            /// resolver returned an error otherwise.
            pub fn from_table(t: &SymbolTable) -> Option<$name> {
                Some($name {
                    $( $sym: fn_table!(@get $($opt)? ; t, stringify!($sym), unsafe extern "C" fn($($arg),*) $(-> $ret)?), )*
                })
            }
        }
    };
    (@ty optional ; $f:ty) => { Option<$f> };
    (@ty ; $f:ty) => { $f };
    (@get optional ; $t:expr, $s:expr, $f:ty) => {
        // SAFETY: the address was resolved for this exact symbol, whose C signature is `$f`.
        $t.get($s).map(|a| unsafe { std::mem::transmute::<usize, $f>(a) })
    };
    (@get ; $t:expr, $s:expr, $f:ty) => {
        // SAFETY: as above.
        unsafe { std::mem::transmute::<usize, $f>($t.get($s)?) }
    };
}

/// The table macro, for every hand-written table (HIP, hiprtc, rocBLAS, NCCL/RCCL).
pub(crate) use fn_table;
