//! Raw handle → pooled `Stream`, so that wrapping the raw handle of a pooled stream returns
//! the pool's object (and the wrapper sees recycling through its generation).
//!
//! Drivers reuse the handle values of destroyed streams, so a value maps to a pooled stream
//! only while that stream lives and was not destroyed: a destroyed pooled stream (through
//! [`Stream::destroy`], or found destroyed behind the pool's back) never answers for the
//! value again, even while records still hold its object. (A stream destroyed behind our
//! back and not yet queried cannot be told apart from the new stream with its value; that
//! is the cost of destroying pooled streams through the driver.)

use super::shared_stream::{Stream, StreamInner};
use crate::platform::StreamHandle;
use crate::sync::Mutex;
use std::collections::HashMap;
use std::sync::Weak;

#[derive(Default)]
pub(crate) struct StreamRegistry {
    map: Mutex<HashMap<StreamHandle, Weak<StreamInner>>>,
}

impl StreamRegistry {
    /// Remember a pooled stream. A dead entry with the same handle (a destroyed stream whose
    /// handle value was reused) is replaced.
    pub fn insert(&self, stream: &Stream) {
        let mut map = self.map.lock();
        if map.len() >= 256 && map.len().is_power_of_two() {
            map.retain(|_, w| w.strong_count() > 0);
        }
        map.insert(stream.handle(), std::sync::Arc::downgrade(&stream.0));
    }

    /// The live pooled stream with this handle, if any.
    pub fn lookup(&self, handle: StreamHandle) -> Option<Stream> {
        let map = self.map.lock();
        let stream = Stream(map.get(&handle)?.upgrade()?);
        (!stream.is_destroyed()).then_some(stream)
    }
}
