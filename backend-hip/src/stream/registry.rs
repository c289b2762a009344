//! Raw handle → pooled `Stream`, so that wrapping the raw handle of a pooled stream returns
//! the pool's object (and the wrapper sees recycling through its generation).

use super::shared_stream::{Stream, StreamInner};
use crate::platform::StreamHandle;
use parking_lot::Mutex;
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
        let inner = map.get(&handle)?.upgrade()?;
        Some(Stream(inner))
    }
}
