//! `AnyBackend`: one type over the backends compiled into this build, chosen at run time.
//!
//! Array code is written once, generic over `B: Backend`; [`AnyBackend`] is the `B` for a
//! program that picks its device when it starts ([`default_backend`](crate::default_backend):
//! the best available GPU, else the CPU; `GPUARRAYS_BACKEND=cpu|hip|wgpu|hip:1` forces one). It is
//! an enum, not a trait object, so `Array<f32, AnyBackend>` keeps every generic operation and
//! a call costs one `match` plus re-typing the kernel description's buffer references
//! (measured against the direct backend in `benches/cpu_vs_ndarray.rs` and
//! `benches/hip_kernels.rs`).
//!
//! A buffer meets only the variant that allocated it: core already refuses operands of two
//! devices (`Error::DeviceMismatch`), and a buffer of another variant reaching a backend
//! method is the same typed error, never a panic.

mod buffer;
mod choice;
mod dispatch;
mod error;
mod kind;
mod retype;
mod variant;

pub use buffer::AnyBuffer;
pub use choice::{
    BACKEND_ENV, BackendChoice, choose_backend, default_backend, default_backend_choice,
};
pub use error::BackendChoiceError;
pub use kind::{BackendFacts, BackendKind};

use gpuarrays_cpu_ref::CpuBackend;
#[cfg(feature = "hip")]
use gpuarrays_hip::HipBackend;
#[cfg(feature = "wgpu")]
use gpuarrays_wgpu::WgpuBackend;

/// One device of one of the compiled-in backends. Cheap to clone (clones share the device).
#[derive(Clone)]
#[non_exhaustive]
pub enum AnyBackend {
    Cpu(CpuBackend),
    #[cfg(feature = "hip")]
    Hip(HipBackend),
    #[cfg(feature = "wgpu")]
    Wgpu(WgpuBackend),
}

/// Runs `$body` with `$b` bound to the wrapped backend, whichever it is: the one place that
/// lists the variants for the `Backend` methods.
macro_rules! match_variant {
    ($any:expr, $b:ident => $body:expr) => {
        match $any {
            AnyBackend::Cpu($b) => $body,
            #[cfg(feature = "hip")]
            AnyBackend::Hip($b) => $body,
            #[cfg(feature = "wgpu")]
            AnyBackend::Wgpu($b) => $body,
        }
    };
}
pub(crate) use match_variant;

impl AnyBackend {
    /// A new CPU reference device (always available).
    pub fn cpu() -> AnyBackend {
        AnyBackend::Cpu(CpuBackend::new())
    }

    /// Device `ordinal` of backend `kind`, or why it cannot be opened here.
    pub fn open(kind: BackendKind, ordinal: usize) -> Result<AnyBackend, BackendChoiceError> {
        match kind {
            BackendKind::Cpu => variant::open::<CpuBackend>(ordinal),
            #[cfg(feature = "hip")]
            BackendKind::Hip => variant::open::<HipBackend>(ordinal),
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => variant::open::<WgpuBackend>(ordinal),
            #[allow(unreachable_patterns)]
            other => Err(not_compiled(other)),
        }
    }

    /// The device backend `kind` prefers (HIP: device 0; wgpu: the adapter
    /// `GPUARRAYS_WGPU_ADAPTER` names, else a discrete GPU first), or why there is none here.
    pub fn open_preferred(kind: BackendKind) -> Result<AnyBackend, BackendChoiceError> {
        match kind {
            BackendKind::Cpu => variant::open_preferred::<CpuBackend>(),
            #[cfg(feature = "hip")]
            BackendKind::Hip => variant::open_preferred::<HipBackend>(),
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => variant::open_preferred::<WgpuBackend>(),
            #[allow(unreachable_patterns)]
            other => Err(not_compiled(other)),
        }
    }

    /// Whether this is a GPU backend on a software device running on the CPU (wgpu on Mesa's
    /// llvmpipe), which [`default_backend`](crate::default_backend) passes over.
    pub fn is_software_device(&self) -> bool {
        match_variant!(self, b => variant::is_software_device(b))
    }

    /// Every device of backend `kind`, or why there is none here.
    pub fn open_all(kind: BackendKind) -> Result<Vec<AnyBackend>, BackendChoiceError> {
        match kind {
            BackendKind::Cpu => variant::open_all::<CpuBackend>(),
            #[cfg(feature = "hip")]
            BackendKind::Hip => variant::open_all::<HipBackend>(),
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => variant::open_all::<WgpuBackend>(),
            #[allow(unreachable_patterns)]
            other => Err(not_compiled(other)),
        }
    }

    /// Which backend this is.
    pub fn kind(&self) -> BackendKind {
        match_variant!(self, b => variant::kind_of(b))
    }

    /// The CPU backend inside, if this is one.
    pub fn as_cpu(&self) -> Option<&CpuBackend> {
        match self {
            AnyBackend::Cpu(b) => Some(b),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The HIP backend inside, if this is one.
    #[cfg(feature = "hip")]
    pub fn as_hip(&self) -> Option<&HipBackend> {
        match self {
            AnyBackend::Hip(b) => Some(b),
            _ => None,
        }
    }

    /// The WebGPU backend inside, if this is one.
    #[cfg(feature = "wgpu")]
    pub fn as_wgpu(&self) -> Option<&WgpuBackend> {
        match self {
            AnyBackend::Wgpu(b) => Some(b),
            _ => None,
        }
    }
}

fn not_compiled(kind: BackendKind) -> BackendChoiceError {
    BackendChoiceError::NotCompiled {
        name: kind.name(),
        feature: kind.facts().cargo_feature.unwrap_or("default"),
    }
}

impl From<CpuBackend> for AnyBackend {
    fn from(b: CpuBackend) -> Self {
        AnyBackend::Cpu(b)
    }
}

#[cfg(feature = "hip")]
impl From<HipBackend> for AnyBackend {
    fn from(b: HipBackend) -> Self {
        AnyBackend::Hip(b)
    }
}

#[cfg(feature = "wgpu")]
impl From<WgpuBackend> for AnyBackend {
    fn from(b: WgpuBackend) -> Self {
        AnyBackend::Wgpu(b)
    }
}

impl std::fmt::Debug for AnyBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let device = match_variant!(self, b => gpuarrays_core::Backend::device(b));
        write!(f, "AnyBackend({device})")
    }
}
