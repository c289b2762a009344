//! `impl PeerAccess, CollectiveLibrary for NvidiaPlatform`: peer copies through the CUDA
//! driver, collectives through NCCL (the shared table of `platform/nccl_api.rs`).

use super::{NvidiaPlatform, cu, cu_call, stream};
use crate::error::{HipError, Result};
use crate::platform::loader::{versioned_names, with_env_dirs};
use crate::platform::nccl_api::{NcclLibrary, NcclSource};
use crate::platform::{
    CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, DeviceId, DevicePtr, PeerAccess,
    Platform, PlatformKind, StreamHandle,
};

const NCCL: NcclSource = NcclSource {
    platform: PlatformKind::Nvidia,
    name: "NCCL",
    library: "NCCL (libnccl)",
    provider: "NVIDIA's NCCL",
    hint: "install NCCL 2.18 or newer (libnccl.so.2: the libnccl2 package, or the nvidia-nccl-cu12/cu13 wheel's lib directory) and put its directory on LD_LIBRARY_PATH or in NCCL_HOME",
};

/// Candidate files of libnccl: `$NCCL_HOME` / `$CUDA_HOME` first, then the loader's path.
fn nccl_candidates() -> Vec<String> {
    with_env_dirs(
        &["NCCL_HOME", "CUDA_HOME"],
        &versioned_names("nccl", &["2"]),
    )
}

/// `CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED`: a second enable of the same pair.
const ALREADY_ENABLED: i32 = 704;

impl NvidiaPlatform {
    fn nccl(&self) -> Result<&NcclLibrary> {
        self.nccl
            .get_or_init(|| NcclLibrary::open(NCCL, &nccl_candidates()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl PeerAccess for NvidiaPlatform {
    fn can_access_peer(&self, device: DeviceId, peer: DeviceId) -> Result<bool> {
        if device == peer {
            self.context(device)?;
            return Ok(false);
        }
        let (dev, peer_dev) = (self.cu_device(device)?, self.cu_device(peer)?);
        let mut can = 0i32;
        // SAFETY: `can` is a valid out-pointer; both are devices from cuDeviceGet.
        cu_call("cuDeviceCanAccessPeer", || unsafe {
            cu::cuDeviceCanAccessPeer(&mut can, dev, peer_dev)
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
        let peer_ctx = self.context(peer)?;
        self.bind_device(device)?;
        // SAFETY: `peer_ctx` is a primary context retained for the platform's lifetime; the
        // device's own context is current.
        match cu_call("cuCtxEnablePeerAccess", || unsafe {
            cu::cuCtxEnablePeerAccess(peer_ctx, 0)
        }) {
            Err(e) if e.api_code() != Some(ALREADY_ENABLED) => return Err(e),
            _ => {}
        }
        if self.pools_supported.iter().all(|&b| b) {
            // Memory from the peer's stream-ordered pool is mapped per pool, not per context.
            let mut pool: cu::CUmemoryPool = std::ptr::null_mut();
            let peer_dev = self.cu_device(peer)?;
            // SAFETY: `pool` is a valid out-pointer; `peer_dev` a device from cuDeviceGet.
            cu_call("cuDeviceGetDefaultMemPool", || unsafe {
                cu::cuDeviceGetDefaultMemPool(&mut pool, peer_dev)
            })?;
            let desc = cu::CUmemAccessDesc {
                location: cu::CUmemLocation {
                    type_: cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: device.0 as i32,
                },
                flags: cu::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            // SAFETY: `pool` is the peer's default pool; `desc` is one valid descriptor.
            cu_call("cuMemPoolSetAccess", || unsafe {
                cu::cuMemPoolSetAccess(pool, &desc, 1)
            })?;
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
        s: StreamHandle,
    ) -> Result<()> {
        let (dst_ctx, src_ctx) = (self.context(dst_device)?, self.context(src_device)?);
        // SAFETY: both ranges lie in live allocations of their devices (caller contract);
        // the contexts are retained primary contexts; the stream's context is current.
        cu_call("cuMemcpyPeerAsync", || unsafe {
            cu::cuMemcpyPeerAsync(dst.0, dst_ctx, src.0, src_ctx, bytes, stream(s))
        })
    }
}

impl CollectiveLibrary for NvidiaPlatform {
    fn collectives_version(&self) -> Result<String> {
        self.nccl()?.version()
    }
    fn collective_id(&self) -> Result<CollectiveId> {
        self.nccl()?.unique_id()
    }
    fn comm_init_rank(
        &self,
        device: DeviceId,
        ranks: usize,
        id: &CollectiveId,
        rank: usize,
    ) -> Result<CommHandle> {
        let nccl = self.nccl()?;
        // NCCL takes the device from the current context.
        self.bind_device(device)?;
        nccl.init_rank(ranks, id, rank)
    }
    fn comm_destroy(&self, comm: CommHandle) -> Result<()> {
        self.nccl()?.destroy(comm)
    }
    fn group_start(&self) -> Result<()> {
        self.nccl()?.group_start()
    }
    fn group_end(&self) -> Result<()> {
        self.nccl()?.group_end()
    }
    unsafe fn collective(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()> {
        let nccl = self.nccl()?;
        // SAFETY: the caller's contract is the table's.
        unsafe { nccl.enqueue(comm, call, stream) }
    }
}
