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
//!
//! The backends are listed once, in the table of `registry.rs`, from which the enums and
//! the dispatch are generated (`registry_macro.rs`); adding a backend to the facade is a row
//! and an `impl BackendVariant` there. A backend from outside the project joins through
//! [`AnyBackend::custom`] (`custom.rs`: a trait object behind the `Custom` variant). What
//! tools ask of a device beyond the `Backend` trait (info lines, a device timer, the matmul
//! route) is asked of every backend alike (`extras.rs`).

#[macro_use]
mod registry_macro;

mod buffer;
mod choice;
mod custom;
mod dispatch;
mod error;
mod extras;
mod kind;
mod registry;
mod variant;

pub use choice::{
    BACKEND_ENV, BackendChoice, choose_backend, default_backend, default_backend_choice,
};
pub use custom::{CustomBackend, CustomBuffer, DynBackend};
pub use error::BackendChoiceError;
pub use extras::EventTimer;
pub use kind::BackendFacts;
pub(crate) use registry::match_variant;
pub use registry::{AnyBackend, AnyBuffer, BackendKind};

use gpuarrays_cpu_ref::CpuBackend;
#[cfg(feature = "hip")]
use gpuarrays_hip::HipBackend;
#[cfg(feature = "wgpu")]
use gpuarrays_wgpu::WgpuBackend;

impl AnyBackend {
    /// A new CPU reference device (always available).
    pub fn cpu() -> AnyBackend {
        AnyBackend::Cpu(CpuBackend::new())
    }

    /// Device `ordinal` of backend `kind`, or why it cannot be opened here.
    pub fn open(kind: BackendKind, ordinal: usize) -> Result<AnyBackend, BackendChoiceError> {
        registry::by_kind::open(kind, ordinal).unwrap_or_else(|| Err(not_compiled(kind)))
    }

    /// The device backend `kind` prefers (HIP: device 0; wgpu: the adapter
    /// `GPUARRAYS_WGPU_ADAPTER` names, else a discrete GPU first), or why there is none here.
    pub fn open_preferred(kind: BackendKind) -> Result<AnyBackend, BackendChoiceError> {
        registry::by_kind::open_preferred(kind).unwrap_or_else(|| Err(not_compiled(kind)))
    }

    /// Whether this is a GPU backend on a software device running on the CPU (wgpu on Mesa's
    /// llvmpipe), which [`default_backend`](crate::default_backend) passes over.
    pub fn is_software_device(&self) -> bool {
        match_variant!(self, b => variant::is_software_device(b))
    }

    /// Every device of backend `kind`, or why there is none here.
    pub fn open_all(kind: BackendKind) -> Result<Vec<AnyBackend>, BackendChoiceError> {
        registry::by_kind::open_all(kind).unwrap_or_else(|| Err(not_compiled(kind)))
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

impl std::fmt::Debug for AnyBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let device = match_variant!(self, b => gpuarrays_core::Backend::device(b));
        write!(f, "AnyBackend({device})")
    }
}
