//! `impl PeerAccess, CollectiveLibrary for FakePlatform`: what spans devices.
//!
//! Peers: every pair of distinct devices reaches each other unless
//! [`super::FakeConfig::peer_access`] is off. A peer copy moves its bytes in any case (a real
//! driver stages it through the host when the stream's device has not enabled access to the
//! other device's memory); those copies are counted ([`super::FakeStats::staged_peer_copies`])
//! so tests can see the slow path was taken.
//!
//! Collectives: the engine is `collectives.rs`; this file maps the trait onto it.

use super::*;
use crate::platform::{CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, PeerAccess};
use std::sync::atomic::AtomicU64;

/// `hipErrorPeerAccessUnsupported` / `cudaErrorPeerAccessUnsupported`.
const PEER_ACCESS_UNSUPPORTED: i32 = 217;

/// The first 8 bytes of every collective id the double makes (a process-wide count), after
/// which comes this magic.
static NEXT_COLLECTIVE_ID: AtomicU64 = AtomicU64::new(1);
const ID_MAGIC: &[u8; 16] = b"fake-nccl-uid-v1";

impl FakePlatform {
    /// Whether `device` has enabled access to `peer`'s memory
    /// ([`PeerAccess::enable_peer_access`]); ordered: `(a, b)` says nothing of `(b, a)`.
    pub fn peer_enabled(&self, device: DeviceId, peer: DeviceId) -> bool {
        self.state.lock().peers_enabled.contains(&(device, peer))
    }

    /// Communicators created and not destroyed ([`CollectiveLibrary::comm_init_rank`]).
    pub fn live_comms(&self) -> usize {
        self.state.lock().collectives.comms()
    }

    /// The device of the allocation holding `bytes` at `ptr` (an error if there is none),
    /// which must be `device`; returns the allocation's base and the offset of `ptr`.
    fn access_of_device(
        &self,
        st: &mut State,
        stream: StreamHandle,
        ptr: DevicePtr,
        bytes: usize,
        device: DeviceId,
    ) -> Result<(u64, usize)> {
        let at = self.access_on(st, stream, ptr, bytes)?;
        let owner = st.allocs[&at.0].device;
        if owner != device {
            let why = format!("{ptr} is memory of {owner}, not of {device}");
            return Err(api("copy_peer_async", codes::INVALID_VALUE, &why));
        }
        Ok(at)
    }
}

impl PeerAccess for FakePlatform {
    fn can_access_peer(&self, device: DeviceId, peer: DeviceId) -> Result<bool> {
        self.check_device(device)?;
        self.check_device(peer)?;
        Ok(device != peer && self.config.peer_access)
    }

    fn enable_peer_access(&self, device: DeviceId, peer: DeviceId) -> Result<()> {
        let call = "enable_peer_access";
        self.check_device(peer)?;
        // As the real one: the device's context becomes current.
        self.bind_device(device)?;
        if device == peer {
            let why = format!("{device} is not its own peer");
            return Err(api(call, codes::INVALID_VALUE, &why));
        }
        if !self.config.peer_access {
            let why = format!("peer access unsupported between {device} and {peer}");
            return Err(api(call, PEER_ACCESS_UNSUPPORTED, &why));
        }
        let mut st = self.state.lock();
        if st.peers_enabled.insert((device, peer)) {
            st.stats.peer_enables += 1;
        }
        Ok(())
    }

    unsafe fn copy_peer_async(
        &self,
        dst: DevicePtr,
        dst_device: DeviceId,
        src: DevicePtr,
        src_device: DeviceId,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let call = "copy_peer_async";
        self.check_device(dst_device)?;
        self.check_device(src_device)?;
        let mut st = self.state.lock();
        let device = self.enqueue_check(&st, call, stream)?;
        if device != dst_device && device != src_device {
            let why = format!("stream of {device}, copy from {src_device} to {dst_device}");
            return Err(api(call, codes::INVALID_VALUE, &why));
        }
        let (sb, so) = self.access_of_device(&mut st, stream, src, bytes, src_device)?;
        let at = self.access_of_device(&mut st, stream, dst, bytes, dst_device)?;
        let other = if device == dst_device {
            src_device
        } else {
            dst_device
        };
        if other != device && !st.peers_enabled.contains(&(device, other)) {
            st.stats.staged_peer_copies += 1;
        }
        let data = st.allocs[&sb].data[so..so + bytes].to_vec();
        st.bytes_mut(at, bytes).copy_from_slice(&data);
        if !st.enqueue(FakeOp::PeerCopy { stream }, self.config.copy_time) {
            self.note(&mut st, stream, sb, false, "peer copy");
            self.note(&mut st, stream, at.0, true, "peer copy");
        }
        Ok(())
    }
}

impl CollectiveLibrary for FakePlatform {
    fn collectives_version(&self) -> Result<String> {
        self.collectives_check()?;
        Ok("fake NCCL 2.99.0".into())
    }

    fn collective_id(&self) -> Result<CollectiveId> {
        self.collectives_check()?;
        let n = NEXT_COLLECTIVE_ID.fetch_add(1, Ordering::Relaxed);
        let mut id = [0u8; 128];
        id[..8].copy_from_slice(&n.to_le_bytes());
        id[8..24].copy_from_slice(ID_MAGIC);
        Ok(CollectiveId(id))
    }

    fn comm_init_rank(
        &self,
        device: DeviceId,
        ranks: usize,
        id: &CollectiveId,
        rank: usize,
    ) -> Result<CommHandle> {
        self.fake_comm_init_rank(device, ranks, id, rank)
    }

    fn comm_destroy(&self, comm: CommHandle) -> Result<()> {
        self.fake_comm_destroy(comm)
    }

    fn group_start(&self) -> Result<()> {
        self.fake_group_start()
    }

    fn group_end(&self) -> Result<()> {
        self.fake_group_end()
    }

    unsafe fn collective(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()> {
        self.fake_collective(comm, call, stream)
    }
}
