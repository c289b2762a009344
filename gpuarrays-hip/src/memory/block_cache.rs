//! `BlockCache`: freed blocks of one device kept for reuse, by size class, with the events
//! that say when every use of each block has completed.
//!
//! A block carries one event per stream that may still have used it when it was freed
//! (recorded at the free on that stream). It may be reused:
//! - on a stream that has one of those events (the same stream *object* — never compared by
//!   raw handle value, which drivers reuse after a destroy): at once, after making that
//!   stream wait device-side for the block's other events that have not completed yet;
//! - on any other stream: once every event has completed (queried, never waited for);
//! - a block without events (every use had completed) on any stream at once.

use super::size_class::class_size;
use crate::platform::{DevicePtr, EventHandle, Platform, WorkStatus};
use crate::stream::{EventPool, Stream};
use smallvec::SmallVec;
use std::collections::{BTreeMap, VecDeque};

/// The events of one freed block: (stream, event recorded on it at the free).
pub(crate) type BlockEvents = SmallVec<[(Stream, EventHandle); 2]>;

/// One cached block.
pub(crate) struct Block {
    pub ptr: DevicePtr,
    pub bytes: usize,
    pub events: BlockEvents,
}

/// How many cached blocks of a class are checked for completed events per allocation.
const EVENT_PROBES: usize = 4;

/// The cache of one device (behind the memory pool's lock).
#[derive(Default)]
pub(crate) struct BlockCache {
    buckets: BTreeMap<usize, Vec<Block>>,
    bytes: usize,
    blocks: usize,
    /// Eviction order (oldest first): (class, ptr).
    order: VecDeque<(usize, DevicePtr)>,
}

impl BlockCache {
    /// Bytes and blocks cached.
    pub fn totals(&self) -> (usize, usize) {
        (self.bytes, self.blocks)
    }

    /// Keep a freed block.
    pub fn insert(&mut self, block: Block) {
        self.bytes += block.bytes;
        self.blocks += 1;
        self.order.push_back((block.bytes, block.ptr));
        self.buckets.entry(block.bytes).or_default().push(block);
    }

    /// A block of `class` bytes usable on `stream` now, by the rules of the module
    /// documentation. Waits it needs are enqueued on `stream`; its events go back to
    /// `events`.
    pub fn take(
        &mut self,
        class: usize,
        stream: &Stream,
        platform: &dyn Platform,
        events: &EventPool,
    ) -> Option<DevicePtr> {
        debug_assert_eq!(Some(class), class_size(class));
        let bucket = self.buckets.get_mut(&class)?;
        let on_same_stream = bucket
            .iter()
            .rposition(|b| b.events.iter().any(|(s, _)| s.same_as(stream)));
        let pos = match on_same_stream {
            Some(i) => {
                // Stream order covers this stream's own event; wait for the others.
                let waits_ok = bucket[i].events.iter().all(|(s, e)| {
                    s.same_as(stream)
                        || platform.query_event(*e) == WorkStatus::Ready
                        || platform.stream_wait_event(stream.handle(), *e).is_ok()
                });
                waits_ok.then_some(i)
            }
            None => None,
        }
        .or_else(|| {
            bucket.iter().take(EVENT_PROBES).position(|b| {
                b.events
                    .iter()
                    .all(|(_, e)| platform.query_event(*e) == WorkStatus::Ready)
            })
        })?;
        let block = bucket.swap_remove(pos);
        self.bytes -= block.bytes;
        self.blocks -= 1;
        self.order.retain(|o| o.1 != block.ptr);
        for (_, e) in block.events {
            events.put(e);
        }
        Some(block.ptr)
    }

    /// Remove the oldest blocks until at most `max` bytes are cached; returns them.
    pub fn evict_to(&mut self, max: usize) -> Vec<Block> {
        let mut victims = Vec::new();
        while self.bytes > max {
            let Some((class, ptr)) = self.order.pop_front() else {
                break;
            };
            let Some(bucket) = self.buckets.get_mut(&class) else {
                continue;
            };
            if let Some(i) = bucket.iter().position(|b| b.ptr == ptr) {
                let b = bucket.swap_remove(i);
                self.bytes -= b.bytes;
                self.blocks -= 1;
                victims.push(b);
            }
        }
        victims
    }

    /// Remove every block.
    pub fn drain(&mut self) -> Vec<Block> {
        self.bytes = 0;
        self.blocks = 0;
        self.order.clear();
        std::mem::take(&mut self.buckets)
            .into_values()
            .flatten()
            .collect()
    }
}
