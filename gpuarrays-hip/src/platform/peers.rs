//! Copies between the memory of two devices of one host.
//!
//! A concern of its own: only the runtime's device-to-device moves (`crate::peer`) use it.
//! Peers that reach each other directly (NVLink, PCIe peer-to-peer) copy without the host;
//! the runtime asks [`PeerAccess::can_access_peer`] once per ordered pair and goes through
//! host memory when the answer is no.

use super::{DeviceId, DevicePtr, StreamHandle};
use crate::error::Result;

/// Peer access and peer copies; a supertrait of [`super::Platform`].
pub trait PeerAccess {
    /// Whether `device` can read and write `peer`'s memory directly
    /// (`cuDeviceCanAccessPeer` / `hipDeviceCanAccessPeer`). A device is not its own peer.
    fn can_access_peer(&self, device: DeviceId, peer: DeviceId) -> Result<bool>;

    /// Let work on `device` reach `peer`'s memory: both what the peer allocates outside its
    /// stream-ordered pool (`cuCtxEnablePeerAccess` / `hipDeviceEnablePeerAccess`) and what
    /// its pool hands out (`cuMemPoolSetAccess` / `hipMemPoolSetAccess` on the peer's default
    /// pool: pool memory ignores the first). Enabling twice is not an error. Binds `device`.
    fn enable_peer_access(&self, device: DeviceId, peer: DeviceId) -> Result<()>;

    /// Copy `bytes` from `src` (memory of `src_device`) to `dst` (memory of `dst_device`),
    /// ordered on `stream`, a stream of either device, from a thread bound to the stream's
    /// device (`cuMemcpyPeerAsync` / `hipMemcpyPeerAsync`).
    ///
    /// # Safety
    /// Both ranges must lie inside live allocations of their devices until the copy has run.
    unsafe fn copy_peer_async(
        &self,
        dst: DevicePtr,
        dst_device: DeviceId,
        src: DevicePtr,
        src_device: DeviceId,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<()>;
}
