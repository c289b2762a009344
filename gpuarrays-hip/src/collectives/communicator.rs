//! `Communicator`: one rank of a collective group, bound to one device (a [`HipBackend`]).
//!
//! Three ways to make one, for the three ways programs are laid out:
//! - every rank in this process, one device each ([`Communicator::for_devices`]): the group
//!   id never leaves the process;
//! - one rank per process (or per thread) that already agreed on the id
//!   ([`Communicator::join`], with [`Communicator::new_id`] on rank 0);
//! - one rank per process started by a launcher ([`Communicator::from_env`]): the rank and
//!   group size from the launcher's variables, the id shared through
//!   [`super::bootstrap::Bootstrap`].

use super::bootstrap::{Bootstrap, RankInfo};
use crate::HipBackend;
use crate::error::{HipError, Result};
use crate::platform::{CollectiveId, CommHandle, Platform};
use std::sync::Arc;

/// One rank of a collective group on one device. Collectives on arrays are its methods
/// (`array_ops.rs`); dropping it waits for the device's work and destroys the communicator.
///
/// `Send` but not `Sync`: NCCL and RCCL do not allow two threads to issue calls on one
/// communicator at the same time, so a communicator is used by one thread at a time (move
/// it to the thread that drives its rank).
pub struct Communicator {
    backend: HipBackend,
    comm: CommHandle,
    rank: usize,
    ranks: usize,
    _one_thread_at_a_time: std::marker::PhantomData<std::cell::Cell<()>>,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("device", &self.backend.device_state().id())
            .field("rank", &self.rank)
            .field("ranks", &self.ranks)
            .finish()
    }
}

fn platform(backend: &HipBackend) -> &Arc<dyn Platform> {
    backend.device_state().platform()
}

impl Communicator {
    /// A new group id, made on `backend`'s platform (`ncclGetUniqueId`). Rank 0 of a group
    /// spread over processes makes it and hands it to the others.
    pub fn new_id(backend: &HipBackend) -> Result<CollectiveId> {
        platform(backend).collective_id()
    }

    /// The collective library's name and version ("NCCL 2.27.3"), loading it if needed.
    pub fn library_version(backend: &HipBackend) -> Result<String> {
        platform(backend).collectives_version()
    }

    /// One rank per backend, in order (rank `i` on `backends[i]`), all in this process: the
    /// group is created in one step (`ncclGroupStart`, one `ncclCommInitRank` per device,
    /// `ncclGroupEnd`). The backends must belong to one runtime and be distinct devices.
    pub fn for_devices(backends: &[HipBackend]) -> Result<Vec<Communicator>> {
        let Some(first) = backends.first() else {
            return Err(HipError::InvalidArgument(
                "a collective group needs at least one device".into(),
            ));
        };
        let mut seen = Vec::with_capacity(backends.len());
        for b in backends {
            if !Arc::ptr_eq(b.runtime(), first.runtime()) {
                return Err(HipError::InvalidArgument(
                    "the devices of one group must belong to one runtime (one platform)".into(),
                ));
            }
            let id = b.device_state().id();
            if seen.contains(&id) {
                return Err(HipError::InvalidArgument(format!(
                    "device {id} is given twice: each rank of a group needs its own device"
                )));
            }
            seen.push(id);
        }
        let platform = platform(first);
        let id = platform.collective_id()?;
        let ranks = backends.len();
        platform.group_start()?;
        let mut comms = Vec::with_capacity(ranks);
        let mut failed = None;
        for (rank, b) in backends.iter().enumerate() {
            match platform.comm_init_rank(b.device_state().id(), ranks, &id, rank) {
                Ok(comm) => comms.push(Communicator {
                    backend: b.clone(),
                    comm,
                    rank,
                    ranks,
                    _one_thread_at_a_time: std::marker::PhantomData,
                }),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let ended = platform.group_end();
        if let Some(e) = failed {
            return Err(e);
        }
        ended?;
        tracing::debug!(ranks, "collective group of this process's devices created");
        Ok(comms)
    }

    /// Join group `id` as `rank` of `ranks` on `backend`'s device. Blocks until every rank
    /// has joined (call it from one thread per rank, or one process per rank).
    pub fn join(
        backend: &HipBackend,
        rank: usize,
        ranks: usize,
        id: &CollectiveId,
    ) -> Result<Communicator> {
        if ranks == 0 || rank >= ranks {
            return Err(HipError::InvalidArgument(format!(
                "rank {rank} of a group of {ranks}: the rank must be below the group size"
            )));
        }
        let comm =
            platform(backend).comm_init_rank(backend.device_state().id(), ranks, id, rank)?;
        Ok(Communicator {
            backend: backend.clone(),
            comm,
            rank,
            ranks,
            _one_thread_at_a_time: std::marker::PhantomData,
        })
    }

    /// Join the group a launcher started this process in: the rank and group size from
    /// [`RankInfo::from_env`] (gpuarrays', torchrun's, Open MPI's or Slurm's variables), the
    /// device from the local rank (`HipBackend::new(local_rank)`), and the id shared as
    /// `GPUARRAYS_BOOTSTRAP` says ([`Bootstrap::from_env`]; rank 0 makes it).
    pub fn from_env() -> Result<Communicator> {
        let info = RankInfo::from_env()?.ok_or_else(|| {
            HipError::InvalidArgument(
                "no rank in the environment: set GPUARRAYS_RANK and GPUARRAYS_RANKS (or start \
                 the processes with torchrun, mpirun or srun)"
                    .into(),
            )
        })?;
        let bootstrap = Bootstrap::from_env()?.ok_or_else(|| {
            HipError::InvalidArgument(
                "GPUARRAYS_BOOTSTRAP is not set: say how the ranks share the group id \
                 (env:VAR, file:PATH or tcp:HOST:PORT)"
                    .into(),
            )
        })?;
        let backend = HipBackend::new(info.local_rank)?;
        let id = bootstrap.share(info.rank, info.ranks, || Communicator::new_id(&backend))?;
        Communicator::join(&backend, info.rank, info.ranks, &id)
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The number of ranks in the group.
    pub fn ranks(&self) -> usize {
        self.ranks
    }
    /// The device (backend) this rank runs on.
    pub fn backend(&self) -> &HipBackend {
        &self.backend
    }
    /// The platform's communicator handle.
    pub fn handle(&self) -> CommHandle {
        self.comm
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        let state = self.backend.device_state();
        let platform = state.platform();
        // The communicator may still be used by queued collectives, on any thread's stream.
        if let Err(e) = platform.synchronize_device(state.id()) {
            tracing::debug!(error = %e, "waiting for the device before destroying a communicator failed");
        }
        if let Err(e) = platform.comm_destroy(self.comm) {
            tracing::debug!(error = %e, "destroying a communicator failed");
        }
    }
}
