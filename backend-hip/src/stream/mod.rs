//! Streams: per-thread streams from a pool per device × priority, recycled when their thread
//! ends (the stream-recycling design: DESIGN.md, "Stream pool").
//!
//! A Rust thread plays the role of a Julia task: its default stream for a device is taken
//! lazily from the pool at first use and returned when the thread exits. Long-lived workers
//! keep theirs; task-parallel code uses explicit streams scoped with [`with_stream`].
//!
//! Code that hands a thread's stream to another thread should create an explicit stream
//! instead ([`crate::HipRuntime::create_stream`]): a pooled stream is passed on to another
//! thread after its owner ends.

mod events;
mod last_use;
mod priority;
mod registry;
mod shared_stream;
mod stream_pool;
mod thread;

pub use events::EventPool;
pub use last_use::LastUse;
pub use priority::StreamPriority;
pub use shared_stream::Stream;
pub use stream_pool::{StreamPool, StreamPoolStats};
pub use thread::{current_priority, leased_stream_count, with_priority, with_stream};

pub(crate) use registry::StreamRegistry;
pub(crate) use shared_stream::Origin;
pub(crate) use thread::thread_stream;
