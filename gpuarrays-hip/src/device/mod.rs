//! One device's runtime state and the buffers that live on it.
//!
//! - [`DeviceState`] (`state.rs`): properties, one stream pool per priority, recycled events
//!   and the memory pool of one device (multi-GPU: nothing is shared between devices);
//! - [`DeviceBuffer`] (`buffer.rs`): one allocation of that device with the record of every
//!   stream that may still use it; dropping it frees into the device's memory pool, which
//!   reuses the memory only after all of them;
//! - the ordering protocol, [`DeviceState::enqueue`] (`enqueue.rs`): the one step in which an
//!   operation's operands are ordered, its work enqueued and its uses recorded;
//! - the same protocol for one operation reading a buffer of one device and writing one of
//!   another ([`enqueue_across`], `enqueue_across.rs`: peer copies);
//! - copies between a buffer and pageable host memory (`staged_copy.rs`): large ones go
//!   through a pipeline of pinned chunks, as one operation of that protocol.
//!
//! They sit together because a buffer holds its device's whole state (to free on the right
//! stream from any thread) and the state hands out buffers and orders work on them. The
//! layers below, [`crate::memory`] and [`crate::stream`], never see either.

mod buffer;
mod enqueue;
mod enqueue_across;
mod staged_copy;
mod state;

pub use buffer::DeviceBuffer;
pub(crate) use buffer::refuse_capture;
pub use enqueue::{Access, AccessKind};
pub use enqueue_across::{DestinationSide, SourceSide, enqueue_across};
pub(crate) use state::DeviceSetup;
pub use state::DeviceState;
