//! Stream pool tests: what stream recycling must guarantee (reuse of finished threads' streams,
//! distinct streams for live threads, the idle cap, priority switches, streams in an error
//! state or destroyed by the user, wrapped handles). Each runs on the test double and, where a
//! GPU is present, on the real platform.

mod common;
#[path = "stream_pool/creation.rs"]
mod creation;
#[path = "stream_pool/devices_and_sync.rs"]
mod devices_and_sync;
#[path = "stream_pool/explicit_streams.rs"]
mod explicit_streams;
#[path = "stream_pool/ownership.rs"]
mod ownership;
#[path = "stream_pool/priorities.rs"]
mod priorities;
#[path = "stream_pool/reuse.rs"]
mod reuse;
#[path = "stream_pool/stream_health.rs"]
mod stream_health;

use common::*;
use gpuarrays_hip::platform::test_double::FakeConfig;
use gpuarrays_hip::platform::{StreamHandle, WorkStatus};
use gpuarrays_hip::stream::leased_stream_count;
use gpuarrays_hip::{RuntimeConfig, StreamPriority, with_priority, with_stream};
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn normal_stats(h: &Harness) -> gpuarrays_hip::StreamPoolStats {
    h.rt.device(D0)
        .unwrap()
        .pool(StreamPriority::Normal)
        .stats()
}
