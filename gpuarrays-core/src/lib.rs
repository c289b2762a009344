//! gpuarrays-core: element types, storage, derived arrays, the `Backend` trait and the
//! backend-neutral array operations.
//!
//! | concept | type | file |
//! |---|---|---|
//! | element types | [`Element`], [`DType`], [`Scalar`] | `element.rs`, `dtype.rs`, `scalar.rs` |
//! | storage | [`DataRef`] (refcounted buffer, destructor runs once) | `data_ref.rs` |
//! | arrays | [`Array<T, B>`], [`RawArray<B>`] | `array.rs` |
//! | derived arrays | `view`, `slice`, `reshape`, `reinterpret` | `derive.rs` |
//! | capabilities | [`Backend::supports`], [`Support`], [`ensure_supported`] | `support.rs` |
//! | the backend trait | [`Backend`] | `backend.rs` |
//! | kernel descriptions | [`kernel::Program`], [`kernel::ReduceArgs`], ... | `kernel/` |
//! | fused expressions | [`Expr`] | `ops/expr.rs` |
//! | handle cache | [`handle_cache::HandleCache`] | `handle_cache/` |

pub mod array;
pub mod backend;
pub mod data_ref;
mod derive;
pub mod device;
pub mod dtype;
pub mod element;
pub mod error;
pub mod handle_cache;
pub mod kernel;
pub mod ops;
pub mod scalar;
pub mod shape;
pub mod support;
mod sync;

pub use array::{Array, RawArray};
pub use backend::Backend;
pub use data_ref::DataRef;
pub use device::DeviceInfo;
pub use dtype::DType;
pub use element::Element;
pub use error::{Error, Result};
pub use num_complex::{Complex32, Complex64};
pub use ops::Expr;
pub use scalar::Scalar;
pub use support::{OpKind, Support, ensure_supported};
