//! Use-record rules (recycled streams, ordering after another thread's use, graph capture
//! with a concurrent free) and the caching memory pool (reuse rules, out-of-memory, capture).
//! Double and, where present, GPU.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use gpuarrays_hip::memory::class_size;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp};
use gpuarrays_hip::platform::{CaptureMode, WorkStatus};
use gpuarrays_hip::{Access, HipError, RuntimeConfig, StreamPriority, Use};
use std::sync::Arc;

mod memory_pool;
mod use_records;
