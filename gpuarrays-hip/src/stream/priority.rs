//! Stream priorities, and their mapping onto a device's numeric range.

use crate::platform::PriorityRange;

/// The priority of a thread's stream. Each priority has its own pool per device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum StreamPriority {
    /// The lowest priority the device offers.
    Low,
    /// The platform's default priority (the thread's default stream).
    #[default]
    Normal,
    /// The highest priority the device offers.
    High,
}

impl StreamPriority {
    /// Every priority, in pool-index order.
    pub const ALL: [StreamPriority; 3] = [
        StreamPriority::Low,
        StreamPriority::Normal,
        StreamPriority::High,
    ];

    /// Index of this priority's pool.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The numeric priority on a device with `range` (lower numbers are higher priority on
    /// both platforms; the default 0 is clamped into the range).
    pub fn numeric(self, range: PriorityRange) -> i32 {
        let (hi, lo) = (
            range.greatest.min(range.least),
            range.greatest.max(range.least),
        );
        match self {
            StreamPriority::Low => range.least,
            StreamPriority::Normal => 0i32.clamp(hi, lo),
            StreamPriority::High => range.greatest,
        }
    }
}
