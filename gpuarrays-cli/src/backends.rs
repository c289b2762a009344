//! The backends the CLI lists and validates: every compiled-in [`BackendKind`], opened
//! through the facade's [`AnyBackend`], so a backend added to the facade appears here with no
//! change to the CLI.

use gpuarrays::conformance::{self, SuiteConfig, SuiteReport};
use gpuarrays::{AnyBackend, Backend, BackendChoiceError, BackendKind, DType, OpKind, Support};

/// What a backend's results are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The CPU reference: checked against the conformance suite's scalar oracle.
    Reference,
    /// A GPU backend: checked against the CPU reference.
    Gpu,
}

impl Role {
    pub fn of(kind: BackendKind) -> Role {
        if kind == BackendKind::Cpu {
            Role::Reference
        } else {
            Role::Gpu
        }
    }

    /// What the suite compares this role's results with.
    pub fn reference(self) -> &'static str {
        match self {
            Role::Reference => "the scalar oracle",
            Role::Gpu => "the CPU reference",
        }
    }
}

/// Every device of `kind`, or why there is none here.
pub fn probe(kind: BackendKind) -> Result<Vec<AnyBackend>, BackendChoiceError> {
    AnyBackend::open_all(kind)
}

/// One answer of [`Backend::supports`].
#[derive(Debug, Clone, PartialEq)]
pub struct Capability {
    pub dtype: DType,
    pub op: OpKind,
    pub support: Support,
}

/// Every (element type, operation kind) answer of `backend`.
pub fn capabilities<B: Backend>(backend: &B) -> Vec<Capability> {
    DType::ALL
        .iter()
        .flat_map(|&dtype| {
            OpKind::ALL.iter().map(move |&op| Capability {
                dtype,
                op,
                support: backend.supports(dtype, op),
            })
        })
        .collect()
}

/// The conformance suite on one device, against the reference of its [`Role`].
pub fn run_suite(device: &AnyBackend, cfg: &SuiteConfig) -> SuiteReport {
    match Role::of(device.kind()) {
        Role::Reference => conformance::run_against_oracle(device, cfg),
        Role::Gpu => conformance::run(device, cfg),
    }
}
