//! The records of the test double's collective library: communicators, groups of ranks and
//! the parts of collectives waiting for their other ranks (inside the double's state; the
//! library's calls are `collectives.rs` and `collective_ops.rs`).

use crate::platform::{CollectiveCall, CollectiveId, DeviceId};
use std::collections::HashMap;
use std::thread::ThreadId;

/// One communicator: one rank of a group, on one device.
#[derive(Debug, Clone, Copy)]
pub(super) struct Comm {
    pub id: CollectiveId,
    pub rank: usize,
    pub device: DeviceId,
}

/// One rank's part of a collective operation, waiting for the others'.
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    pub call: CollectiveCall,
    /// The stream's uid and the part's piece of work.
    pub uid: u64,
    pub work: Option<u64>,
}

/// The ranks of one [`CollectiveId`] and their collectives not yet matched.
#[derive(Debug)]
pub(super) struct Group {
    /// The communicator handle of each rank that joined.
    pub members: Vec<Option<u64>>,
    /// Every rank has joined (stays true once it is).
    pub complete: bool,
    /// Collectives each rank enqueued so far (p2p apart).
    pub issued: Vec<u64>,
    /// The `k`-th collective's parts, by rank.
    pub pending: HashMap<u64, Vec<Option<Part>>>,
    /// Sends (and receives) enqueued so far from rank `a` to rank `b`, by `(a, b)`.
    pub sent: HashMap<(usize, usize), u64>,
    pub received: HashMap<(usize, usize), u64>,
    /// The `k`-th send from `a` to `b` and the matching receive, by `(a, b, k)`.
    pub p2p: HashMap<(usize, usize, u64), [Option<Part>; 2]>,
}

/// The collective library's state, inside the double's [`State`].
#[derive(Debug, Default)]
pub(super) struct Collectives {
    pub comms: HashMap<u64, Comm>,
    pub groups: HashMap<CollectiveId, Group>,
    /// Groups each thread joined since its outermost `group_start`, checked at `group_end`.
    pub deferred: HashMap<ThreadId, Vec<CollectiveId>>,
}

impl Collectives {
    /// Live communicators.
    pub fn comms(&self) -> usize {
        self.comms.len()
    }

    /// Remove communicator `comm` from its group (the group goes with its last member).
    pub fn leave(&mut self, comm: u64) -> Option<Comm> {
        let c = self.comms.remove(&comm)?;
        if let Some(g) = self.groups.get_mut(&c.id) {
            g.members[c.rank] = None;
            if g.members.iter().all(Option::is_none) {
                self.groups.remove(&c.id);
            }
        }
        Some(c)
    }
}
