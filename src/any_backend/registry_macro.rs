//! `backends!`: the macro that turns the table of `registry.rs` into everything that lists
//! the backends — [`BackendKind`](super::BackendKind) and its facts, the variants of
//! [`AnyBackend`](super::AnyBackend) and [`AnyBuffer`](super::AnyBuffer), the
//! `match_variant!` macro the `Backend` methods dispatch with, opening a device by kind,
//! and the `From` conversions.
//!
//! Why a macro: these lists must agree (a variant in `AnyBackend` and none in `AnyBuffer`
//! is a buffer that cannot be wrapped), and written by hand they were seven edits in six
//! files for each new backend. Generated from one table they cannot drift apart, and a new
//! backend is one row. Each list also has a `Custom` entry, for backends from outside the
//! project ([`CustomBackend`](super::CustomBackend)).

/// See the module documentation. Each row: doc comments, the variant name, then
/// `feature: "cargo feature",` (absent: always compiled in), `backend: Type, buffer: Type,
/// name: "...", description: "...", gpu: bool`.
macro_rules! backends {
    ($(
        $(#[doc = $doc:literal])*
        $V:ident {
            $(feature: $feat:literal,)?
            backend: $B:ty,
            buffer: $Buf:ty,
            name: $name:literal,
            description: $desc:literal,
            gpu: $gpu:literal $(,)?
        }
    ),* $(,)?) => {
        /// A backend of the project (or [`BackendKind::Custom`], one plugged in from outside).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum BackendKind {
            $( $(#[doc = $doc])* $V, )*
            /// A backend from outside the project, wrapped with [`AnyBackend::custom`]. Not in
            /// [`BackendKind::ALL`]: it is never opened by name.
            Custom,
        }

        impl BackendKind {
            /// Every backend of the project, in the order of the table in `registry.rs`: the
            /// CPU reference first, then the GPU backends in the order
            /// [`crate::default_backend`] prefers them.
            pub const ALL: [BackendKind; backends!(@count $($V)*)] = [$(BackendKind::$V),*];

            /// This backend's row of the table.
            pub const fn facts(self) -> BackendFacts {
                match self {
                    $( BackendKind::$V => BackendFacts {
                        name: $name,
                        description: $desc,
                        cargo_feature: backends!(@feature $($feat)?),
                        compiled: cfg!(all($(feature = $feat)?)),
                        gpu: $gpu,
                    }, )*
                    BackendKind::Custom => BackendFacts {
                        name: "custom",
                        description: "a backend from outside the project (AnyBackend::custom)",
                        cargo_feature: None,
                        compiled: true,
                        gpu: false,
                    },
                }
            }
        }

        /// One device of one of the compiled-in backends, or of a backend plugged in with
        /// [`AnyBackend::custom`]. Cheap to clone (clones share the device).
        #[derive(Clone)]
        #[non_exhaustive]
        pub enum AnyBackend {
            $( $(#[cfg(feature = $feat)])? $V($B), )*
            Custom(CustomBackend),
        }

        /// A device buffer of one of the backends of [`AnyBackend`]. A buffer only ever meets
        /// the backend variant that allocated it; a mix is `Error::DeviceMismatch`.
        #[non_exhaustive]
        pub enum AnyBuffer {
            $( $(#[cfg(feature = $feat)])? $V($Buf), )*
            Custom(CustomBuffer),
        }

        /// Runs `$body` with `$b` bound to the wrapped backend, whichever it is: the one
        /// place that lists the variants for the `Backend` methods.
        macro_rules! match_variant {
            ($any:expr, $b:ident => $body:expr) => {
                match $any {
                    $( $(#[cfg(feature = $feat)])? AnyBackend::$V($b) => $body, )*
                    AnyBackend::Custom($b) => $body,
                }
            };
        }
        pub(crate) use match_variant;

        impl AnyBuffer {
            /// The backend that allocated this buffer.
            pub fn kind(&self) -> BackendKind {
                match self {
                    $( $(#[cfg(feature = $feat)])? AnyBuffer::$V(_) => BackendKind::$V, )*
                    AnyBuffer::Custom(_) => BackendKind::Custom,
                }
            }

            /// Length in bytes.
            pub fn len(&self) -> usize {
                match self {
                    $( $(#[cfg(feature = $feat)])? AnyBuffer::$V(b) => b.len(), )*
                    AnyBuffer::Custom(b) => b.len(),
                }
            }
        }

        $(
            $(#[cfg(feature = $feat)])?
            impl From<$B> for AnyBackend {
                fn from(b: $B) -> Self {
                    AnyBackend::$V(b)
                }
            }

            $(#[cfg(feature = $feat)])?
            impl BufferSlot for $B {
                const KIND: BackendKind = BackendKind::$V;

                fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&Self::Buffer> {
                    match buffer {
                        AnyBuffer::$V(b) => Some(b),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }

                fn take_buffer(buffer: AnyBuffer) -> Result<Self::Buffer, AnyBuffer> {
                    match buffer {
                        AnyBuffer::$V(b) => Ok(b),
                        #[allow(unreachable_patterns)]
                        other => Err(other),
                    }
                }

                fn wrap_buffer(buffer: Self::Buffer) -> AnyBuffer {
                    AnyBuffer::$V(buffer)
                }
            }
        )*

        /// Opening devices by kind: `Ok(Some(..))`, or `Ok(None)` for a kind this build does
        /// not contain (the caller's "not compiled" error).
        pub(crate) mod by_kind {
            use super::*;

            pub(crate) fn open(
                kind: BackendKind,
                ordinal: usize,
            ) -> Option<Result<AnyBackend, BackendChoiceError>> {
                match kind {
                    $( $(#[cfg(feature = $feat)])? BackendKind::$V => Some(variant::open::<$B>(ordinal)), )*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            pub(crate) fn open_preferred(
                kind: BackendKind,
            ) -> Option<Result<AnyBackend, BackendChoiceError>> {
                match kind {
                    $( $(#[cfg(feature = $feat)])? BackendKind::$V => Some(variant::open_preferred::<$B>()), )*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            pub(crate) fn open_all(
                kind: BackendKind,
            ) -> Option<Result<Vec<AnyBackend>, BackendChoiceError>> {
                match kind {
                    $( $(#[cfg(feature = $feat)])? BackendKind::$V => Some(variant::open_all::<$B>()), )*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
    };
    (@count) => { 0 };
    (@count $x:ident $($rest:ident)*) => { 1 + backends!(@count $($rest)*) };
    (@feature) => { None };
    (@feature $f:literal) => { Some($f) };
}
