//! The crate's one error type. Every variant says what went wrong and what to do about it.
//!
//! The message (`Display`) is one line for a person: what is missing and what to install.
//! What lies behind it (every library file tried, with the loader's reason; each platform's
//! own error when none is usable) is structured detail: the variants' fields, `Debug`, and
//! [`HipError::detail`] as printable lines (for `gpuarrays info --verbose` and for programs).
//! `From<HipError> for gpuarrays_core::Error` (in `backend/core_error.rs`) keeps all of it.

use crate::ids::{DeviceId, PlatformKind};

/// Result alias used throughout `gpuarrays-hip`.
pub type Result<T, E = HipError> = std::result::Result<T, E>;

/// Everything that can go wrong in the HIP backend's runtime layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HipError {
    /// No candidate file of a shared library could be opened. The message names the library
    /// and what to install; `tried` (and [`HipError::detail`]) lists every file tried.
    #[error("{platform}: {library} could not be loaded; {hint}")]
    LibraryNotFound {
        /// The platform that needed the library.
        platform: PlatformKind,
        /// Which library, e.g. "the NVIDIA driver (libcuda)".
        library: &'static str,
        /// What provides the library, e.g. "the NVIDIA driver" or "ROCm".
        provider: &'static str,
        /// Every name or path tried, each with the loader's reason ("not found: a, b, ..."
        /// for the names the loader did not find at all).
        tried: Vec<String>,
        /// What to install or set.
        hint: &'static str,
    },

    /// The library loaded but lacks symbols the platform needs.
    #[error(
        "{platform}: {library} ({path}) lacks required symbols {missing:?}; \
         the installed runtime is older than this backend supports. {hint}"
    )]
    MissingSymbols {
        /// The platform that needed the symbols.
        platform: PlatformKind,
        /// Which library.
        library: &'static str,
        /// The file that was opened.
        path: String,
        /// Every required symbol that was not found.
        missing: Vec<String>,
        /// What to install.
        hint: &'static str,
    },

    /// Automatic platform choice found no usable platform. The message is one line (see
    /// [`no_platform_message`]); each platform's own error is in `reasons`.
    #[error("{}", no_platform_message(.reasons))]
    NoPlatform {
        /// Why each platform was rejected, in the order they were tried.
        reasons: Vec<HipError>,
    },

    /// The platform loaded but reports no device.
    #[error(
        "{platform}: no GPU device found; check the driver (`rocm-smi` / `nvidia-smi`) and device permissions"
    )]
    NoDevice {
        /// The platform asked.
        platform: PlatformKind,
    },

    /// A device ordinal out of range.
    #[error("{platform}: device {device} does not exist (the platform has {count} device(s))")]
    InvalidDevice {
        /// The platform asked.
        platform: PlatformKind,
        /// The ordinal asked for.
        device: DeviceId,
        /// How many devices there are.
        count: usize,
    },

    /// An environment variable has a value this crate does not understand.
    #[error("environment variable {var}={value:?} is not understood; expected {expected}")]
    InvalidConfig {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// The accepted values.
        expected: &'static str,
    },

    /// A platform API call returned an error code.
    #[error("{platform}: {call} failed with {name} ({code}): {message}")]
    Api {
        /// The platform.
        platform: PlatformKind,
        /// The API function, e.g. "cuStreamCreateWithPriority".
        call: &'static str,
        /// The numeric error code.
        code: i32,
        /// The error's symbolic name, e.g. "CUDA_ERROR_INVALID_HANDLE".
        name: String,
        /// The platform's description of the error.
        message: String,
    },

    /// A call into a binding library panicked (it was caught; the platform may be unusable).
    #[error(
        "{platform}: {call} panicked inside the binding library: {message}; this is a bug or an unsupported runtime, please report it"
    )]
    BindingPanicked {
        /// The platform.
        platform: PlatformKind,
        /// The API function.
        call: &'static str,
        /// The panic message.
        message: String,
    },

    /// The memory limit set with `set_memory_limit` would be passed by an allocation.
    #[error(
        "allocating {requested} bytes on device {device} would pass its memory limit of {limit} \
         bytes ({in_use} in use): raise or remove the limit (set_memory_limit), or free arrays"
    )]
    MemoryLimit {
        /// The device.
        device: DeviceId,
        /// Bytes asked for.
        requested: usize,
        /// Bytes in use before the request.
        in_use: usize,
        /// The limit.
        limit: usize,
    },

    /// Device memory is exhausted even after releasing cached memory and retrying.
    #[error(
        "out of device memory on device {device}: {requested} bytes requested, {free} bytes free of {total} \
         (after releasing {released} cached bytes and retrying); free arrays you no longer need, \
         use smaller batches, or call free_all_shared() on large buffers"
    )]
    OutOfMemory {
        /// The device.
        device: DeviceId,
        /// Bytes asked for.
        requested: usize,
        /// Bytes free after the retry, as the platform reports.
        free: usize,
        /// Total device memory.
        total: usize,
        /// Bytes released by the pool and hooks before the retry.
        released: usize,
    },

    /// A library could not create one of its objects (a BLAS handle, an FFT plan) for lack of
    /// device memory, even after idle resources and cached memory were released and creation
    /// retried once. The libraries do not say how much memory they wanted.
    #[error(
        "out of device memory on device {device} creating {what}: {free} bytes free of {total} \
         (after releasing {released} bytes of idle resources and cached memory and retrying); \
         free arrays you no longer need, or use smaller problems"
    )]
    LibraryOutOfMemory {
        /// The device.
        device: DeviceId,
        /// What was being created, e.g. "a BLAS handle".
        what: &'static str,
        /// Bytes free after the retry, as the platform reports.
        free: usize,
        /// Total device memory.
        total: usize,
        /// Bytes released before the retry.
        released: usize,
    },

    /// A pooled stream that belongs to another thread (or is idle in its pool) was passed to
    /// an operation: work, an allocation or a free on it could land between that thread's
    /// own work, or inside its graph capture.
    #[error(
        "stream {stream:#x} on device {device} is a pooled stream of another thread (or idle in \
         its pool); {what} must not use it. Use the calling thread's own stream \
         (HipRuntime::stream / DeviceState::thread_stream) or an explicit stream \
         (HipRuntime::create_stream) to share one between threads"
    )]
    StreamNotOwned {
        /// The device.
        device: DeviceId,
        /// The raw stream handle.
        stream: u64,
        /// What was attempted.
        what: &'static str,
    },

    /// A stream is in an error state (a kernel failed, or the stream was destroyed).
    #[error(
        "stream {stream:#x} on device {device} is unusable: {reason}; work queued on it may be lost, recreate the data it produced"
    )]
    StreamUnusable {
        /// The device.
        device: DeviceId,
        /// The raw stream handle.
        stream: u64,
        /// Why.
        reason: String,
    },

    /// An operation would have been recorded into a graph capture where it must not be: into
    /// another thread's capture, or (a host copy, a free) into any capture, since it has to
    /// happen now.
    #[error(
        "stream {stream:#x} is capturing a graph; {what} must not be recorded into the capture (it belongs to another thread's graph, or must happen now). Retry after the capture ends, or use another stream"
    )]
    StreamCapturing {
        /// The raw stream handle.
        stream: u64,
        /// What was attempted.
        what: &'static str,
    },

    /// Run-time compilation failed.
    #[error("{platform}: compiling {program} for {arch} failed ({call}): {log}")]
    Compile {
        /// The platform.
        platform: PlatformKind,
        /// The program's name.
        program: String,
        /// The target architecture.
        arch: String,
        /// The failing call.
        call: &'static str,
        /// The compiler's log.
        log: String,
    },

    /// A caller passed something invalid.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The ranks of a collective group could not agree on the group's id (the bootstrap
    /// through an environment variable, a file or TCP): `how` names the channel, `message`
    /// what failed and what to check.
    #[error("collective bootstrap through {how} failed: {message}")]
    Bootstrap {
        /// The channel, e.g. "file /tmp/id" or "tcp 10.0.0.1:29500".
        how: String,
        /// What went wrong and what to check.
        message: String,
    },

    /// A test double's injected fault or an operation the test double cannot emulate.
    #[error("test double: {0}")]
    TestDouble(String),
}

