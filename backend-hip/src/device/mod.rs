//! One device's runtime state and the buffers that live on it.
//!
//! - [`DeviceState`] (`state.rs`): properties, one stream pool per priority, recycled events
//!   and the memory pool of one device (multi-GPU: nothing is shared between devices);
//! - [`DeviceBuffer`] (`buffer.rs`): one allocation of that device with the record of its last
//!   use; dropping it frees into the device's memory pool by the `LastUse` rules.
//!
//! The two sit together because a buffer holds its device's whole state (to free on the
//! right stream from any thread) and the state hands out buffers: an owner and its guard.
//! The layers below, [`crate::memory`] and [`crate::stream`], never see either.

mod buffer;
mod state;

pub use buffer::DeviceBuffer;
pub(crate) use state::DeviceSetup;
pub use state::DeviceState;
