//! The backends of the project, compiled into this build or not, by name.
//!
//! One table row per backend ([`BackendKind::facts`], generated from the table in
//! `registry.rs` with the enum itself): its name (what `GPUARRAYS_BACKEND`
//! and `gpuarrays validate --backend` accept), a one-line description, the cargo feature that
//! compiles it in, and whether it runs on a GPU. Knowing the backends that are *not*
//! compiled in lets a request for one say which feature to enable instead of "unknown".

use std::fmt;
use std::str::FromStr;

use super::BackendKind;
use super::error::BackendChoiceError;

/// What is known about a backend without opening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackendFacts {
    /// Short lowercase name, e.g. "cpu", "hip".
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// The facade's cargo feature that compiles it in (`None`: always compiled in).
    pub cargo_feature: Option<&'static str>,
    /// Whether this build contains it.
    pub compiled: bool,
    /// Whether it runs on a GPU (preferred by [`crate::default_backend`]).
    pub gpu: bool,
}

impl BackendKind {
    pub const fn name(self) -> &'static str {
        self.facts().name
    }

    pub const fn is_compiled(self) -> bool {
        self.facts().compiled
    }

    pub const fn is_gpu(self) -> bool {
        self.facts().gpu
    }

    /// The backends compiled into this build, in [`BackendKind::ALL`] order.
    pub fn compiled() -> impl Iterator<Item = BackendKind> {
        BackendKind::ALL.into_iter().filter(|k| k.is_compiled())
    }

    /// The names of the compiled-in backends, e.g. "cpu, hip".
    pub fn compiled_names() -> String {
        BackendKind::compiled()
            .map(BackendKind::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The backend named `name` (exact, lowercase), compiled in or not.
    pub fn from_name(name: &str) -> Option<BackendKind> {
        BackendKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl FromStr for BackendKind {
    type Err = BackendChoiceError;

    /// A backend name, compiled in or not (opening one that is not compiled in is the
    /// error); anything else is [`BackendChoiceError::Unknown`].
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        BackendKind::from_name(name).ok_or_else(|| BackendChoiceError::Unknown {
            name: name.to_string(),
            compiled: BackendKind::compiled_names(),
        })
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for kind in BackendKind::ALL {
            assert_eq!(kind.name().parse::<BackendKind>().ok(), Some(kind));
            assert_eq!(
                BackendKind::ALL
                    .iter()
                    .filter(|k| k.name() == kind.name())
                    .count(),
                1
            );
        }
        assert!(matches!(
            "CPU".parse::<BackendKind>(),
            Err(BackendChoiceError::Unknown { .. })
        ));
    }

    #[test]
    fn the_cpu_is_always_compiled_and_every_gpu_backend_has_a_feature() {
        assert!(BackendKind::Cpu.is_compiled());
        assert_eq!(BackendKind::compiled().next(), Some(BackendKind::Cpu));
        for kind in BackendKind::ALL.into_iter().filter(|k| k.is_gpu()) {
            assert!(kind.facts().cargo_feature.is_some(), "{kind}");
        }
    }
}
