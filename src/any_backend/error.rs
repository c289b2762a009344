//! The facade's one error type: why a backend could not be chosen or opened.
//!
//! It converts into `gpuarrays_core::Error` (as `Error::Backend`, this error as the source),
//! so `default_backend()?` works in a function returning `gpuarrays::Result`; programs that
//! want to react (fall back, print what to install) match on the variants instead.

/// Why a backend request could not be met.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendChoiceError {
    /// A name that is no backend of the project.
    #[error(
        "unknown backend '{name}'; this build has: {compiled} (a name, optionally with a device ordinal, e.g. 'hip:1')"
    )]
    Unknown {
        /// The name asked for.
        name: String,
        /// The compiled-in backends, e.g. "cpu, hip".
        compiled: String,
    },

    /// A request that is not `NAME` or `NAME:ORDINAL`.
    #[error(
        "backend request '{request}' is not NAME or NAME:ORDINAL (e.g. 'cpu', 'hip:1'): {reason}"
    )]
    Malformed {
        /// The request as given.
        request: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A backend of the project that this build does not contain.
    #[error(
        "{name}: not compiled into this build; enable the `{feature}` cargo feature of gpuarrays"
    )]
    NotCompiled {
        name: &'static str,
        /// The facade's cargo feature that compiles it in.
        feature: &'static str,
    },

    /// The backend is compiled in but cannot run here (no driver, no runtime library, no
    /// device). The message is one line (what is missing, what to install); the source is the
    /// backend's own error, and `detail` what it knows beyond the message (e.g. every library
    /// file tried and why it did not load), for `--verbose` listings.
    #[error("{name}: not available: {source}")]
    Unavailable {
        name: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
        detail: Vec<String>,
    },

    /// A GPU backend whose device here is a software one running on the CPU (wgpu on Mesa's
    /// llvmpipe): the automatic choice passes it over for the CPU reference, which is faster
    /// and supports everything; naming it (`GPUARRAYS_BACKEND=wgpu`) uses it.
    #[error(
        "{name}: only a software device here ('{device}'), slower than the CPU reference; name it (GPUARRAYS_BACKEND={name}) to use it anyway"
    )]
    SoftwareDevice { name: &'static str, device: String },

    /// The backend's runtime loaded but reports no device.
    #[error(
        "{name}: the runtime loaded but reports no device; check the driver and the device permissions"
    )]
    NoDevice { name: &'static str },

    /// A device ordinal the backend does not have.
    #[error(
        "{name}: there is no device {ordinal} (the backend has {count}); use an ordinal below {count}"
    )]
    NoSuchDevice {
        name: &'static str,
        ordinal: usize,
        count: usize,
    },

    /// The environment variable `GPUARRAYS_BACKEND` asked for something that cannot be met.
    #[error("{var}={value}: {source}; unset it to choose automatically")]
    Environment {
        var: &'static str,
        value: String,
        #[source]
        source: Box<BackendChoiceError>,
    },
}

impl BackendChoiceError {
    /// What the backend knows beyond the one-line message, one item per line (empty when the
    /// message says it all).
    pub fn detail(&self) -> &[String] {
        match self {
            BackendChoiceError::Unavailable { detail, .. } => detail,
            BackendChoiceError::Environment { source, .. } => source.detail(),
            _ => &[],
        }
    }

    /// The innermost choice error: the reason behind an [`Environment`](Self::Environment)
    /// wrapper, or this error itself.
    pub fn reason(&self) -> &BackendChoiceError {
        match self {
            BackendChoiceError::Environment { source, .. } => source.reason(),
            other => other,
        }
    }
}

impl From<BackendChoiceError> for gpuarrays_core::Error {
    fn from(e: BackendChoiceError) -> Self {
        gpuarrays_core::Error::backend("gpuarrays", e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_wrapper_keeps_the_reason_its_detail_and_its_source() {
        let inner = BackendChoiceError::Unavailable {
            name: "hip",
            source: Box::new(std::io::Error::other("no runtime found; install one")),
            detail: vec!["tried libx.so: not found".into()],
        };
        let e = BackendChoiceError::Environment {
            var: "GPUARRAYS_BACKEND",
            value: "hip".into(),
            source: Box::new(inner),
        };
        assert_eq!(
            e.to_string(),
            "GPUARRAYS_BACKEND=hip: hip: not available: no runtime found; install one; unset it to choose automatically"
        );
        assert_eq!(e.detail(), ["tried libx.so: not found"]);
        assert!(matches!(e.reason(), BackendChoiceError::Unavailable { .. }));
        let core: gpuarrays_core::Error = e.into();
        assert!(core.to_string().contains("no runtime found"), "{core}");
    }
}