impl HipError {
    /// The platform error code, if this is an API error.
    pub fn api_code(&self) -> Option<i32> {
        match self {
            HipError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Everything behind the one-line message, as printable lines: for a library that could
    /// not be loaded, every file tried with the loader's reason; for "no platform is usable",
    /// each platform's message followed by its own detail, indented. Empty when the message
    /// says it all.
    pub fn detail(&self) -> Vec<String> {
        match self {
            HipError::LibraryNotFound { tried, .. } => tried.clone(),
            HipError::NoPlatform { reasons } => reasons
                .iter()
                .flat_map(|r| {
                    std::iter::once(r.to_string())
                        .chain(r.detail().into_iter().map(|line| format!("  {line}")))
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether this error means "out of memory" at the platform level.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(
            self,
            HipError::OutOfMemory { .. }
                | HipError::LibraryOutOfMemory { .. }
                | HipError::MemoryLimit { .. }
        ) || self.api_code() == Some(codes::OUT_OF_MEMORY)
    }
}

/// The one-line message of [`HipError::NoPlatform`]. When every platform failed because its
/// library is missing (the usual case on a machine without a GPU) it names the libraries and
/// what provides them, e.g. "no GPU runtime found: neither ROCm's HIP runtime (libamdhip64)
/// nor the NVIDIA driver (libcuda) could be loaded; install ROCm or the NVIDIA driver". Otherwise
/// it gives each platform's reason in short.
pub fn no_platform_message(reasons: &[HipError]) -> String {
    let missing: Vec<(&str, &str)> = reasons
        .iter()
        .filter_map(|r| match r {
            HipError::LibraryNotFound {
                library, provider, ..
            } => Some((*library, *provider)),
            _ => None,
        })
        .collect();
    if !missing.is_empty() && missing.len() == reasons.len() {
        let libraries: Vec<&str> = missing.iter().map(|m| m.0).collect();
        let mut providers: Vec<&str> = missing.iter().map(|m| m.1).collect();
        providers.dedup();
        let subject = match libraries.as_slice() {
            [one] => format!("{one} could not be loaded"),
            [a, b] => format!("neither {a} nor {b} could be loaded"),
            many => format!("none of {} could be loaded", many.join(", ")),
        };
        return format!(
            "no GPU runtime found: {subject}; install {}",
            list_with_or(&providers)
        );
    }
    let short: Vec<String> = reasons
        .iter()
        .map(|r| match r {
            HipError::LibraryNotFound {
                platform,
                library,
                provider,
                ..
            } => format!("{platform}: {library} could not be loaded (install {provider})"),
            other => other.to_string(),
        })
        .collect();
    if short.is_empty() {
        return "no HIP platform is usable (none was tried)".to_string();
    }
    format!("no HIP platform is usable: {}", short.join("; "))
}

/// "a", "a or b", "a, b or c".
fn list_with_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Error codes that HIP and CUDA share (HIP copied CUDA's numbering).
pub mod codes;

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(platform: PlatformKind, library: &'static str, provider: &'static str) -> HipError {
        HipError::LibraryNotFound {
            platform,
            library,
            provider,
            tried: vec![
                "not found: libfoo.so, libfoo.so.1, /opt/foo/lib/libfoo.so.7".into(),
                "/usr/lib/libfoo.so.2 (wrong ELF class: ELFCLASS32)".into(),
            ],
            hint: "install foo",
        }
    }

    fn no_runtime() -> HipError {
        HipError::NoPlatform {
            reasons: vec![
                missing(
                    PlatformKind::Amd,
                    "ROCm's HIP runtime (libamdhip64)",
                    "ROCm",
                ),
                missing(
                    PlatformKind::Nvidia,
                    "the NVIDIA driver (libcuda)",
                    "the NVIDIA driver",
                ),
            ],
        }
    }

    #[test]
    fn no_runtime_is_one_short_line_naming_libraries_and_what_to_install() {
        let msg = no_runtime().to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(msg.len() < 200, "{} characters: {msg}", msg.len());
        for part in [
            "libamdhip64",
            "libcuda",
            "install",
            "ROCm",
            "the NVIDIA driver",
        ] {
            assert!(msg.contains(part), "{part:?} missing from: {msg}");
        }
        assert!(
            !msg.contains("libfoo"),
            "candidates belong in detail(): {msg}"
        );
    }

    #[test]
    fn detail_lists_every_candidate_under_its_platform() {
        let detail = no_runtime().detail();
        assert_eq!(detail.len(), 6, "{detail:#?}");
        assert!(detail[0].starts_with("HIP/AMD"), "{detail:#?}");
        assert!(
            detail[1].starts_with("  not found: libfoo.so"),
            "{detail:#?}"
        );
        assert!(detail[2].contains("wrong ELF class"), "{detail:#?}");
        assert!(detail[3].starts_with("HIP/NVIDIA"), "{detail:#?}");
        let debug = format!("{:?}", no_runtime());
        assert!(debug.contains("/opt/foo/lib/libfoo.so.7"), "{debug}");
    }

    #[test]
    fn library_not_found_alone_says_what_to_install_without_candidates() {
        let e = missing(
            PlatformKind::Nvidia,
            "CUDA's NVRTC (libnvrtc)",
            "CUDA's NVRTC",
        );
        let msg = e.to_string();
        assert!(
            msg.contains("libnvrtc") && msg.contains("install foo"),
            "{msg}"
        );
        assert!(!msg.contains("libfoo"), "{msg}");
        assert_eq!(e.detail().len(), 2);
    }

    #[test]
    fn other_reasons_are_given_in_short() {
        let e = HipError::NoPlatform {
            reasons: vec![
                missing(
                    PlatformKind::Amd,
                    "ROCm's HIP runtime (libamdhip64)",
                    "ROCm",
                ),
                HipError::NoDevice {
                    platform: PlatformKind::Nvidia,
                },
            ],
        };
        let msg = e.to_string();
        assert!(
            msg.contains("HIP/AMD") && msg.contains("install ROCm"),
            "{msg}"
        );
        assert!(msg.contains("HIP/NVIDIA: no GPU device found"), "{msg}");
        assert!(!msg.contains("libfoo"), "{msg}");
    }
}
