//! `impl PeerAccess, CollectiveLibrary for AmdPlatform`: peer copies through HIP, collectives
//! through RCCL (the shared table of `platform/nccl_api.rs`: RCCL exports NCCL's API).

use super::AmdPlatform;
use super::ffi::HipMemAccessDesc;
use super::platform_impl::p;
use crate::error::{HipError, Result};
use crate::platform::loader::{versioned_names, with_env_dirs};
use crate::platform::nccl_api::{NcclLibrary, NcclSource};
use crate::platform::{
    CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, DeviceId, DevicePtr, PeerAccess,
    Platform, PlatformKind, StreamHandle,
};
use std::ffi::c_void;

const RCCL: NcclSource = NcclSource {
    platform: PlatformKind::Amd,
    name: "RCCL",
    library: "ROCm's RCCL (librccl)",
    provider: "ROCm's RCCL",
    hint: "install ROCm's RCCL (librccl.so.1, ROCm 6 or newer) and put its directory on LD_LIBRARY_PATH or in ROCM_PATH",
};

/// Candidate files of librccl: `$ROCM_PATH` / `$HIP_PATH`, the loader's path, `/opt/rocm`.
fn rccl_candidates() -> Vec<String> {
    let names = versioned_names("rccl", &["1"]);
    let mut out = with_env_dirs(&["ROCM_PATH", "HIP_PATH"], &names);
    out.extend(names.iter().map(|n| format!("/opt/rocm/lib/{n}")));
    out
}

/// `hipErrorPeerAccessAlreadyEnabled`: a second enable of the same pair.
const ALREADY_ENABLED: i32 = 704;
/// `hipMemLocationTypeDevice`.
const LOCATION_DEVICE: i32 = 1;
/// `hipMemAccessFlagsProtReadWrite`.
const READ_WRITE: i32 = 3;

impl AmdPlatform {
    fn rccl(&self) -> Result<&NcclLibrary> {
        self.rccl
            .get_or_init(|| NcclLibrary::open(RCCL, &rccl_candidates()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl PeerAccess for AmdPlatform {
    fn can_access_peer(&self, device: DeviceId, peer: DeviceId) -> Result<bool> {
        let (dev, peer_dev) = (self.check_device(device)?, self.check_device(peer)?);
        if dev == peer_dev {
            return Ok(false);
        }
        let mut can = 0i32;
        // SAFETY: valid out-pointer; both ordinals were checked.
        self.check("hipDeviceCanAccessPeer", unsafe {
            (self.f().hipDeviceCanAccessPeer)(&mut can, dev, peer_dev)
        })?;
        Ok(can != 0)
    }

    fn enable_peer_access(&self, device: DeviceId, peer: DeviceId) -> Result<()> {
        if !self.can_access_peer(device, peer)? {
            return Err(HipError::InvalidArgument(format!(
                "device {device} cannot reach device {peer}'s memory directly; copy through \
                 the host instead"
            )));
        }
        let peer_dev = self.check_device(peer)?;
        self.bind_device(device)?;
        // SAFETY: `peer_dev` is a checked ordinal; flags must be 0.
        let r = unsafe { (self.f().hipDeviceEnablePeerAccess)(peer_dev, 0) };
        if r != ALREADY_ENABLED {
            self.check("hipDeviceEnablePeerAccess", r)?;
        }
        // Memory from the peer's stream-ordered pool is mapped per pool.
        let mut pool: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer; checked ordinal.
        self.check("hipDeviceGetDefaultMemPool", unsafe {
            (self.f().hipDeviceGetDefaultMemPool)(&mut pool, peer_dev)
        })?;
        let desc = HipMemAccessDesc {
            location_type: LOCATION_DEVICE,
            location_id: device.0 as i32,
            flags: READ_WRITE,
        };
        // SAFETY: `pool` is the peer's default pool; `desc` is one valid descriptor.
        self.check("hipMemPoolSetAccess", unsafe {
            (self.f().hipMemPoolSetAccess)(pool, &desc, 1)
        })
    }

    unsafe fn copy_peer_async(
        &self,
        dst: DevicePtr,
        dst_device: DeviceId,
        src: DevicePtr,
        src_device: DeviceId,
        bytes: usize,
        s: StreamHandle,
    ) -> Result<()> {
        let (d, sd) = (
            self.check_device(dst_device)?,
            self.check_device(src_device)?,
        );
        // SAFETY: both ranges lie in live allocations of their devices (caller contract);
        // the stream's device is current.
        self.check("hipMemcpyPeerAsync", unsafe {
            (self.f().hipMemcpyPeerAsync)(p(dst.0), d, p(src.0), sd, bytes, p(s.0))
        })
    }
}

impl CollectiveLibrary for AmdPlatform {
    fn collectives_version(&self) -> Result<String> {
        self.rccl()?.version()
    }
    fn collective_id(&self) -> Result<CollectiveId> {
        self.rccl()?.unique_id()
    }
    fn comm_init_rank(
        &self,
        device: DeviceId,
        ranks: usize,
        id: &CollectiveId,
        rank: usize,
    ) -> Result<CommHandle> {
        let rccl = self.rccl()?;
        // RCCL takes the device from hipGetDevice.
        self.bind_device(device)?;
        rccl.init_rank(ranks, id, rank)
    }
    fn comm_destroy(&self, comm: CommHandle) -> Result<()> {
        self.rccl()?.destroy(comm)
    }
    fn group_start(&self) -> Result<()> {
        self.rccl()?.group_start()
    }
    fn group_end(&self) -> Result<()> {
        self.rccl()?.group_end()
    }
    unsafe fn collective(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()> {
        let rccl = self.rccl()?;
        // SAFETY: the caller's contract is the table's.
        unsafe { rccl.enqueue(comm, call, stream) }
    }
}
