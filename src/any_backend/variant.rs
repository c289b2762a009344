//! What [`AnyBackend`] needs of each backend it wraps: how to open its devices and how to
//! move its buffers in and out of [`AnyBuffer`].
//!
//! Adding a backend to `AnyBackend` means one `impl BackendVariant`, one variant in
//! `AnyBackend` and `AnyBuffer`, one arm in the `match_variant!` macro, in
//! `AnyBackend::open`/`open_all` and in `AnyBuffer::kind`/`len`, and one row in
//! [`BackendKind`]; the `Backend` methods themselves are written once, generically, in
//! `dispatch.rs`.

use gpuarrays_core::Backend;
use gpuarrays_cpu_ref::CpuBackend;
#[cfg(feature = "hip")]
use gpuarrays_hip::HipBackend;
#[cfg(feature = "wgpu")]
use gpuarrays_wgpu::{WgpuBackend, WgpuOptions};

use super::AnyBackend;
use super::buffer::AnyBuffer;
use super::error::BackendChoiceError;
use super::kind::BackendKind;

/// A boxed backend error, kept whole as the source of [`BackendChoiceError::Unavailable`].
pub(crate) type SourceError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// One backend that [`AnyBackend`] can hold.
pub(crate) trait BackendVariant: Backend + Into<AnyBackend> {
    const KIND: BackendKind;

    /// This backend's buffer inside `buffer`, or `None` for another backend's buffer.
    fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&Self::Buffer>;

    /// This backend's buffer inside `buffer`, by value; another backend's buffer back.
    // The error is the caller's own buffer handed back whole (a HIP buffer is ~130 bytes
    // with its use records and capture owner); boxing it would allocate on every release.
    #[allow(clippy::result_large_err)]
    fn take_buffer(buffer: AnyBuffer) -> Result<Self::Buffer, AnyBuffer>;

    /// `buffer` as an [`AnyBuffer`].
    fn wrap_buffer(buffer: Self::Buffer) -> AnyBuffer;

    /// How many devices the backend has here, or why it cannot run here.
    fn device_count() -> Result<usize, SourceError>;

    /// Opens device `ordinal` (below [`device_count`](Self::device_count)).
    fn open_device(ordinal: usize) -> Result<Self, SourceError>;

    /// Opens the device the backend itself prefers (by default the first).
    fn open_preferred() -> Result<Self, SourceError> {
        Self::open_device(0)
    }

    /// Whether this GPU backend's device is a software one running on the CPU (e.g. wgpu
    /// on Mesa's llvmpipe), which the automatic choice passes over.
    fn is_software_device(&self) -> bool {
        false
    }

    /// What the backend's error knows beyond its one-line message, one item per line.
    fn detail(_error: &SourceError) -> Vec<String> {
        Vec::new()
    }
}

impl BackendVariant for CpuBackend {
    const KIND: BackendKind = BackendKind::Cpu;

    fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&Self::Buffer> {
        match buffer {
            AnyBuffer::Cpu(b) => Some(b),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    fn take_buffer(buffer: AnyBuffer) -> Result<Self::Buffer, AnyBuffer> {
        match buffer {
            AnyBuffer::Cpu(b) => Ok(b),
            #[allow(unreachable_patterns)]
            other => Err(other),
        }
    }

    fn wrap_buffer(buffer: Self::Buffer) -> AnyBuffer {
        AnyBuffer::Cpu(buffer)
    }

    fn device_count() -> Result<usize, SourceError> {
        Ok(1)
    }

    fn open_device(_ordinal: usize) -> Result<Self, SourceError> {
        Ok(CpuBackend::new())
    }
}

#[cfg(feature = "hip")]
impl BackendVariant for HipBackend {
    const KIND: BackendKind = BackendKind::Hip;

    fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&Self::Buffer> {
        match buffer {
            AnyBuffer::Hip(b) => Some(b),
            _ => None,
        }
    }

    fn take_buffer(buffer: AnyBuffer) -> Result<Self::Buffer, AnyBuffer> {
        match buffer {
            AnyBuffer::Hip(b) => Ok(b),
            other => Err(other),
        }
    }

    fn wrap_buffer(buffer: Self::Buffer) -> AnyBuffer {
        AnyBuffer::Hip(buffer)
    }

    fn device_count() -> Result<usize, SourceError> {
        Ok(HipBackend::device_count()?)
    }

    fn open_device(ordinal: usize) -> Result<Self, SourceError> {
        Ok(HipBackend::new(ordinal)?)
    }

    fn detail(error: &SourceError) -> Vec<String> {
        error
            .downcast_ref::<gpuarrays_hip::HipError>()
            .map(gpuarrays_hip::HipError::detail)
            .unwrap_or_default()
    }
}

#[cfg(feature = "wgpu")]
impl BackendVariant for WgpuBackend {
    const KIND: BackendKind = BackendKind::Wgpu;

    fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&Self::Buffer> {
        match buffer {
            AnyBuffer::Wgpu(b) => Some(b),
            _ => None,
        }
    }

    fn take_buffer(buffer: AnyBuffer) -> Result<Self::Buffer, AnyBuffer> {
        match buffer {
            AnyBuffer::Wgpu(b) => Ok(b),
            other => Err(other),
        }
    }

    fn wrap_buffer(buffer: Self::Buffer) -> AnyBuffer {
        AnyBuffer::Wgpu(buffer)
    }

    /// The adapters, in the order `GPUARRAYS_WGPU_ADAPTER=<index>` counts them; none is the
    /// backend's own error saying which graphics APIs were searched.
    fn device_count() -> Result<usize, SourceError> {
        match gpuarrays_wgpu::adapters().len() {
            0 => Err(WgpuBackend::probe().err().map_or_else(
                || SourceError::from("wgpu found no adapter"),
                |e| Box::new(e) as SourceError,
            )),
            n => Ok(n),
        }
    }

    fn open_device(ordinal: usize) -> Result<Self, SourceError> {
        Ok(WgpuBackend::with_options(&WgpuOptions {
            adapter: Some(ordinal.to_string()),
            ..WgpuOptions::default()
        })?)
    }

    /// `GPUARRAYS_WGPU_ADAPTER`'s adapter, else a discrete GPU first.
    fn open_preferred() -> Result<Self, SourceError> {
        Ok(WgpuBackend::new()?)
    }

    fn is_software_device(&self) -> bool {
        self.adapter().device_type == "Cpu"
    }
}

/// The kind of a wrapped backend.
pub(crate) fn kind_of<V: BackendVariant>(_backend: &V) -> BackendKind {
    V::KIND
}

/// Whether a wrapped backend's device is a software one (see
/// [`BackendVariant::is_software_device`]).
pub(crate) fn is_software_device<V: BackendVariant>(backend: &V) -> bool {
    backend.is_software_device()
}

/// The device backend `V` prefers, with a typed reason when there is none.
pub(crate) fn open_preferred<V: BackendVariant>() -> Result<AnyBackend, BackendChoiceError> {
    let backend = V::open_preferred().map_err(unavailable::<V>)?;
    Ok(backend.into())
}

/// Device `ordinal` of backend `V`, with a typed reason when there is none.
pub(crate) fn open<V: BackendVariant>(ordinal: usize) -> Result<AnyBackend, BackendChoiceError> {
    let name = V::KIND.name();
    let count = device_count::<V>()?;
    if ordinal >= count {
        return Err(BackendChoiceError::NoSuchDevice {
            name,
            ordinal,
            count,
        });
    }
    let backend = V::open_device(ordinal).map_err(unavailable::<V>)?;
    Ok(backend.into())
}

/// Every device of backend `V`.
pub(crate) fn open_all<V: BackendVariant>() -> Result<Vec<AnyBackend>, BackendChoiceError> {
    (0..device_count::<V>()?)
        .map(|ordinal| {
            let backend = V::open_device(ordinal).map_err(unavailable::<V>)?;
            Ok(backend.into())
        })
        .collect()
}

fn device_count<V: BackendVariant>() -> Result<usize, BackendChoiceError> {
    let name = V::KIND.name();
    match V::device_count() {
        Ok(0) => Err(BackendChoiceError::NoDevice { name }),
        Ok(n) => Ok(n),
        Err(source) => Err(unavailable::<V>(source)),
    }
}

fn unavailable<V: BackendVariant>(source: SourceError) -> BackendChoiceError {
    BackendChoiceError::Unavailable {
        name: V::KIND.name(),
        detail: V::detail(&source),
        source,
    }
}
