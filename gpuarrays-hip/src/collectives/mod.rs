//! Collectives on arrays across devices and processes, through NCCL (NVIDIA) or RCCL (AMD),
//! loaded at run time behind the platform layer ([`crate::platform::CollectiveLibrary`]).
//!
//! | file | what |
//! |---|---|
//! | `communicator.rs` | [`Communicator`]: one rank of a group on one device; making groups of this process's devices, or joining one spread over processes |
//! | `bootstrap.rs` | [`bootstrap`]: how ranks in separate processes agree on the group id (environment variable, file, TCP) and find their rank |
//! | `array_ops.rs` | all-reduce, reduce, broadcast, all-gather, reduce-scatter, send and receive of arrays, ordered like kernels |
//! | `group.rs` | [`group`]: one thread issuing several ranks' collectives together |
//!
//! ```no_run
//! use gpuarrays_core::Array;
//! use gpuarrays_hip::HipBackend;
//! use gpuarrays_hip::collectives::{Communicator, ReduceOp, group};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Every device of this process is one rank.
//! let devices = HipBackend::all()?;
//! let comms = Communicator::for_devices(&devices)?;
//! let grads: Vec<_> = devices
//!     .iter()
//!     .map(|d| Array::<f32, _>::full(d, &[1 << 20], 1.0))
//!     .collect::<Result<_, _>>()?;
//! // One thread drives every rank: their collectives go in one group.
//! let summed = group(&devices[0], || {
//!     comms.iter().zip(&grads).map(|(c, g)| c.all_reduce(g, ReduceOp::Sum)).collect::<Result<Vec<_>, _>>()
//! })?;
//! assert_eq!(summed[0].to_vec()?[0], devices.len() as f32);
//! # Ok(())
//! # }
//! ```

mod array_ops;
pub mod bootstrap;
mod communicator;
mod group;

pub use crate::platform::{CollectiveId, ReduceOp};
pub use communicator::Communicator;
pub use group::group;
