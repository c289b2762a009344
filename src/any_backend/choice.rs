//! Choosing the backend when the program starts: the best available GPU, else the CPU, or
//! the one `GPUARRAYS_BACKEND` names.

use super::AnyBackend;
use super::BackendKind;
use super::error::BackendChoiceError;

/// The environment variable that forces a backend: `cpu`, `hip`, `wgpu` (the device the
/// backend prefers), or `NAME:ORDINAL` for a given device (`hip:1`). Unset, empty or `auto`:
/// choose automatically.
pub const BACKEND_ENV: &str = "GPUARRAYS_BACKEND";

/// What [`choose_backend`] picked, and the GPU backends it passed over on the way.
#[derive(Debug)]
pub struct BackendChoice {
    pub backend: AnyBackend,
    /// Each compiled-in GPU backend tried before `backend` and why it cannot run here, in
    /// order of preference (empty when the request named the backend).
    pub passed_over: Vec<BackendChoiceError>,
}

/// The backend for this run: the one `GPUARRAYS_BACKEND` names, else the preferred device of
/// the first available GPU backend (in [`BackendKind::ALL`] order: HIP, then wgpu; a
/// software device such as wgpu on llvmpipe does not count), else the CPU reference.
///
/// ```
/// fn main() -> gpuarrays::Result<()> {
///     let backend = gpuarrays::default_backend()?;
///     println!("running on {}", gpuarrays::Backend::device(&backend));
///     Ok(())
/// }
/// ```
///
/// Without a GPU this is the CPU. A backend that `GPUARRAYS_BACKEND` names but that cannot
/// run here is an error ([`BackendChoiceError::Environment`], its reason inside), not a
/// silent fallback.
pub fn default_backend() -> Result<AnyBackend, BackendChoiceError> {
    default_backend_choice().map(|c| c.backend)
}

/// [`default_backend`], with the GPU backends it passed over (to tell the user why the
/// program runs on the CPU).
pub fn default_backend_choice() -> Result<BackendChoice, BackendChoiceError> {
    match std::env::var(BACKEND_ENV) {
        Ok(value) => {
            choose_backend(Some(&value)).map_err(|source| BackendChoiceError::Environment {
                var: BACKEND_ENV,
                value,
                source: Box::new(source),
            })
        }
        Err(std::env::VarError::NotPresent) => choose_backend(None),
        Err(std::env::VarError::NotUnicode(raw)) => Err(BackendChoiceError::Environment {
            var: BACKEND_ENV,
            value: raw.to_string_lossy().into_owned(),
            source: Box::new(BackendChoiceError::Malformed {
                request: raw.to_string_lossy().into_owned(),
                reason: "not valid UTF-8".into(),
            }),
        }),
    }
}

/// The backend `request` names (`cpu`, `hip`, `wgpu:1`; case does not matter; without an
/// ordinal, the device the backend prefers), or with `None`, an empty request or `auto`, the
/// best available one as [`default_backend`] does.
pub fn choose_backend(request: Option<&str>) -> Result<BackendChoice, BackendChoiceError> {
    let request = request.map(str::trim).unwrap_or_default();
    if request.is_empty() || request.eq_ignore_ascii_case("auto") {
        return Ok(choose_automatically());
    }
    let backend = match parse_request(request)? {
        (kind, None) => AnyBackend::open_preferred(kind)?,
        (kind, Some(ordinal)) => AnyBackend::open(kind, ordinal)?,
    };
    tracing::info!(device = %gpuarrays_core::Backend::device(&backend), request, "backend chosen");
    Ok(BackendChoice {
        backend,
        passed_over: Vec::new(),
    })
}

/// `NAME` or `NAME:ORDINAL`.
fn parse_request(request: &str) -> Result<(BackendKind, Option<usize>), BackendChoiceError> {
    let lower = request.to_ascii_lowercase();
    let (name, ordinal) = match lower.split_once(':') {
        None => (lower.as_str(), None),
        Some((name, ordinal)) => {
            let ordinal =
                ordinal
                    .trim()
                    .parse::<usize>()
                    .map_err(|e| BackendChoiceError::Malformed {
                        request: request.to_string(),
                        reason: format!("the device ordinal '{ordinal}' is not a number ({e})"),
                    })?;
            (name, Some(ordinal))
        }
    };
    Ok((name.trim().parse::<BackendKind>()?, ordinal))
}

fn choose_automatically() -> BackendChoice {
    let mut passed_over = Vec::new();
    for kind in BackendKind::compiled().filter(|k| k.is_gpu()) {
        match AnyBackend::open_preferred(kind) {
            Ok(backend) if backend.is_software_device() => {
                let device = gpuarrays_core::Backend::device(&backend).name.clone();
                tracing::debug!(backend = kind.name(), device, "software device passed over");
                passed_over.push(BackendChoiceError::SoftwareDevice {
                    name: kind.name(),
                    device,
                });
            }
            Ok(backend) => {
                tracing::info!(device = %gpuarrays_core::Backend::device(&backend), "backend chosen: the first available GPU backend");
                return BackendChoice {
                    backend,
                    passed_over,
                };
            }
            Err(e) => {
                tracing::debug!(backend = kind.name(), reason = %e, "GPU backend passed over");
                passed_over.push(e);
            }
        }
    }
    let backend = AnyBackend::cpu();
    tracing::info!(device = %gpuarrays_core::Backend::device(&backend), "backend chosen: no GPU backend is available");
    BackendChoice {
        backend,
        passed_over,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_into_a_kind_and_an_ordinal() {
        assert_eq!(parse_request("cpu").ok(), Some((BackendKind::Cpu, None)));
        assert_eq!(
            parse_request("HIP:3").ok(),
            Some((BackendKind::Hip, Some(3)))
        );
        assert_eq!(
            parse_request("wgpu: 1").ok(),
            Some((BackendKind::Wgpu, Some(1)))
        );
        assert!(matches!(
            parse_request("hip:one"),
            Err(BackendChoiceError::Malformed { .. })
        ));
        assert!(matches!(
            parse_request("hip:-1"),
            Err(BackendChoiceError::Malformed { .. })
        ));
        assert!(matches!(
            parse_request("cuda"),
            Err(BackendChoiceError::Unknown { .. })
        ));
    }
}
