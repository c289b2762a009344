//! The test double's collective library (NCCL/RCCL): groups of ranks keyed by their
//! [`CollectiveId`], communicators, and collectives computed on the host from the double's
//! memory.
//!
//! Joining blocks until every rank of the group has joined, as `ncclCommInitRank` does,
//! except between `group_start` and `group_end` on one thread, where `group_end` waits
//! instead. Each waits at most the double's sync timeout, then fails ("would deadlock").
//!
//! The collectives themselves (matching the ranks' parts, computing the results) are
//! `collective_ops.rs`.

use super::collective_records::{Comm, Group};
use super::state::State;
use super::{FakePlatform, SYNC_TIMEOUT, api, no_such};
use crate::error::{HipError, Result};
use crate::platform::{CollectiveId, CommHandle, DeviceId, codes};
use parking_lot::MutexGuard;
use std::cell::Cell;
use std::collections::HashMap;
use std::time::Instant;

thread_local! {
    /// `group_start` nesting depth of this thread (NCCL's is per thread too).
    static GROUP_DEPTH: Cell<usize> = const { Cell::new(0) };
}

impl FakePlatform {
    /// `LibraryNotFound` unless the fake collective library is installed.
    pub(super) fn collectives_check(&self) -> Result<()> {
        if self.config.collectives_available {
            return Ok(());
        }
        Err(HipError::LibraryNotFound {
            platform: crate::platform::PlatformKind::TestDouble,
            library: "the test double's collective library (NCCL/RCCL)",
            provider: "NCCL (NVIDIA) or RCCL (ROCm)",
            tried: vec!["FakeConfig::collectives_available is false".into()],
            hint: "install NCCL (NVIDIA) or RCCL (ROCm); here, set FakeConfig::collectives_available",
        })
    }

    pub(super) fn fake_comm_init_rank(
        &self,
        device: DeviceId,
        ranks: usize,
        id: &CollectiveId,
        rank: usize,
    ) -> Result<CommHandle> {
        let call = "comm_init_rank";
        self.collectives_check()?;
        self.check_device(device)?;
        if ranks == 0 || rank >= ranks {
            let why = format!("rank {rank} of {ranks} ranks");
            return Err(api(call, codes::INVALID_VALUE, &why));
        }
        let mut st = self.state.lock();
        let handle = st.handle();
        let c = &mut st.collectives;
        let g = c.groups.entry(*id).or_insert_with(|| Group {
            members: vec![None; ranks],
            complete: false,
            issued: vec![0; ranks],
            pending: HashMap::new(),
            sent: HashMap::new(),
            received: HashMap::new(),
            p2p: HashMap::new(),
        });
        if g.members.len() != ranks {
            let why = format!("group {id:?} has {} ranks, not {ranks}", g.members.len());
            return Err(api(call, codes::INVALID_VALUE, &why));
        }
        if g.members[rank].is_some() {
            let why = format!("rank {rank} of group {id:?} is taken");
            return Err(api(call, codes::INVALID_VALUE, &why));
        }
        g.members[rank] = Some(handle);
        g.complete |= g.members.iter().all(Option::is_some);
        c.comms.insert(
            handle,
            Comm {
                id: *id,
                rank,
                device,
            },
        );
        self.changed.notify_all();
        if GROUP_DEPTH.get() > 0 {
            let me = std::thread::current().id();
            c.deferred.entry(me).or_default().push(*id);
        } else if let Err(e) = self.wait_joined(&mut st, &[*id], call) {
            st.collectives.leave(handle);
            return Err(e);
        }
        Ok(CommHandle(handle))
    }

    /// Wait until every group in `ids` has all its ranks (or is gone), for the sync timeout.
    fn wait_joined(
        &self,
        st: &mut MutexGuard<'_, State>,
        ids: &[CollectiveId],
        call: &'static str,
    ) -> Result<()> {
        let deadline = Instant::now() + SYNC_TIMEOUT;
        loop {
            let groups = &st.collectives.groups;
            let missing = ids
                .iter()
                .filter_map(|id| groups.get(id).filter(|g| !g.complete))
                .map(|g| g.members.iter().filter(|m| m.is_none()).count())
                .sum::<usize>();
            if missing == 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(HipError::TestDouble(format!(
                    "{call}: {missing} rank(s) had not joined within {SYNC_TIMEOUT:?} \
                     (would deadlock)"
                )));
            }
            self.changed.wait_until(st, deadline);
        }
    }

    pub(super) fn fake_comm_destroy(&self, comm: CommHandle) -> Result<()> {
        self.collectives_check()?;
        let gone = self.state.lock().collectives.leave(comm.0);
        gone.map(drop)
            .ok_or_else(|| no_such("comm_destroy", "communicator"))
    }

    pub(super) fn fake_group_start(&self) -> Result<()> {
        self.collectives_check()?;
        GROUP_DEPTH.set(GROUP_DEPTH.get() + 1);
        Ok(())
    }

    pub(super) fn fake_group_end(&self) -> Result<()> {
        self.collectives_check()?;
        let depth = GROUP_DEPTH.get();
        if depth == 0 {
            let why = "group_end without group_start";
            return Err(api("group_end", codes::INVALID_VALUE, why));
        }
        GROUP_DEPTH.set(depth - 1);
        if depth > 1 {
            return Ok(());
        }
        let mut st = self.state.lock();
        let me = std::thread::current().id();
        let ids = st.collectives.deferred.remove(&me).unwrap_or_default();
        self.wait_joined(&mut st, &ids, "group_end")
    }
}
