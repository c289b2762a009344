//! Streams: per-thread streams from a pool per device × priority, recycled when their thread
//! ends (the stream-recycling design: docs/architecture.md).
//!
//! A Rust thread plays the role of a Julia task: its default stream for a device is taken
//! lazily from the pool at first use and returned when the thread exits. Long-lived workers
//! keep theirs; task-parallel code uses explicit streams scoped with [`with_stream`].
//!
//! Code that hands a thread's stream to another thread should create an explicit stream
//! instead ([`crate::HipRuntime::create_stream`]): a pooled stream is passed on to another
//! thread after its owner ends.

mod capture;
mod events;
mod owner;
mod priority;
mod recording;
mod registry;
mod shared_stream;
mod stream_pool;
mod thread;
mod use_record;

pub use capture::active_captures;
pub use events::EventPool;
pub use owner::OwnerToken;
pub use priority::StreamPriority;
pub use recording::GraphRecording;
pub use shared_stream::Stream;
pub use stream_pool::{StreamPool, StreamPoolStats};
pub use thread::{current_priority, leased_stream_count, with_priority, with_stream};
pub use use_record::{BufferUses, Use};

pub(crate) use capture::{CaptureEndListener, captures_active, on_capture_end};
pub(crate) use recording::{RecordingMemory, Touched};
pub(crate) use registry::StreamRegistry;
pub(crate) use shared_stream::Origin;
pub(crate) use thread::{streams_to_synchronize, thread_stream};
pub(crate) use use_record::Waited;
