//! `HipError` → `gpuarrays_core::Error`, so that `?` works on this crate's results in code
//! that returns `gpuarrays_core::Result` (e.g. `HipBackend::new(0)?`).
//!
//! Nothing is lost on the way: out-of-memory keeps its numbers (bytes requested and free),
//! everything else becomes `Error::Backend` with the `HipError` itself as its source (reach
//! it with `source().downcast_ref::<HipError>()`, e.g. for [`HipError::detail`]).
//! [`to_core`] does the same and names the device (name and ordinal) in out-of-memory
//! errors; the backend uses it where it knows the device.

use gpuarrays_core::memory::LimitExceeded;
use gpuarrays_core::{DeviceInfo, Error};

use crate::error::HipError;

impl From<HipError> for Error {
    fn from(e: HipError) -> Error {
        match e {
            HipError::OutOfMemory {
                device,
                requested,
                free,
                total,
                released,
            } => out_of_memory(format!("hip:{device}"), requested, free, total, released),
            HipError::LibraryOutOfMemory {
                device,
                what,
                free,
                total,
                released,
            } => library_out_of_memory(format!("hip:{device}"), what, free, total, released),
            HipError::MemoryLimit {
                device,
                requested,
                in_use,
                limit,
            } => limit_exceeded(format!("hip:{device}"), requested, in_use, limit),
            other => Error::backend("hip", other),
        }
    }
}

/// The core error for `e`, raised on `device` (named in out-of-memory errors).
pub fn to_core(device: &DeviceInfo, e: HipError) -> Error {
    match e {
        HipError::OutOfMemory {
            requested,
            free,
            total,
            released,
            ..
        } => out_of_memory(device.to_string(), requested, free, total, released),
        HipError::LibraryOutOfMemory {
            what,
            free,
            total,
            released,
            ..
        } => library_out_of_memory(device.to_string(), what, free, total, released),
        HipError::MemoryLimit {
            requested,
            in_use,
            limit,
            ..
        } => limit_exceeded(device.to_string(), requested, in_use, limit),
        HipError::StreamCapturing { stream, what } => Error::NotCapturable {
            what: what.into(),
            backend: "hip".into(),
            reason: format!(
                "stream {stream:#x} is capturing a graph (this thread's capture, or the one \
                 whose stream the work would join), and this must happen now, not when the \
                 graph is launched; do it before or after the capture"
            ),
        },
        other => Error::from(other),
    }
}

/// The limit set with `set_memory_limit` refused an allocation.
fn limit_exceeded(device: String, requested: usize, in_use: usize, limit: usize) -> Error {
    LimitExceeded {
        requested,
        in_use,
        limit,
    }
    .to_error(device)
}

fn out_of_memory(
    device: String,
    requested: usize,
    free: usize,
    total: usize,
    released: usize,
) -> Error {
    Error::OutOfMemory {
        device,
        requested: Some(requested),
        free: Some(free),
        hint: Some(format!(
            "{total} bytes in total; {released} cached bytes were released and the \
             allocation retried; free arrays you no longer need or use smaller batches"
        )),
    }
}

/// A library object (BLAS handle, FFT plan) that found no device memory. The libraries do
/// not say how much they wanted: `requested` is `None` and the hint names what was created.
fn library_out_of_memory(
    device: String,
    what: &str,
    free: usize,
    total: usize,
    released: usize,
) -> Error {
    Error::OutOfMemory {
        device,
        requested: None,
        free: Some(free),
        hint: Some(format!(
            "creating {what} (the library does not report how much memory it needs) failed; \
             {total} bytes in total; {released} bytes of idle resources and cached memory \
             were released and creation retried; free arrays you no longer need or use \
             smaller problems"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{DeviceId, PlatformKind};
    use std::error::Error as _;

    fn oom() -> HipError {
        HipError::OutOfMemory {
            device: DeviceId(3),
            requested: 100,
            free: 7,
            total: 50,
            released: 3,
        }
    }

    fn dev() -> DeviceInfo {
        DeviceInfo {
            backend: "hip",
            id: 1,
            ordinal: 0,
            name: "test".into(),
            flushes_subnormals: Default::default(),
        }
    }

    #[test]
    fn to_core_keeps_the_numbers_and_names_the_device() {
        match to_core(&dev(), oom()) {
            Error::OutOfMemory {
                device,
                requested,
                free,
                hint,
            } => {
                assert_eq!((requested, free), (Some(100), Some(7)));
                assert_eq!(device, dev().to_string());
                let hint = hint.unwrap_or_default();
                assert!(hint.contains("50 bytes in total"), "{hint}");
                assert!(hint.contains("3 cached bytes"), "{hint}");
            }
            other => panic!("expected OutOfMemory, got {other}"),
        }
        let e = to_core(&dev(), HipError::InvalidArgument("x".into()));
        assert!(matches!(e, Error::Backend { .. }), "{e}");
    }

    #[test]
    fn a_library_out_of_memory_is_cores_out_of_memory_naming_the_object() {
        let e = HipError::LibraryOutOfMemory {
            device: DeviceId(0),
            what: "a BLAS handle",
            free: 5,
            total: 9,
            released: 2,
        };
        assert!(e.is_out_of_memory());
        match to_core(&dev(), e) {
            Error::OutOfMemory {
                requested,
                free,
                hint,
                ..
            } => {
                assert_eq!((requested, free), (None, Some(5)));
                let hint = hint.unwrap_or_default();
                assert!(
                    hint.contains("a BLAS handle") && hint.contains("9 bytes"),
                    "{hint}"
                );
            }
            other => panic!("expected OutOfMemory, got {other}"),
        }
    }

    #[test]
    fn from_keeps_the_numbers_of_out_of_memory() {
        match Error::from(oom()) {
            Error::OutOfMemory {
                device,
                requested,
                free,
                ..
            } => {
                assert_eq!((requested, free), (Some(100), Some(7)));
                assert_eq!(device, "hip:3");
            }
            other => panic!("expected OutOfMemory, got {other}"),
        }
    }

    #[test]
    fn from_keeps_the_hip_error_as_source() {
        let original = HipError::LibraryNotFound {
            platform: PlatformKind::Nvidia,
            library: "the NVIDIA driver (libcuda)",
            provider: "the NVIDIA driver",
            tried: vec!["not found: libcuda.so, libcuda.so.1".into()],
            hint: "install the NVIDIA driver",
        };
        let core = Error::from(original.clone());
        match &core {
            Error::Backend { backend, .. } => assert_eq!(backend, "hip"),
            other => panic!("expected Backend, got {other}"),
        }
        let source = core.source().and_then(|s| s.downcast_ref::<HipError>());
        assert_eq!(source, Some(&original));
        assert!(core.to_string().contains("could not be loaded"), "{core}");
    }

    /// `?` converts: the signature of a user's function returning core's `Result`.
    fn open(ordinal: usize) -> gpuarrays_core::Result<usize> {
        let fail = || -> crate::Result<usize> {
            Err(HipError::InvalidDevice {
                platform: PlatformKind::TestDouble,
                device: DeviceId(ordinal),
                count: 0,
            })
        };
        let n = fail()?;
        Ok(n)
    }

    #[test]
    fn question_mark_converts_into_core_errors() {
        let e = open(5).expect_err("the helper always fails");
        let source = e.source().and_then(|s| s.downcast_ref::<HipError>());
        assert!(
            matches!(source, Some(HipError::InvalidDevice { device, .. }) if *device == DeviceId(5)),
            "{e:?}"
        );
    }
}
